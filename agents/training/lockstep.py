"""Many games stepped in lockstep in one process: the learner's seat in each, opponents in the others.

Why: one game at a time pays Python and torch overheads per move. Here the
learner moves in every game at once (its actions come batched from the
learner's one forward pass), then the opponents are played until it is the
learner's turn again everywhere, in rounds: in each round the games waiting
for a network opponent are answered by one forward pass per network, the
others by their in-process agents. A finished game is scored, and its slot
is dealt a new game at once (and played up to the learner's turn), so every
slot always holds a game waiting for the learner.

Each slot keeps one observer (``game.observer()``), told of every move, so
observations stay incremental; states are never copied.

Who deals: a **dealer** gives each new game its state generator, the learner's
seat and the opponent (one member for every opponent seat, so that the
outcome says how the learner fares against that member). Training deals at
random with the league's probabilities (:class:`RandomDealer`); evaluation
deals a fixed list (seats swapped, fixed seeds).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from envs.core.engine import Game

#: What ends a game for the learner: its final reward, win points, learner moves, opponent member id.
Outcome = dict[str, Any]


class Dealer(Protocol):
    def deal(self, slot: int) -> tuple[np.random.Generator, int, int] | None:
        """(generator for ``game.new_state``, learner seat, member id), or None: leave the slot idle."""


class RandomDealer:
    """Training deals: the seat uniform, the member drawn with the probabilities the league set.

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

    def deal(self, slot: int) -> tuple[np.random.Generator, int, int]:
        rng = self.rngs.get(slot)
        if rng is None:
            rng = self.rngs[slot] = np.random.default_rng([self.seed, slot])
        if not self.ids:
            raise ValueError("no opponents to deal: the league has no members yet (a 'self' league needs a snapshot)")
        seat = int(rng.integers(self.num_players))
        index = bisect.bisect_right(self._cumulative, rng.random() * self._cumulative[-1])
        return rng, seat, self.ids[min(index, len(self.ids) - 1)]


class LockstepGames:
    """``num_slots`` games of ``game``; :meth:`step` plays one learner move in each.

    Args:
        game: the configured game.
        num_slots: games held at once (the batch).
        members: the opponents (:mod:`agents.training.members`) by id; the caller may add and
            remove members between steps (never one that a slot's game still uses).
        dealer: gives each new game its generator, learner seat and member.
        reward: the reward mode of the learner's final reward.
        first_slot: the number of this batch's first slot among all the run's slots (dealers and
            members key their generators by it, so a split over processes changes no game).
    """

    def __init__(
        self, game: Game, num_slots: int, members: dict, dealer: Dealer, reward: str = "win", first_slot: int = 0
    ):
        self.game, self.num_slots, self.members, self.dealer, self.reward = game, num_slots, members, dealer, reward
        self.first_slot = first_slot
        self.states: list[Any] = [None] * num_slots
        self.observers = [game.observer() for _ in range(num_slots)]
        self.seats = [0] * num_slots
        self.member = [0] * num_slots
        self.moves = [0] * num_slots
        self.obs = np.zeros((num_slots, game.observation_size), np.float32)
        self.masks = np.zeros((num_slots, game.num_actions), bool)

    # --- the two calls -------------------------------------------------------------
    def reset(self) -> None:
        """Deal a game in every slot and play each up to the learner's first move."""
        for slot in range(self.num_slots):
            self._deal(slot)
        self._advance([slot for slot in range(self.num_slots) if self.states[slot] is not None])
        self._write_views(range(self.num_slots))

    def step(self, actions) -> list[Outcome | None]:
        """Play the learner's ``actions`` (one per active slot), then the opponents up to the
        learner's next move. Returns, per slot, the outcome of a game that ended (the slot then
        holds a new game, or None when the dealer left it idle), else None."""
        outcomes: list[Outcome | None] = [None] * self.num_slots
        active = [slot for slot in range(self.num_slots) if self.states[slot] is not None]
        for slot in active:
            state, action = self.states[slot], int(actions[slot])
            if action not in state.legal_tuple():
                raise ValueError(
                    f"slot {slot}: the learner chose action {action}, not legal here "
                    f"(legal: {list(state.legal_tuple())}); the learner must use the action masks"
                )
            state.apply(action)
            self.observers[slot].applied(state, action)
            self.moves[slot] += 1
        self._advance(active, outcomes)
        self._write_views(active)
        return outcomes

    def members_in_use(self) -> set:
        """The member ids some slot's game is being played against."""
        return {self.member[slot] for slot in self.active()}

    def active(self) -> list[int]:
        """The slots holding a game (all, in training; fewer as an evaluation runs out of deals)."""
        return [slot for slot in range(self.num_slots) if self.states[slot] is not None]

    # --- inside ----------------------------------------------------------------------
    def _deal(self, slot: int) -> None:
        dealt = self.dealer.deal(self.first_slot + slot)
        if dealt is None:
            self.states[slot] = None
            return
        rng, seat, member = dealt
        self.states[slot] = self.game.new_state(rng)
        self.observers[slot].follow(self.states[slot])
        self.seats[slot], self.member[slot], self.moves[slot] = seat, member, 0
        self.members[member].new_game(self.first_slot + slot)

    def _advance(self, slots: list[int], outcomes: list | None = None) -> None:
        """Play opponents (and deal new games where one ended) until every slot waits for the learner."""
        todo = slots
        while todo:
            batched: dict[Any, list[int]] = {}
            moved = []
            for slot in todo:
                state = self.states[slot]
                while state is not None and state.current_player is None:  # over: score it, deal again
                    if self.moves[slot] and outcomes is not None:
                        outcomes[slot] = self._outcome(slot)
                    self._deal(slot)
                    state = self.states[slot]
                if state is None or state.current_player == self.seats[slot]:
                    continue
                member = self.members[self.member[slot]]
                if member.batched:
                    batched.setdefault(self.member[slot], []).append(slot)
                else:
                    self._apply(slot, member.act(self.first_slot + slot, state))
                    moved.append(slot)
            for index, group in batched.items():
                actions = self.members[index].act_batch(
                    [self.states[s] for s in group],
                    [self.observers[s] for s in group],
                    [self.first_slot + s for s in group],
                )
                for slot, action in zip(group, actions):
                    self._apply(slot, action)
                moved.extend(group)
            todo = moved

    def _apply(self, slot: int, action: int) -> None:
        self.states[slot].apply(action)
        self.observers[slot].applied(self.states[slot], action)

    def _outcome(self, slot: int) -> Outcome:
        state, seat = self.states[slot], self.seats[slot]
        winners = state.winners()
        return {
            "reward": float(state.rewards(self.reward)[seat]),
            "moves": self.moves[slot],
            "win_points": 1.0 / len(winners) if seat in winners else 0.0,
            "member": self.member[slot],
            "seat": seat,
            "terminal_observation": self.observers[slot].observe(state, seat),
        }

    def _write_views(self, slots) -> None:
        """The learner's observation and legal mask in every given slot that holds a game."""
        for slot in slots:
            state = self.states[slot]
            if state is None:
                continue
            self.obs[slot] = self.observers[slot].observe(state, self.seats[slot])
            mask = self.masks[slot]
            mask[:] = False
            mask[list(state.legal_tuple())] = True  # a list: a tuple would index several dimensions


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
