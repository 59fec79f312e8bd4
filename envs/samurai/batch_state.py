"""The Samurai batch's games in and out of per-game states: rows filled from
:class:`~envs.samurai.rules.SamuraiState` positions (deals, a search's determinizations), and a row
given back as a fresh state through the game's public serializer (``serialize.state_from_dict``).

Only a state's game data is read (board, figures, hands, piles, captures, the turn in progress),
never its caches; the batch's own lookups (influence, empty hexes, movable tiles) are rebuilt here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.samurai.batch_tables import DUMMY, INFLUENCE_OF, IS_LAND, MOVABLE_OF
from envs.samurai.board import SETTLEMENTS
from envs.samurai.components import FIGURE_TYPES, NUM_KINDS, PHASES, TILE_NAMES
from envs.samurai.rules import SamuraiState


class BatchStateIO:
    """Mixin of :class:`~envs.samurai.batch.SamuraiBatch`: loading rows from states, and ``state(i)``."""

    def _load(self, rows: np.ndarray, states: list[SamuraiState]) -> None:
        """Rows ``rows`` become copies of ``states`` (which are only read)."""
        self._mask = None
        settlements = self.tables.settlements
        for r, state in zip(rows, states):
            self.phase[r] = PHASES.index(state.phase)
            self.player[r] = -1 if state.current_player is None else state.current_player
            for p, (hand, pile) in enumerate(zip(state.hands, state.piles)):
                self.hand[r, p] = -1
                self.hand[r, p, : len(hand)] = hand
                self.pile[r, p] = -1
                self.pile[r, p, : len(pile)] = pile
                self.hand_len[r, p], self.pile_len[r, p] = len(hand), len(pile)
            self.tile[r], self.owner[r] = state.tile, state.owner
            self.figures[r] = False
            for s in settlements:
                self.figures[r, s, state.figures[s]] = True
            self.captured[r], self.set_aside[r] = state.captured, state.set_aside
            self.turn[r] = state.turn_number
            self.played[r] = -1
            self.played[r, : len(state.played)] = state.played
            self.played_len[r] = len(state.played)
            self.non_quick[r], self.pending[r] = state.non_quick_used, state.pending
            self.first_s[r], self.first_t[r] = (-1, -1) if state.first_figure is None else state.first_figure
            self.swap_from[r] = state.swap_from
        self._derive(rows)

    def _derive(self, rows: np.ndarray) -> None:
        """The lookups that follow from the board, the figures, hands and piles."""
        players = self.game.num_players
        tile, owner = self.tile[rows], self.owner[rows]
        empty = tile < 0
        self.empty_land[rows] = (empty & self.tables.land_on).sum(axis=1)
        self.empty_sea[rows] = (empty & self.tables.sea_on).sum(axis=1)
        self.need[rows] = (empty & self.tables.land_on).astype(np.int64) @ self.tables.land_around.T
        self.on_board[rows] = self.figures[rows].sum(axis=1)
        self._figures_moved(rows)
        seats = np.arange(players)
        mine = owner[:, :, None] == seats  # (m, hexes, P)
        self.movable[rows] = (mine & MOVABLE_OF[tile][:, :, None]).sum(axis=1)
        # influence[s, p, t]: the tiles of p on the hexes next to s (each hex has at most two such s)
        influence = np.zeros((len(rows), DUMMY + 1, players, 3), dtype=np.int64)
        at, hexes = np.nonzero(tile >= 0)
        for j in range(self.tables.near.shape[1]):
            near = (at, self.tables.near[hexes, j], owner[at, hexes])
            np.add.at(influence, near, INFLUENCE_OF[tile[at, hexes]])
        influence[:, DUMMY] = 0
        self.influence[rows] = influence
        kinds = np.concatenate([self.hand[rows], self.pile[rows]], axis=2)  # (m, P, 25)
        counts = np.zeros((len(rows), players, NUM_KINDS + 1), dtype=np.int64)
        np.add.at(counts, (np.arange(len(rows))[:, None, None], seats[None, :, None], kinds), 1)
        self.unplayed[rows] = counts[:, :, :NUM_KINDS]
        assert IS_LAND.shape == tile.shape[1:]

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
