"""Many games stepped in lockstep in one process: the learner's seat in each, opponents in the others.

Why: one game at a time pays Python and torch overheads per move. The games live in one batch
engine (:mod:`envs.core.batch`: the game's fast numpy engine where it has one, else the per-game
reference ``StateBatch``). The learner moves in every game at once (its actions come batched from
the learner's one forward pass), then the opponents are played until it is the learner's turn
again everywhere, in rounds: in each round every member answers all the games where it is to move
at once (:mod:`training.members`: a network by one forward pass, the heuristic by its batched
policy, random play from the masks), and the engine plays that round's moves in one step. A
finished game is scored, and its slot is dealt a new game at once (and played up to the learner's
turn), so every slot always holds a game waiting for the learner.

Who deals: a **dealer** gives each new game its deal's seed (the game ``env().reset(seed)``
deals), the learner's seat and the opponent (one member for every opponent seat, so that the
outcome says how the learner fares against that member). Training deals at random with the
league's probabilities (:class:`RandomDealer`); evaluation deals a fixed list (seats swapped,
fixed seeds).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from envs.core.batch import NO_PLAYER
from envs.core.engine import Game
from envs.core.vector import waiting_engine
from training.members import Turn

#: What ends a game for the learner: its final reward, win points, learner moves, opponent member id.
Outcome = dict[str, Any]
#: Deal seeds are drawn below this (they fit the batch engines' int64 seeds).
SEED_BOUND = 2**63 - 1


class Dealer(Protocol):
    def deal(self, slot: int) -> tuple[int, int, int] | None:
        """(the deal's seed, learner seat, member id), or None: leave the slot idle."""


class RandomDealer:
    """Training deals: the seat uniform, the member drawn with the probabilities the league set, the deal's
    seed uniform.

    Each slot has its own generator (from ``seed`` and the slot's number), so a slot's games do
    not depend on how the slots are split over worker processes."""

    def __init__(self, num_players: int, seed: int):
        self.num_players, self.seed = num_players, seed
        self.rngs: dict[int, np.random.Generator] = {}
        self.ids: list[int] = []
        self.probabilities = np.ones(0)

    def set_probabilities(self, ids: list[int], probabilities) -> None:
        self.ids, self.probabilities = list(ids), np.asarray(probabilities, dtype=np.float64)
        self._cumulative = np.cumsum(self.probabilities).tolist()

    def deal(self, slot: int) -> tuple[int, int, int]:
        rng = self.rngs.get(slot)
        if rng is None:
            rng = self.rngs[slot] = np.random.default_rng([self.seed, slot])
        if not self.ids:
            raise ValueError("no opponents to deal: the league has no members yet (a 'self' league needs a snapshot)")
        seat = int(rng.integers(self.num_players))
        index = bisect.bisect_right(self._cumulative, rng.random() * self._cumulative[-1])
        return int(rng.integers(SEED_BOUND)), seat, self.ids[min(index, len(self.ids) - 1)]


class LockstepGames:
    """``num_slots`` games of ``game``; :meth:`step` plays one learner move in each.

    Args:
        game: the configured game.
        num_slots: games held at once (the batch).
        members: the opponents (:mod:`training.members`) by id; the caller may add and
            remove members between steps (never one that a slot's game still uses).
        dealer: gives each new game its seed, learner seat and member.
        reward: the reward mode of the learner's final reward.
        first_slot: the number of this batch's first slot among all the run's slots (dealers and
            members key their generators by it, so a split over processes changes no game).
    """

    def __init__(
        self, game: Game, num_slots: int, members: dict, dealer: Dealer, reward: str = "win", first_slot: int = 0
    ):
        self.game, self.num_slots, self.members, self.dealer, self.reward = game, num_slots, members, dealer, reward
        self.first_slot = first_slot
        #: The games, a slot each (an idle slot's game is ignored).
        self.batch = waiting_engine(game)(game, num_slots, 0)
        self.idle = np.ones(num_slots, bool)
        self.seats = np.zeros(num_slots, np.int64)
        self.member = np.zeros(num_slots, np.int64)
        self.moves = np.zeros(num_slots, np.int64)
        self.obs = np.zeros((num_slots, game.observation_size), np.float32)
        self.masks = np.zeros((num_slots, game.num_actions), bool)

    # --- the two calls -------------------------------------------------------------
    def reset(self) -> None:
        """Deal a game in every slot and play each up to the learner's first move."""
        self.idle[:] = True
        self._deal(np.arange(self.num_slots))
        self._advance()
        self._write_views()

    def step(self, actions) -> list[Outcome | None]:
        """Play the learner's ``actions`` (one per active slot), then the opponents up to the
        learner's next move. Returns, per slot, the outcome of a game that ended (the slot then
        holds a new game, or None when the dealer left it idle), else None."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_slots,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_slots} ints, got {actions.dtype} of shape {actions.shape}")
        active = ~self.idle
        in_range = (actions >= 0) & (actions < self.game.num_actions)
        legal = in_range & self.masks[np.arange(self.num_slots), np.where(in_range, actions, 0)]
        bad = np.flatnonzero(active & ~legal)
        if bad.size:
            slot = int(bad[0])
            raise ValueError(
                f"slot {slot}: the learner chose action {actions[slot]}, not legal here "
                f"(legal: {np.flatnonzero(self.masks[slot]).tolist()}); the learner must use the action masks"
            )
        self.batch.step_where(actions.astype(np.int64), active)
        self.moves[active] += 1
        outcomes: list[Outcome | None] = [None] * self.num_slots
        self._advance(outcomes)
        self._write_views()
        return outcomes

    def members_in_use(self) -> set:
        """The member ids some slot's game is being played against."""
        return {int(m) for m in self.member[~self.idle]}

    def active(self) -> list[int]:
        """The slots holding a game (all, in training; fewer as an evaluation runs out of deals)."""
        return np.flatnonzero(~self.idle).tolist()

    # --- inside ----------------------------------------------------------------------
    def _deal(self, slots: np.ndarray) -> None:
        """New games in ``slots``, as the dealer says (a slot it leaves idle stays so)."""
        dealt, seeds = [], []
        for slot in slots.tolist():
            deal = self.dealer.deal(self.first_slot + slot)
            self.idle[slot] = deal is None
            if deal is None:
                continue
            seed, seat, member = deal
            dealt.append(slot)
            seeds.append(seed)
            self.seats[slot], self.member[slot], self.moves[slot] = seat, member, 0
            self.members[member].new_game(self.first_slot + slot)
        self.batch.deal(np.array(dealt, np.int64), np.array(seeds, np.int64))

    def _advance(self, outcomes: list | None = None) -> None:
        """Play opponents (and deal new games where one ended) until every slot waits for the learner."""
        while True:
            players = self.batch.current_player
            active = ~self.idle
            ended = np.flatnonzero(active & (players == NO_PLAYER))
            if ended.size:  # score them and deal again (a new game never starts over)
                if outcomes is not None:
                    self._score(ended, outcomes)
                self._deal(ended)
                continue
            waiting = active & (players != self.seats)
            if not waiting.any():
                return
            self._opponents_move(waiting)

    def _opponents_move(self, waiting: np.ndarray) -> None:
        """One round: each member answers all the games ``waiting`` for it at once; one engine step."""
        turn, rows = Turn(self.batch), np.flatnonzero(waiting)
        actions = np.zeros(self.num_slots, np.int64)
        ids = self.member[rows]
        for member in np.unique(ids).tolist():
            group = rows[ids == member]
            actions[group] = self.members[member].act(turn, group, (group + self.first_slot).tolist())
        self.batch.step_where(actions, waiting)

    def _score(self, ended: np.ndarray, outcomes: list) -> None:
        """The outcomes of the games ``ended`` in which the learner moved."""
        ended = ended[self.moves[ended] > 0]
        if not ended.size:
            return
        rewards, winners = self.batch.rewards(self.reward), self.batch.winners()
        seen = self.batch.observe_rows(ended, self.seats)
        for k, slot in enumerate(ended.tolist()):
            seat, won = int(self.seats[slot]), winners[slot]
            outcomes[slot] = {
                "reward": float(rewards[slot, seat]),
                "moves": int(self.moves[slot]),
                "win_points": 1.0 / int(won.sum()) if won[seat] else 0.0,
                "member": int(self.member[slot]),
                "seat": seat,
                "terminal_observation": seen[k],
            }

    def _write_views(self) -> None:
        """The learner's observation and legal mask in every slot (none in an idle one)."""
        self.obs[:] = self.batch.observe(self.seats)
        self.masks[:] = self.batch.legal_mask()
        self.masks[self.idle] = False


def play_out(games: LockstepGames, choose: Callable[[np.ndarray, np.ndarray, list[int]], np.ndarray]) -> list[Outcome]:
    """Run ``games`` until the dealer leaves every slot idle, the learner moving with
    ``choose(obs, masks, active_slots) -> actions``; returns the outcomes in the order they ended."""
    games.reset()
    finished: list[Outcome] = []
    while True:
        active = games.active()
        if not active:
            return finished
        actions = np.zeros(games.num_slots, np.int64)
        actions[active] = choose(games.obs[active], games.masks[active], active)
        finished.extend(o for o in games.step(actions) if o is not None)
