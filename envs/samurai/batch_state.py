"""The Samurai batch's games in and out of per-game states: rows filled from
:class:`~envs.samurai.rules.SamuraiState` positions (deals, a search's determinizations), and a row
given back as a fresh state through the game's public serializer (``serialize.state_from_dict``).

Only a state's game data is read (board, figures, hands, piles, captures, the turn in progress),
never its caches; the batch's own lookups (influence, empty hexes, movable tiles) are rebuilt here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.compiled import kernel
from envs.samurai.batch_arrays import games_of
from envs.samurai.batch_legal import swap_possible
from envs.samurai.batch_rules import add_influence
from envs.samurai.batch_tables import DUMMY, MOVABLE_OF
from envs.samurai.board import SETTLEMENTS
from envs.samurai.components import CHOOSE_HAND, FIGURE_TYPES, HAND_SIZE, NUM_KINDS, PHASES, TILE_NAMES
from envs.samurai.rules import SamuraiState


@kernel
def start(games, rows, piles, figures, phase, drawn):
    """Game ``rows[k]`` becomes the opening position of the deal ``piles[k]``, ``figures[k]`` (``drawn`` tiles
    already in each hand), ``phase`` opening, player 0 to act; its lookups are left to :func:`derive`."""
    for k in range(rows.size):
        i = rows[k]
        games.phase[i], games.player[i] = phase, 0
        games.hand[i], games.pile[i] = -1, -1
        for p in range(piles.shape[1]):
            games.hand[i, p, :drawn] = piles[k, p, :drawn]
            games.pile[i, p, : piles.shape[2] - drawn] = piles[k, p, drawn:]
        games.hand_len[i], games.pile_len[i] = drawn, piles.shape[2] - drawn
        games.tile[i], games.owner[i] = -1, -1
        games.figures[i, :DUMMY], games.figures[i, DUMMY] = figures[k], False
        games.captured[i], games.set_aside[i], games.turn[i] = 0, 0, 0
        games.played[i], games.played_len[i], games.non_quick[i] = -1, 0, False
        games.pending[i], games.first_s[i], games.first_t[i], games.swap_from[i] = -1, -1, -1, -1


@kernel
def derive(games, board, rows):
    """The lookups of the games ``rows`` from their board, figures, hands and piles: empty hexes, the empty land
    around each settlement, movable tiles, influence, figures on the board, ``swap_ok``, unplayed tiles."""
    for i in rows:
        tile, owner, need, influence = games.tile[i], games.owner[i], games.need[i], games.influence[i]
        need[:], influence[:], games.movable[i] = 0, 0, 0
        games.empty_land[i], games.empty_sea[i] = 0, 0
        for h in range(tile.size):
            if tile[h] >= 0:
                games.movable[i, owner[h]] += MOVABLE_OF[tile[h]]
                add_influence(influence, board.near, h, owner[h], tile[h], 1)
            elif board.land_on[h]:
                games.empty_land[i] += 1
                for j in range(2):
                    if board.near[h, j] != DUMMY:
                        need[board.near[h, j]] += 1
            elif board.sea_on[h]:
                games.empty_sea[i] += 1
        for t in range(3):
            games.on_board[i, t] = games.figures[i, :, t].sum()
        games.swap_ok[i] = swap_possible(games.figures[i])
        games.unplayed[i] = 0
        for p in range(games.hand.shape[1]):
            for kind in games.hand[i, p]:
                if kind >= 0:
                    games.unplayed[i, p, kind] += 1
            for kind in games.pile[i, p]:
                if kind >= 0:
                    games.unplayed[i, p, kind] += 1


ROW_0 = np.zeros(1, dtype=np.int64)


class BatchStateIO:
    """Mixin of :class:`~envs.samurai.batch.SamuraiBatch`: loading rows from states, and ``state(i)``."""

    def _load(self, rows: np.ndarray, states: list[SamuraiState]) -> None:
        """Rows ``rows`` become copies of ``states`` (which are only read)."""
        self._changed()
        players = self.game.num_players
        self.phase[rows] = [PHASES.index(state.phase) for state in states]
        self.player[rows] = [-1 if state.current_player is None else state.current_player for state in states]
        hands = [hand for state in states for hand in state.hands]
        piles = [pile for state in states for pile in state.piles]
        self.hand[rows] = _padded(hands, self.hand.shape[2]).reshape(len(rows), players, -1)
        self.pile[rows] = _padded(piles, self.pile.shape[2]).reshape(len(rows), players, -1)
        self.hand_len[rows] = np.array([len(hand) for hand in hands]).reshape(len(rows), players)
        self.pile_len[rows] = np.array([len(pile) for pile in piles]).reshape(len(rows), players)
        self.tile[rows] = [state.tile for state in states]
        self.owner[rows] = [state.owner for state in states]
        self.figures[rows] = _figures(states, self.figures.shape[1])
        self.captured[rows] = [state.captured for state in states]
        self.set_aside[rows] = [state.set_aside for state in states]
        self.turn[rows] = [state.turn_number for state in states]
        self.played[rows] = _padded([state.played for state in states], self.played.shape[1])
        self.played_len[rows] = [len(state.played) for state in states]
        self.non_quick[rows] = [state.non_quick_used for state in states]
        self.pending[rows] = [state.pending for state in states]
        firsts = [(-1, -1) if state.first_figure is None else state.first_figure for state in states]
        self.first_s[rows], self.first_t[rows] = np.array(firsts, dtype=np.int64).reshape(-1, 2).T
        self.swap_from[rows] = [state.swap_from for state in states]
        self._derive(rows)

    def load_one(self, state: SamuraiState) -> None:
        """Row 0 becomes a copy of ``state``, as ``_load([0], [state])`` makes it: a field at a time, for a search
        that asks the compiled heuristic about one position at a time (``_load``'s lists of games cost several
        times as much for one)."""
        self._changed()
        self.phase[0] = PHASES.index(state.phase)
        self.player[0] = -1 if state.current_player is None else state.current_player
        for p, (hand, pile) in enumerate(zip(state.hands, state.piles)):
            self.hand[0, p], self.pile[0, p] = -1, -1
            self.hand[0, p, : len(hand)], self.pile[0, p, : len(pile)] = hand, pile
            self.hand_len[0, p], self.pile_len[0, p] = len(hand), len(pile)
        self.tile[0], self.owner[0] = state.tile, state.owner
        self.figures[0] = False
        for s, types in enumerate(state.figures):
            for t in types:
                self.figures[0, s, t] = True
        self.captured[0], self.set_aside[0], self.turn[0] = state.captured, state.set_aside, state.turn_number
        self.played[0] = -1
        self.played[0, : len(state.played)] = state.played
        self.played_len[0], self.non_quick[0], self.pending[0] = len(state.played), state.non_quick_used, state.pending
        self.first_s[0], self.first_t[0] = (-1, -1) if state.first_figure is None else state.first_figure
        self.swap_from[0] = state.swap_from
        self._derive(ROW_0)

    def _start(self, rows: np.ndarray, piles: np.ndarray, figures: np.ndarray) -> None:
        """Rows ``rows`` become the opening positions of these deals (``batch_deal.dealt``: piles ``(m, P, 20)``,
        figures ``(m, S, 3)``), as ``SamuraiState.__init__`` sets one up: player 0 to open the first phase,
        hands drawn from the piles unless chosen, an empty board; then the lookups (:meth:`_derive`)."""
        self._changed()
        drawn = 0 if self._opening_phase == PHASES.index(CHOOSE_HAND) else HAND_SIZE
        rows = np.asarray(rows, dtype=np.int64)
        start(games_of(self), rows, piles, figures, self._opening_phase, drawn)
        self._derive(rows)

    def _derive(self, rows: np.ndarray) -> None:
        """The lookups that follow from the board, the figures, hands and piles."""
        derive(games_of(self), self.board, np.asarray(rows, dtype=np.int64))

    def state_dict(self, index: int) -> dict[str, Any]:
        """Game ``index`` in ``state_to_dict``'s format."""
        i = index
        player = int(self.player[i])
        names = [TILE_NAMES[k] for k in range(NUM_KINDS)]
        tiles = np.flatnonzero(self.tile[i] >= 0)
        over = player < 0
        first = None
        if self.first_s[i] >= 0:
            first = {"settlement": SETTLEMENTS[self.first_s[i]], "type": FIGURE_TYPES[self.first_t[i]]}
        return {
            "game": "samurai",
            "num_players": self.game.num_players,
            "current_player": None if over else player,
            "board": {str(h): {"tile": names[self.tile[i, h]], "owner": int(self.owner[i, h])} for h in tiles},
            "figures": {
                str(SETTLEMENTS[s]): [FIGURE_TYPES[t] for t in np.flatnonzero(self.figures[i, s])]
                for s in self.tables.settlements
            },
            "captured": [dict(zip(FIGURE_TYPES, c.tolist())) for c in self.captured[i]],
            "set_aside": dict(zip(FIGURE_TYPES, self.set_aside[i].tolist())),
            "hands": [[names[k] for k in hand[:n]] for hand, n in zip(self.hand[i], self.hand_len[i])],
            "piles": [[names[k] for k in pile[:n]] for pile, n in zip(self.pile[i], self.pile_len[i])],
            "turn": {
                "number": int(self.turn[i]),
                "phase": PHASES[self.phase[i]],
                "played": [names[k] for k in self.played[i, : self.played_len[i]]],
                "non_quick_used": bool(self.non_quick[i]),
                "tile": None if self.pending[i] < 0 else names[self.pending[i]],
                "first_figure": first,
                "swap_from": None if self.swap_from[i] < 0 else int(self.swap_from[i]),
            },
            "terminal": over,
            "winners": np.flatnonzero(self.winners()[i]).tolist() if over else [],
        }

    def state(self, index: int) -> SamuraiState:
        """Game ``index`` as a fresh :class:`SamuraiState`, through the game's serializer."""
        return self.game.state_from_dict(self.state_dict(index))


def _padded(lists: list[list[int]], width: int) -> np.ndarray:
    """``(len(lists), width)`` int64: each list from the left, padded with -1."""
    out = np.full((len(lists), width), -1, dtype=np.int64)
    lengths = np.array([len(values) for values in lists], dtype=np.int64)
    out[np.arange(width) < lengths[:, None]] = [v for values in lists for v in values]
    return out


def _figures(states: list[SamuraiState], width: int) -> np.ndarray:
    """``(len(states), width, 3)`` bool from each state's figures per settlement index."""
    lists = [types for state in states for types in state.figures]
    count = len(lists) // len(states)
    cells = np.repeat(np.arange(len(lists)), [len(types) for types in lists])
    out = np.zeros((len(states), width, 3), dtype=bool)
    out[cells // count, cells % count, [t for types in lists for t in types]] = True
    return out
