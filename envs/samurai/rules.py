"""Samurai rules engine (``shared/rules/samurai.md``): tiles around settlements, figures captured by influence.

Inside, tiles are kinds (ints, ``components.TILE_NAMES``), figure types are
0 helmet, 1 buddha, 2 rice, and settlements are indices into
``board.SETTLEMENTS``. A turn is several actions by the same player (see
``actions.py``); everything automatic (captures, the end of a turn when
nothing else is legal, refills, forced passes, the end of the game) happens
inside ``apply``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import (
    Game,
    GameState,
    IllegalActionError,
    check_bool,
    check_choice,
    check_options,
    check_perspective,
)
from envs.samurai import figure_moves
from envs.samurai import observation as obs
from envs.samurai.actions import END_TURN, FIGURE, HEX, NUM_ACTIONS
from envs.samurai.board import HEX_KIND, LAND, LAYOUTS, NUM_HEXES, NUM_SETTLEMENTS, PLAYER_COUNTS
from envs.samurai.components import (
    FIGURE_SWAP, FIGURE_TYPES, HAND_SIZE, INFLUENCE, MOVABLE, NUM_KINDS, QUICK, SHIPS, TILE_SWAP,
)  # fmt: skip
from envs.samurai.scoring import winners as winners_of
from envs.samurai.setup import figures_option, piles_option, random_figures, random_piles, redeal

FIGURE_SETUPS = ("random", "draft")
#: What each tile kind needs to be playable: an empty land hex, an empty sea hex,
#: a legal figure exchange, or an own movable tile on the board and an empty land hex.
ON_LAND, ON_SEA, SWAP_FIGURES, SWAP_TILE = range(4)
TARGET = tuple(ON_SEA if k in SHIPS else SWAP_FIGURES if k == FIGURE_SWAP else SWAP_TILE if k == TILE_SWAP
               else ON_LAND for k in range(NUM_KINDS))
CHOOSE_HAND, DRAFT, PLAY = "choose_hand", "draft", "play"
#: End condition (b): the game ends when this many figures have been set aside.
SET_ASIDE_TO_END = 4


class SamuraiGame(Game):
    """A configured Samurai table: player count, hand choice, figure set-up."""

    name = "samurai"
    num_actions = NUM_ACTIONS
    reward_modes = ("win",)
    max_players = 4
    observation_size = obs.OBSERVATION_SIZE

    def __init__(self, num_players: int = 2, choose_hand: bool = False, figure_setup: str = "random"):
        check_choice("num_players", num_players, PLAYER_COUNTS)
        check_bool("choose_hand", choose_hand)
        check_choice("figure_setup", figure_setup, FIGURE_SETUPS)
        self.num_players = num_players
        self.choose_hand = choose_hand
        self.figure_setup = figure_setup
        self.layout = LAYOUTS[num_players]

    def config(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "choose_hand": self.choose_hand, "figure_setup": self.figure_setup}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> SamuraiState:
        """Piles are shuffled first (player 0 first), then the figures placed (random set-up)."""
        options = check_options(options, {"piles", "figures"})
        if "figures" in options and self.figure_setup == "draft":
            raise ValueError("options['figures'] cannot be combined with figure_setup='draft' (the players place them)")
        piles = piles_option(options["piles"], self.num_players) if "piles" in options else None
        figures = figures_option(options["figures"], self.layout) if "figures" in options else None
        if piles is None:
            piles = random_piles(self.num_players, rng)
        if figures is None and self.figure_setup == "random":
            figures = random_figures(self.layout, rng)
        state = SamuraiState(self)
        for p, pile in enumerate(piles):
            state.piles[p] = pile
        if figures is not None:
            for s, types in enumerate(figures):
                state.put_figures(s, types)
        for p in range(self.num_players):
            if not self.choose_hand:
                state.refill(p)
            state.sync_player(p)
        state.phase = CHOOSE_HAND if self.choose_hand else DRAFT if figures is None else PLAY
        state.begin_phase()
        return state

    def state_from_dict(self, data: dict[str, Any]) -> SamuraiState:
        from envs.samurai.serialize import state_from_dict

        return state_from_dict(self, data)


class SamuraiState(GameState):
    """One position: the board, the figures, hands and piles, and the turn in progress."""

    def __init__(self, game: SamuraiGame):
        n, layout = game.num_players, game.layout
        self.game = game
        self.layout = layout
        self.phase = PLAY
        self.current_player: int | None = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.piles: list[list[int]] = [[] for _ in range(n)]  # next draw first
        self.tile = [-1] * NUM_HEXES  # kind on each hex, -1 empty
        self.owner = [-1] * NUM_HEXES
        self.figures: list[list[int]] = [[] for _ in range(NUM_SETTLEMENTS)]  # types, ascending
        self.need = [len(a) for a in layout.land_around]  # empty land hexes left around each settlement
        self.empty_land = list(layout.land)  # ascending
        self.empty_sea = list(layout.sea)
        self.movable = [0] * n  # own tiles on the board that a tile swap may pick up
        self.figures_on_board = [0, 0, 0]
        self.supply_left = [layout.supply] * 3
        self.captured = [[0, 0, 0] for _ in range(n)]
        self.set_aside = [0, 0, 0]
        # The turn in progress.
        self.turn_number = 0  # turns finished so far (forced passes included)
        self.played: list[int] = []
        self.non_quick_used = False
        self.pending = -1  # the tile kind chosen, while its target is being chosen
        self.first_figure: tuple[int, int] | None = None  # figure swap: (settlement, type) picked first
        self.swap_from = -1  # tile swap: hex of the own tile picked up
        self._winners: list[int] = []
        self.hex_block = obs.new_hex_block(n)  # the observation's board, kept up to date
        self.player_rows = obs.new_player_rows(n)  # the observation's seat blocks, kept up to date
        self._legal: list[int] | None = None
        self._mask: np.ndarray | None = None
        self.swap_table: list[list[bool]] | None = None  # cached by figure_moves

    # --- set-up --------------------------------------------------------------
    def put_figures(self, s: int, types: list[int]) -> None:
        """Stand figures on settlement ``s`` (set-up, draft, loading)."""
        for t in types:
            self.figures_on_board[t] += 1
            self.supply_left[t] -= 1
        self.figures[s] = sorted(self.figures[s] + list(types))
        obs.set_figures(self.hex_block, s, self.figures[s])
        self.swap_table = None

    def refill(self, p: int) -> None:
        """Draw from one's own pile back up to five tiles while the pile lasts."""
        hand, pile = self.hands[p], self.piles[p]
        while len(hand) < HAND_SIZE and pile:
            hand.append(pile.pop(0))
        obs.set_sizes(self.player_rows, p, len(hand), len(pile))

    def sync_player(self, p: int) -> None:
        """Recompute the observation's block of seat ``p`` (captures, hand and pile sizes, unplayed tiles)."""
        obs.set_player(self.player_rows, p, self.captured[p], self.hands[p], self.piles[p])

    def begin_phase(self) -> None:
        """Whose move it is at the start of a phase (or after loading one)."""
        n = self.game.num_players
        if self.phase == CHOOSE_HAND:
            self.current_player = next(p for p in range(n) if len(self.hands[p]) < HAND_SIZE)
        elif self.phase == DRAFT:
            self.current_player = (sum(self.figures_on_board) % n)
        elif not self.played and self.pending < 0:
            self.start_turn(self.turn_number % n)
        elif self.pending < 0 and not self.tile_choices():
            self.end_turn()

    # --- legal actions ---------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            self._mask[self.legal_actions()] = 1
        return self._mask.copy()

    def _compute_legal(self) -> list[int]:
        p = self.current_player
        if p is None:
            return []
        if self.phase == CHOOSE_HAND:
            return sorted(set(self.piles[p]))
        if self.phase == DRAFT:
            return figure_moves.draft_actions(self)
        if self.pending < 0:
            return self.tile_choices() + ([END_TURN] if self.played else [])
        if self.pending in SHIPS:
            return [HEX + h for h in self.empty_sea]
        if self.pending == FIGURE_SWAP:
            return figure_moves.swap_actions(self)
        if self.pending == TILE_SWAP and self.swap_from < 0:
            return [HEX + h for h in range(NUM_HEXES) if self.owner[h] == p and MOVABLE[self.tile[h]]]
        return [HEX + h for h in self.empty_land]

    def tile_choices(self) -> list[int]:
        """The tile kinds in the current player's hand that can be played now."""
        p = self.current_player
        land, sea = bool(self.empty_land), bool(self.empty_sea)
        choices = []
        for k in sorted(set(self.hands[p])):
            if self.non_quick_used and not QUICK[k]:
                continue
            target = TARGET[k]
            if (land if target == ON_LAND else sea if target == ON_SEA else self.figure_swap_possible()
                    if target == SWAP_FIGURES else land and self.movable[p] > 0):
                choices.append(k)
        return choices

    def figure_swap_possible(self) -> bool:
        return figure_moves.swap_possible(self)

    # --- playing -----------------------------------------------------------------
    def apply(self, action: int) -> None:
        if self.current_player is None or action not in self.legal_actions():
            self.check_action(action)
            raise IllegalActionError(f"action {action!r} is not legal now")
        action = int(action)  # numpy integers from a mask: keep the state JSON-safe
        self._legal = self._mask = None
        p = self.current_player
        if self.phase == CHOOSE_HAND:
            self.piles[p].remove(action)  # the rest of the pile keeps its shuffled order
            self.hands[p].append(action)
            obs.set_sizes(self.player_rows, p, len(self.hands[p]), len(self.piles[p]))
            if len(self.hands[p]) == HAND_SIZE:
                if p + 1 < self.game.num_players:
                    self.current_player = p + 1
                else:
                    self.phase = DRAFT if self.game.figure_setup == "draft" else PLAY
                    self.begin_phase()
        elif self.phase == DRAFT:
            s, t = divmod(action - FIGURE, 3)
            self.put_figures(s, [t])
            if sum(self.supply_left) == 0:
                self.phase = PLAY
            self.begin_phase()
        elif self.pending < 0:
            if action == END_TURN:
                self.end_turn()
            else:
                self.pending = action
        elif self.pending == FIGURE_SWAP:
            s, t = divmod(action - FIGURE, 3)
            if self.first_figure is None:
                self.first_figure = (s, t)
                return
            s1, t1 = self.first_figure
            self.put_figures(s1, [t])
            self.put_figures(s, [t1])
            self.remove_figure(s1, t1)
            self.remove_figure(s, t)
            self.tile_played()
        elif self.pending == TILE_SWAP:
            h = action - HEX
            if self.swap_from < 0:
                self.swap_from = h
                return
            moved = self.tile[self.swap_from]
            self.tile[self.swap_from] = TILE_SWAP  # the swap tile takes its hex...
            obs.set_tile(self.hex_block, self.swap_from, TILE_SWAP, p)
            self.place(moved, p, h)  # ...and the picked tile goes to any empty land hex
            self.tile_played()
        else:
            self.place(self.pending, p, action - HEX)
            self.movable[p] += MOVABLE[self.pending]
            self.tile_played()

    def remove_figure(self, s: int, t: int) -> None:
        self.figures[s].remove(t)
        self.figures_on_board[t] -= 1
        self.supply_left[t] += 1
        obs.set_figures(self.hex_block, s, self.figures[s])

    def place(self, kind: int, owner: int, h: int) -> None:
        """Put a tile on an empty hex and resolve every settlement it surrounds."""
        self.tile[h], self.owner[h] = kind, owner
        obs.set_tile(self.hex_block, h, kind, owner)
        if HEX_KIND[h] != LAND:
            self.empty_sea.remove(h)
            return
        self.empty_land.remove(h)
        for s in self.layout.settlements_near[h]:
            self.need[s] -= 1
            if self.need[s] == 0 and self.figures[s]:
                self.resolve(s)

    def influence(self, s: int, t: int) -> list[int]:
        """Each player's influence on a figure of type ``t`` in settlement ``s``:
        the tiles on the adjacent hexes, land and sea."""
        total = [0] * self.game.num_players
        for h in self.layout.around[s]:
            if self.tile[h] >= 0:
                total[self.owner[h]] += INFLUENCE[self.tile[h]][t]
        return total

    def resolve(self, s: int) -> None:
        """A surrounded settlement: each figure, separately, goes to the player with
        strictly the highest influence for its type; a tie (0 included) sets it aside."""
        for t in self.figures[s]:
            influence = self.influence(s, t)
            best = max(influence)
            if influence.count(best) == 1:
                winner = influence.index(best)
                self.captured[winner][t] += 1
                obs.set_captured(self.player_rows, winner, t, self.captured[winner][t])
            else:
                self.set_aside[t] += 1
            self.figures_on_board[t] -= 1
        self.figures[s] = []
        obs.set_figures(self.hex_block, s, [])
        self.swap_table = None

    def tile_played(self) -> None:
        """The chosen tile's action is complete: it leaves the hand; then the game or the turn may end."""
        kind, p = self.pending, self.current_player
        self.hands[p].remove(kind)
        obs.tile_left_hand(self.player_rows, p, kind, len(self.hands[p]))
        self.played.append(kind)
        self.non_quick_used |= not QUICK[kind]
        self.pending, self.first_figure, self.swap_from = -1, None, -1
        if self.end_reached():
            self.game_over()
            return
        choices = self.tile_choices()
        if choices:
            self._legal = choices + [END_TURN]
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
        self._legal = self._mask = None
        for _ in range(self.game.num_players):
            self.current_player = p
            choices = self.tile_choices()
            if choices:
                self._legal = choices
                return
            self.turn_number += 1
            p = (p + 1) % self.game.num_players
        self.game_over()

    def game_over(self) -> None:
        self.current_player = None
        self._legal = self._mask = None
        self._winners = winners_of(self.captured)

    # --- results -----------------------------------------------------------------
    def scores(self) -> list[float]:
        """Figures captured in total (information only: the winner procedure decides)."""
        return [float(sum(c)) for c in self.captured]

    def winners(self) -> list[int]:
        return list(self._winners) if self.current_player is None else []

    def final_info(self, player: int) -> dict[str, Any]:
        return {
            "captured": [dict(zip(FIGURE_TYPES, c)) for c in self.captured],
            "set_aside": dict(zip(FIGURE_TYPES, self.set_aside)),
            "winners": self.winners(),
        }

    # --- views ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return obs.encode(self, player)

    def clone(self) -> SamuraiState:
        other = object.__new__(SamuraiState)
        other.__dict__.update(self.__dict__)
        other.hands = [h[:] for h in self.hands]
        other.piles = [p[:] for p in self.piles]
        other.tile, other.owner = self.tile[:], self.owner[:]
        other.figures = [f[:] for f in self.figures]
        other.need = self.need[:]
        other.empty_land, other.empty_sea = self.empty_land[:], self.empty_sea[:]
        other.movable = self.movable[:]
        other.figures_on_board, other.supply_left = self.figures_on_board[:], self.supply_left[:]
        other.captured = [c[:] for c in self.captured]
        other.set_aside = self.set_aside[:]
        other.played = self.played[:]
        other.hex_block = self.hex_block.copy()
        other.player_rows = self.player_rows.copy()
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> SamuraiState:
        """A copy with what ``player`` cannot see re-dealt (see ``setup.redeal``)."""
        return redeal(self, player, rng)

    def to_dict(self) -> dict[str, Any]:
        from envs.samurai.serialize import state_to_dict

        return state_to_dict(self)

    def describe_action(self, action: int) -> str:
        from envs.samurai.render import describe_action

        return describe_action(self, action)

    def render_text(self, perspective: int | None = None) -> str:
        from envs.samurai.render import render_text

        check_perspective(self.game.num_players, perspective)
        return render_text(self, perspective)

    def render_image(self) -> np.ndarray:
        from envs.samurai.render import render_image

        return render_image(self)
