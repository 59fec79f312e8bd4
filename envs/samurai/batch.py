"""Many Samurai games at once: the rules of ``rules.py`` over numpy arrays, one row a game
(the batch protocol of ``envs/core/batch.py``), played, checked and observed by compiled kernels that
loop over the games (``batch_rules``, ``batch_legal``, ``batch_observe``, ``batch_scoring``).

Why: search rollouts, training and studies play millions of Samurai turns, and each game of a batch is
in its own sub-step of a turn: a kernel runs each game's own branch, where whole-array numpy paid for
every branch in every game and a fixed cost per call. The arrays hold exactly what a
:class:`~envs.samurai.rules.SamuraiState` holds, including the order of hands, piles and the tiles
played this turn, so that :meth:`SamuraiBatch.state` gives back the very state
(``tests/test_samurai_batch.py`` plays seeded games both ways and compares every mask,
observation, score and state). Every game has its own player to act, phase and sub-step.

Fields (N games, P players, S = 34 settlement indices plus the spare :data:`DUMMY` column):
    phase ``(N,)`` 0 choose_hand, 1 draft, 2 play; player ``(N,)`` the player to act, -1 once over;
    hand ``(N, P, 5)`` and pile ``(N, P, 20)`` kinds in order, padded with -1, with hand_len, pile_len;
    unplayed ``(N, P, 17)`` hand + pile per kind; tile, owner ``(N, 174)`` per hex (-1: none);
    figures ``(N, S+1, 3)`` bool; on_board, set_aside ``(N, 3)``, captured ``(N, P, 3)``;
    influence ``(N, S+1, P, 3)`` each player's influence per settlement and type; need ``(N, S+1)``
    empty land hexes around each settlement; empty_land, empty_sea ``(N,)``; movable ``(N, P)``;
    the turn: turn ``(N,)``, played ``(N, 6)`` with played_len, non_quick ``(N,)``, pending ``(N,)``
    (the tile chosen, -1), first_s / first_t ``(N,)`` (the figure swap's first figure, -1),
    swap_from ``(N,)`` (the tile swap's picked hex, -1); swap_ok ``(N,)`` whether a figure exchange is legal.
The spare :data:`DUMMY` column of the settlement axes is padding, never written.
"""

from __future__ import annotations

import numpy as np

from envs.core.batch import BatchGames, new_game
from envs.core.batch_args import check_batch_args, check_draws, check_where
from envs.core.engine import IllegalActionError
from envs.samurai.batch_arrays import board_of, games_of
from envs.samurai.batch_deal import dealt
from envs.samurai.batch_legal import BatchLegal, first_illegal
from envs.samurai.batch_observe import observe, observe_rows
from envs.samurai.batch_rules import play, play_kth_legal, play_random_opponents
from envs.samurai.batch_scoring import fill_winners
from envs.samurai.batch_state import BatchStateIO
from envs.samurai.batch_tables import DUMMY, IS_LAND, TABLES
from envs.samurai.components import DRAFT_SETUP, HAND_SIZE, NUM_KINDS, PHASES
from envs.samurai.game import SamuraiGame
from envs.samurai.rules import SamuraiState

#: The most tiles one turn can play: one non-quick tile and the five quick ones.
MAX_PLAYED = 6
PILE_SLOTS = 20


