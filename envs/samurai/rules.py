"""Samurai rules engine (``docs/rules/samurai.md``): tiles around settlements, figures captured by influence.

Inside, tiles are kinds (ints, ``components.TILE_NAMES``), figure types are
0 helmet, 1 buddha, 2 rice, and settlements are indices into
``board.SETTLEMENTS``. A turn is several actions by the same player (see
``actions.py``); everything automatic (captures, the end of a turn when
nothing else is legal, refills, forced passes, the end of the game) happens
inside ``apply``. The state is plain game data: what a player may see of it
is the observer's business (``observation.py``), and so are its caches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.engine import GameState
from envs.samurai import figure_moves
from envs.samurai.actions import (
    END_TURN,
    describe_action,
    figure_of,
    hex_actions,
    hex_of,
    tile_actions,
    tile_of,
)  # fmt: skip
from envs.samurai.board import HEX_KIND, LAND, NUM_HEXES
from envs.samurai.components import (
    CHOOSE_HAND,
    DRAFT,
    DRAFT_SETUP,
    FIGURE_SWAP,
    HAND_SIZE,
    INFLUENCE,
    MOVABLE,
    NUM_KINDS,
    PLAY,
    QUICK,
    SHIPS,
    TILE_SWAP,
)  # fmt: skip
from envs.samurai.scoring import winners as winners_of
from envs.samurai.setup import PileChance, redeal

if TYPE_CHECKING:
    from envs.samurai.game import SamuraiGame

#: What each tile kind needs to be playable: an empty land hex, an empty sea hex,
#: a legal figure exchange, or an own movable tile on the board and an empty land hex.
ON_LAND, ON_SEA, SWAP_FIGURES, SWAP_TILE = range(4)
TARGET = tuple(
    ON_SEA if k in SHIPS else SWAP_FIGURES if k == FIGURE_SWAP else SWAP_TILE if k == TILE_SWAP else ON_LAND
    for k in range(NUM_KINDS)
)
#: End condition (b): the game ends when this many figures have been set aside.
SET_ASIDE_TO_END = 4
NO_TILE = NO_HEX = -1


class SamuraiState(PileChance, GameState):
    """One position: the board, the figures, hands and piles, and the turn in progress (chance: ``PileChance``)."""

    def __init__(self, game: SamuraiGame, piles: list[list[int]], figures: list[list[int]]):
        """The opening position of a deal: each player's shuffled pile (next draw first) and
        the figures per settlement index (every settlement for the random set-up, Edo alone
        before a draft). Hands are drawn from the piles unless the players choose them.
        Player 0 opens every phase, and always has a legal move: any five tiles include
        one that goes on the empty land or sea."""
        n, layout = game.num_players, game.layout
        self.game = game
        self.layout = layout
        self.phase = CHOOSE_HAND if game.choose_hand else DRAFT if game.figure_setup == DRAFT_SETUP else PLAY
        self.current_player: int | None = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.piles = [list(pile) for pile in piles]
        self.tile = [NO_TILE] * NUM_HEXES  # kind on each hex
        self.owner = [-1] * NUM_HEXES
        self.figures = [sorted(types) for types in figures]  # per settlement index, types ascending
        self.figures_on_board = [sum(t in types for types in figures) for t in range(3)]
        self.captured = [[0, 0, 0] for _ in range(n)]
        self.set_aside = [0, 0, 0]
        # Lookups kept with the board: what each rule asks for, without a scan of the map.
        self.need = [len(a) for a in layout.land_around]  # empty land hexes left around each settlement
        self.empty_land = list(layout.land)  # ascending
        self.empty_sea = list(layout.sea)
        self.movable = [0] * n  # own tiles on the board that a tile swap may pick up
        # The turn in progress.
        self.turn_number = 0  # turns finished so far (forced passes included)
        self.played: list[int] = []
        self.non_quick_used = False
        self.pending = NO_TILE  # the tile kind chosen, while its target is being chosen
        self.first_figure: tuple[int, int] | None = None  # figure swap: (settlement, type) picked first
        self.swap_from = NO_HEX  # tile swap: hex of the own tile picked up
        self._swap_table: list[list[bool]] | None = None  # figure_moves.swap_table, until figures move
        if self.phase != CHOOSE_HAND:
            for p in range(n):
                self.refill(p)

    def refill(self, p: int) -> None:
        """Draw from one's own pile back up to five tiles while the pile lasts."""
        hand, pile = self.hands[p], self.piles[p]
        while len(hand) < HAND_SIZE and pile:
            hand.append(pile.pop(0))

    def figures_in_supply(self) -> list[int]:
        """Per type, the figures not yet on the board, captured or set aside (play begins once it is empty)."""
        supply = self.layout.supply
        return [
            supply - self.figures_on_board[t] - self.set_aside[t] - sum(c[t] for c in self.captured) for t in range(3)
        ]

    # --- legal actions -----------------------------------------------------------
    def _compute_legal(self) -> tuple[int, ...]:
        p = self.current_player
        if p is None:
            return ()
        if self.phase == CHOOSE_HAND:
            return tile_actions(sorted(set(self.piles[p])))
        if self.phase == DRAFT:
            return tuple(figure_moves.draft_actions(self.figures, self.layout.settlements, self.figures_in_supply()))
        if self.pending < 0:
            return tile_actions(self.tile_choices()) + ((END_TURN,) if self.played else ())
        if self.pending in SHIPS:
            return hex_actions(self.empty_sea)
        if self.pending == FIGURE_SWAP:
            if self.first_figure is None:
                return tuple(figure_moves.first_figures(self.figures, self.layout.settlements, self.swap_table()))
            return tuple(figure_moves.partners(self.figures, self.layout.settlements, *self.first_figure))
        if self.pending == TILE_SWAP and self.swap_from < 0:
            return hex_actions([h for h in range(NUM_HEXES) if self.owner[h] == p and MOVABLE[self.tile[h]]])
        return hex_actions(self.empty_land)

    def tile_choices(self) -> list[int]:
        """The tile kinds in the current player's hand that can be played now."""
        p = self.current_player
        return self.playable_kinds(p, self.hands[p], self.non_quick_used)

    def playable_kinds(self, p: int, hand: list[int], non_quick_used: bool) -> list[int]:
        """The kinds in ``hand`` that player ``p`` could play now, ascending (also for a re-dealt hand)."""
        land, sea = bool(self.empty_land), bool(self.empty_sea)
        choices = []
        for k in sorted(set(hand)):
            if non_quick_used and not QUICK[k]:
                continue
            target = TARGET[k]
            if (
                land
                if target == ON_LAND
                else sea
                if target == ON_SEA
                else self.figure_swap_possible()
                if target == SWAP_FIGURES
                else land and self.movable[p] > 0
            ):
                choices.append(k)
        return choices

    def can_play(self, p: int) -> bool:
        """Could player ``p`` play a tile at the start of a turn in this position?"""
        return bool(self.playable_kinds(p, self.hands[p], False))

    def swap_table(self) -> list[list[bool]]:
        if self._swap_table is None:
            self._swap_table = figure_moves.swap_table(self.figures, self.layout.settlements)
        return self._swap_table

    def figure_swap_possible(self) -> bool:
        return figure_moves.swap_possible(self.swap_table())

    # --- playing -----------------------------------------------------------------
    def _play(self, action: int) -> None:
        p = self.current_player
        if self.phase == CHOOSE_HAND:
            self.choose_into_hand(p, tile_of(action))
        elif self.phase == DRAFT:
            self.draft(*figure_of(action))
        elif self.pending < 0:
            if action == END_TURN:
                self.end_turn()
            else:
                self.pending = tile_of(action)
        elif self.pending == FIGURE_SWAP:
            s, t = figure_of(action)
            if self.first_figure is None:
                self.first_figure = (s, t)
                return
            self.swap_figures(*self.first_figure, s, t)
            self.tile_played()
        elif self.pending == TILE_SWAP:
            h = hex_of(action)
            if self.swap_from < 0:
                self.swap_from = h
                return
            moved = self.tile[self.swap_from]
            self.tile[self.swap_from] = TILE_SWAP  # the swap tile takes its hex...
            self.movable[p] -= 1  # (the picked tile is off the board for a moment)
            self.place(moved, p, h)  # ...and the picked tile goes to any empty land hex
            self.tile_played()
        else:
            self.place(self.pending, p, hex_of(action))
            self.tile_played()

    def choose_into_hand(self, p: int, kind: int) -> None:
        """choose_hand: take ``kind`` into the starting hand; the rest of the pile keeps its order.
        With five tiles the next player chooses; after the last, the draft or play begins."""
        self.piles[p].remove(kind)
        self.hands[p].append(kind)
        if len(self.hands[p]) < HAND_SIZE:
            return
        if p + 1 < self.game.num_players:
            self.current_player = p + 1
        elif self.game.figure_setup == DRAFT_SETUP:
            self.phase, self.current_player = DRAFT, 0
        else:
            self.phase = PLAY
            self.start_turn(0)

    def draft(self, s: int, t: int) -> None:
        """Draft: put a figure of type ``t`` on settlement ``s``; the next player clockwise
        places the next one; once the supply is empty, player 0's first turn begins."""
        self.figures[s] = sorted(self.figures[s] + [t])
        self.figures_on_board[t] += 1
        self._swap_table = None
        if any(self.figures_in_supply()):
            self.current_player = (self.current_player + 1) % self.game.num_players
        else:
            self.phase = PLAY
            self.start_turn(0)

    def swap_figures(self, s1: int, t1: int, s2: int, t2: int) -> None:
        """Figure swap: the ``t1`` figure of ``s1`` and the ``t2`` figure of ``s2`` trade places."""
        self.figures[s1] = sorted([t for t in self.figures[s1] if t != t1] + [t2])
        self.figures[s2] = sorted([t for t in self.figures[s2] if t != t2] + [t1])
        self._swap_table = None

    def lay(self, kind: int, owner: int, h: int) -> None:
        """Put a tile on the empty hex ``h`` and keep the lookups (no capture: also for loading)."""
        self.tile[h], self.owner[h] = kind, owner
        self.movable[owner] += MOVABLE[kind]
        if HEX_KIND[h] != LAND:
            self.empty_sea.remove(h)
            return
        self.empty_land.remove(h)
        for s in self.layout.settlements_near[h]:
            self.need[s] -= 1

    def place(self, kind: int, owner: int, h: int) -> None:
        """Put a tile on an empty hex and resolve every settlement it surrounds."""
        self.lay(kind, owner, h)
        if HEX_KIND[h] == LAND:
            for s in self.layout.settlements_near[h]:
                if self.need[s] == 0 and self.figures[s]:
                    self.resolve(s)

    def influence(self, s: int, t: int) -> list[int]:
        """Each player's influence on a figure of type ``t`` in settlement ``s``:
        the tiles on the adjacent hexes, land and sea."""
        return self.influences(s)[t]

    def influences(self, s: int) -> list[list[int]]:
        """:meth:`influence` on each figure type in settlement ``s`` (``[type][player]``), in one look around."""
        n = self.game.num_players
        helmet, buddha, rice = [0] * n, [0] * n, [0] * n
        for h in self.layout.around[s]:
            kind = self.tile[h]
            if kind >= 0:
                p = self.owner[h]
                on_helmet, on_buddha, on_rice = INFLUENCE[kind]
                helmet[p] += on_helmet
                buddha[p] += on_buddha
                rice[p] += on_rice
        return [helmet, buddha, rice]

    def resolve(self, s: int) -> None:
        """A surrounded settlement: each figure, separately, goes to the player with
        strictly the highest influence for its type; a tie (0 included) sets it aside."""
        influences = self.influences(s)
        for t in self.figures[s]:
            influence = influences[t]
            best = max(influence)
            if influence.count(best) == 1:
                self.captured[influence.index(best)][t] += 1
            else:
                self.set_aside[t] += 1
            self.figures_on_board[t] -= 1
        self.figures[s] = []
        self._swap_table = None

    def tile_played(self) -> None:
        """The chosen tile's action is complete: it leaves the hand; then the game or the turn may end."""
        kind, p = self.pending, self.current_player
        self.hands[p].remove(kind)
        self.played.append(kind)
        self.non_quick_used |= not QUICK[kind]
        self.pending, self.first_figure, self.swap_from = NO_TILE, None, NO_HEX
        if self.end_reached():
            self.game_over()
            return
        choices = self.tile_choices()
        if choices:
            self._legal = (*tile_actions(choices), END_TURN)
        else:
            self.end_turn()  # ending the turn is the only legal action left

    def end_reached(self) -> bool:
        """(a) the last figure of a type has left the board, or (b) 4 figures have been set aside."""
        return 0 in self.figures_on_board or sum(self.set_aside) >= SET_ASIDE_TO_END

    def end_turn(self) -> None:
        p = self.current_player
        self.refill(p)
        self.turn_number += 1
        self.played, self.non_quick_used = [], False
        self.start_turn((p + 1) % self.game.num_players)

    def start_turn(self, p: int) -> None:
        """A player who cannot play any tile passes (without drawing); when every
        player would pass in turn the game ends."""
        for _ in range(self.game.num_players):
            self.current_player = p
            choices = self.tile_choices()
            if choices:
                self._legal = tile_actions(choices)
                return
            self.turn_number += 1
            p = (p + 1) % self.game.num_players
        self.game_over()

    def settle(self) -> None:
        """Play on from a loaded position whose player to act cannot act: forced passes, the
        automatic end of a turn, or the end of the game when every player would pass."""
        self._legal = self._swap_table = None
        if self.phase != PLAY:
            return
        if not self.played and self.pending < 0:
            self.start_turn(self.turn_number % self.game.num_players)
        elif self.pending < 0 and not self.tile_choices():
            self.end_turn()

    def game_over(self) -> None:
        self.current_player = None
        self._legal = ()

    # --- results -----------------------------------------------------------------
    def scores(self) -> list[float]:
        """Figures captured in total (information only: the winner procedure decides)."""
        return [float(sum(c)) for c in self.captured]

    def winners(self) -> list[int]:
        return winners_of(self.captured) if self.current_player is None else []

    def final_info(self, player: int) -> dict[str, Any]:
        """Numbers and fixed-length lists only, the same shape for every outcome (batching libraries
        such as TorchRL and Tianshou turn infos into tensors): ``player``'s score (figures captured, as
        in every game), the captures per player and figure type,
        the figures set aside per type, a 0/1 winner flag per seat, and whether ``player`` won."""
        winners = self.winners()
        return {
            "score": self.scores()[player],
            "captured": [list(c) for c in self.captured],
            "set_aside": list(self.set_aside),
            "winners": [int(p in winners) for p in range(self.game.num_players)],
            "won": player in winners,
        }

    # --- copies --------------------------------------------------------------------
    def clone(self) -> SamuraiState:
        other = object.__new__(SamuraiState)
        other.game, other.layout = self.game, self.layout
        other.phase, other.current_player = self.phase, self.current_player
        other.hands = [hand[:] for hand in self.hands]
        other.piles = [pile[:] for pile in self.piles]
        other.tile, other.owner = self.tile[:], self.owner[:]
        other.figures = [types[:] for types in self.figures]
        other.figures_on_board = self.figures_on_board[:]
        other.captured = [c[:] for c in self.captured]
        other.set_aside = self.set_aside[:]
        other.need = self.need[:]
        other.empty_land, other.empty_sea = self.empty_land[:], self.empty_sea[:]
        other.movable = self.movable[:]
        other.turn_number, other.played, other.non_quick_used = self.turn_number, self.played[:], self.non_quick_used
        other.pending, other.first_figure, other.swap_from = self.pending, self.first_figure, self.swap_from
        other._legal = self._legal  # a tuple, and the swap table is replaced, never changed: both shared safely
        other._swap_table = self._swap_table
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> SamuraiState:
        """A copy with what ``player`` cannot see re-dealt (see ``setup.redeal``)."""
        other = self.clone()
        other.hands, other.piles = redeal(self, player, rng)
        other._legal = None  # the player to act may hold other tiles now
        return other

    def describe_action(self, action: int) -> str:
        return describe_action(self, action)