class SamuraiBatch(BatchLegal, BatchStateIO, BatchGames):
    """N Samurai games of one configuration as arrays (see the module docstring)."""

    def __init__(self, game: SamuraiGame, num_games: int, seed: int):
        check_batch_args(num_games, seed)
        if not isinstance(game, SamuraiGame):
            raise ValueError(f"game must be a SamuraiGame, got {type(game).__name__}")
        super().__init__(game, num_games, seed)
        self._allocate(num_games)
        self._deal(np.arange(num_games))

    @classmethod
    def from_states(cls, states: list[SamuraiState]) -> SamuraiBatch:
        return cls._loaded(states, SamuraiState)

    def _allocate(self, n: int) -> None:
        p = self.game.num_players
        self.tables = TABLES[p]
        self.board = board_of(p, self.game.figure_setup == DRAFT_SETUP)
        self.phase = np.zeros(n, dtype=np.int64)
        self.player = np.zeros(n, dtype=np.int64)
        self.hand = np.full((n, p, HAND_SIZE), -1, dtype=np.int64)
        self.hand_len = np.zeros((n, p), dtype=np.int64)
        self.pile = np.full((n, p, PILE_SLOTS), -1, dtype=np.int64)
        self.pile_len = np.zeros((n, p), dtype=np.int64)
        self.unplayed = np.zeros((n, p, NUM_KINDS), dtype=np.int64)
        self.tile = np.full((n, len(IS_LAND)), -1, dtype=np.int8)  # int8: the board is most of a step's memory
        self.owner = np.full((n, len(IS_LAND)), -1, dtype=np.int8)
        self.figures = np.zeros((n, DUMMY + 1, 3), dtype=bool)
        self.on_board = np.zeros((n, 3), dtype=np.int64)
        self.set_aside = np.zeros((n, 3), dtype=np.int64)
        self.captured = np.zeros((n, p, 3), dtype=np.int64)
        self.influence = np.zeros((n, DUMMY + 1, p, 3), dtype=np.int64)
        self.need = np.zeros((n, DUMMY + 1), dtype=np.int64)
        self.empty_land = np.zeros(n, dtype=np.int64)
        self.empty_sea = np.zeros(n, dtype=np.int64)
        self.movable = np.zeros((n, p), dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.played = np.full((n, MAX_PLAYED), -1, dtype=np.int64)
        self.played_len = np.zeros(n, dtype=np.int64)
        self.non_quick = np.zeros(n, dtype=bool)
        self.pending = np.full(n, -1, dtype=np.int64)
        self.first_s = np.full(n, -1, dtype=np.int64)
        self.first_t = np.full(n, -1, dtype=np.int64)
        self.swap_from = np.full(n, -1, dtype=np.int64)
        self.swap_ok = np.zeros(n, dtype=bool)
        self._mask: np.ndarray | None = None
        self._mask_where: tuple[np.ndarray, np.ndarray] | None = None
        self._opening_phase: int | None = None  # the first phase of a deal: known from the first one dealt

    def take(self, rows: np.ndarray) -> SamuraiBatch:
        """A new batch of the games at ``rows`` (copies; rows may repeat), without seeds."""
        other = object.__new__(type(self))
        for name, value in vars(self).items():
            setattr(other, name, value[rows] if isinstance(value, np.ndarray) else value)
        other.num_games = len(rows)
        other.seeds = np.full(len(rows), -1, dtype=np.int64)
        other._ahead = None
        other._changed()
        return other

    def _deal(self, where: np.ndarray) -> None:
        if self._opening_phase is None:
            self._opening_phase = PHASES.index(new_game(self.game, 0).phase)
        super()._deal(where)

    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return dealt(self.game, seeds)

    # --- what the protocol reads -------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self.player

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        return observe(self, players)

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """``observe(players)[rows]`` computed for those games alone: the vector env observes the few games that
        just ended."""
        players = np.maximum(self.player, 0) if players is None else np.asarray(players)
        return observe_rows(self, np.asarray(rows), players)

    def scores(self) -> np.ndarray:
        return self.captured.sum(axis=2).astype(np.float64)

    def winners(self) -> np.ndarray:
        """The winner procedure of ``scoring.winners`` over every finished game (``batch_scoring``)."""
        won = np.zeros(self.captured.shape[:2], dtype=bool)
        fill_winners(self.captured, self.player, won)
        return won

    # --- playing -----------------------------------------------------------------
    def check_actions(self, actions: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """As the protocol's, the illegal game found by a kernel over the (kept) mask."""
        actions = self._action_vector(actions).astype(np.int64, copy=False)
        going = self.player >= 0
        if where is not None:
            going = going & check_where(where, self.num_games)
        mask = self.legal_mask() if where is None else self.legal_mask_where(going)
        bad = int(first_illegal(mask, actions, going))
        if bad >= 0:
            raise IllegalActionError(
                f"action {int(actions[bad])} is not legal in game {bad}; legal: {np.flatnonzero(mask[bad]).tolist()}"
            )
        return actions

    def step(self, actions: np.ndarray) -> None:
        self._play(self.check_actions(actions), self.player >= 0)

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play only the games ``where`` (the vector env's and training's learner waits while opponents move)."""
        where = check_where(where, self.num_games)
        self._play(self.check_actions(actions, where), where)

    def play_kth_legal(self, where: np.ndarray, draws: np.ndarray) -> None:
        """The protocol's, in one kernel (``batch_rules.play_kth_legal``): a random opponents' pass without a mask
        kept or a second check, as each action is legal by construction."""
        where, draws = check_where(where, self.num_games), check_draws(draws, self.num_games)
        self._changed()
        stuck = play_kth_legal(games_of(self), self.board, where, draws)
        if stuck >= 0:
            raise IllegalActionError(f"game {stuck} has no legal action")

    def play_random_opponents(self, seats: np.ndarray, rng: np.random.Generator) -> None:
        """The protocol's, every pass in one kernel (``batch_rules.play_random_opponents``)."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (self.num_games,):
            raise ValueError(f"seats must be {self.num_games} ints, got shape {seats.shape}")
        self._changed()
        stuck = play_random_opponents(games_of(self), self.board, seats, rng)
        if stuck >= 0:
            raise IllegalActionError(f"game {stuck} has no legal action")

    def _play(self, actions: np.ndarray, going: np.ndarray) -> None:
        """Play the checked ``actions`` in the games ``going`` (those over are skipped): the rules' kernels."""
        self._changed()
        play(games_of(self), self.board, actions, going)


BATCH_CLASS = SamuraiBatch
