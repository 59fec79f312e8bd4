"""Opponents for training: who sits in the seats the learner does not, and how they move in a batch.

A **member** is named by a spec, plain data that crosses process boundaries:

- ``("agent", name)``: an agent of :func:`agents.make_agent` (``random``,
  ``heuristic``, ``ismcts``). Uniform random play looks at nothing but the
  legal masks; the others are the opponent home's (:mod:`agents.opponents`):
  the heuristic plays its ``batch_policy`` over the whole batch
  where the game has a fast batch engine (one numpy pass, reading only public
  facts, the same moves as the per-game strategy); otherwise, and for
  ``ismcts``, each game slot has its own opponent (``reset()`` before
  each game, as the agent protocol requires) moving through its
  :class:`~agents.protocol.PlayerView`, so it sees only what its player may see;
- ``("network", path, deterministic)``: a model file (a self-play snapshot,
  or ``ppo:PATH`` given as an opponent), loaded with the safe loader of
  :mod:`agents.models.network`. All the games in which a network member is to move
  are answered by **one batched forward pass**.

Every member answers a round at once: ``act(turn, rows, slots)`` gives a move for each of the batch's
games ``rows`` (a :class:`Turn` of the lockstep games' batch engine; ``slots`` their run-wide slot
numbers, which key the members' generators so that a split over processes changes no game).
"""

from __future__ import annotations

import numpy as np

from agents.opponents import AgentOpponent, heuristic_batch_policy, make_opponent
from envs.core.batch import BatchGames, StateBatch
from envs.core.engine import Game, GameState

#: The opponent kinds ``train.py --opponents`` accepts besides ``ppo:PATH``; "self" stands for the snapshots.
OPPONENT_KINDS = ("random", "heuristic", "ismcts", "self")
BASELINE_AGENTS = ("random", "heuristic", "ismcts")

MemberSpec = tuple


def baseline_spec(name: str) -> MemberSpec:
    """The spec of an opponent named on the command line: an agent name or ``ppo:PATH``."""
    if name in BASELINE_AGENTS:
        return ("agent", name)
    if isinstance(name, str) and name.startswith("ppo:") and len(name) > 4:
        return ("network", name[4:], True)
    raise ValueError(f"opponent must be one of {list(BASELINE_AGENTS)} or 'ppo:PATH', got {name!r}")


def snapshot_spec(path: str) -> MemberSpec:
    """A self-play snapshot: sampled from its policy, so that it is a varied opponent."""
    return ("network", path, False)


def spec_label(spec: MemberSpec) -> str:
    """A short name for logs and tables: ``heuristic``, ``ppo:PATH``, ``snapshot_40960``."""
    if spec[0] == "agent":
        return spec[1]
    from pathlib import Path

    return Path(spec[1]).stem if not spec[2] else f"ppo:{spec[1]}"


def slot_rng(seed: int, slot: int) -> np.random.Generator:
    """A member's generator for one slot: games do not depend on how slots are split over processes."""
    return np.random.default_rng([seed, slot, 1])


class Turn:
    """The batch at one round of opponents' moves: what the players to act in some games see and may do.
    A fast engine's arrays are computed once, for all the members that ask (several networks read the same
    observations); a :class:`StateBatch` (whose cost is per game) is asked for the games wanted only."""

    def __init__(self, batch: BatchGames):
        self.batch = batch
        self.per_game = isinstance(batch, StateBatch)
        self._observations: np.ndarray | None = None
        self._masks: np.ndarray | None = None

    def observations(self, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), observation_size)``: each of the games ``rows`` as its player to act sees it."""
        return self.batch.observe_rows(rows) if self.per_game else self._all_observations()[rows]

    def masks(self, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), num_actions)`` bool: the legal actions in each of the games ``rows``."""
        if self.per_game:
            return np.array([self.batch.states[r].legal_mask() for r in rows.tolist()], dtype=bool)
        if self._masks is None:
            self._masks = self.batch.legal_mask()
        return self._masks[rows]

    def _all_observations(self) -> np.ndarray:
        if self._observations is None:
            self._observations = self.batch.observe()
        return self._observations

    def state(self, row: int) -> GameState:
        """Game ``row`` as a per-game state, for an agent's view: a :class:`StateBatch`'s own (no copy; read
        it, never apply to it), else a fresh one from the fast engine."""
        if self.per_game:
            return self.batch.states[row]
        return self.batch.state(row)


class SlotGenerators:
    """One generator per slot (:func:`slot_rng`), made on the slot's first game."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rngs: dict[int, np.random.Generator] = {}

    def new_game(self, slot: int) -> None:
        if slot not in self.rngs:
            self.rngs[slot] = slot_rng(self.seed, slot)

    def uniforms(self, slots) -> np.ndarray:
        """A uniform number from each slot's generator, in order."""
        return np.array([self.rngs[slot].random() for slot in slots])


class RandomMember(SlotGenerators):
    """Uniform over the legal moves (the ``random`` agent's play), one draw per move from the slot's generator."""

    def __init__(self, game: Game, seed: int):
        super().__init__(seed)

    def act(self, turn: Turn, rows: np.ndarray, slots) -> np.ndarray:
        masks = turn.masks(rows)
        return sample_actions(masks / masks.sum(axis=1, keepdims=True), self.uniforms(slots))


class AgentMember:
    """An agent of the agent protocol, one opponent of the opponent home per game slot
    (:func:`agents.opponents.make_opponent`): its agent seeded per slot, its views drawn with the slot's
    own generator (:func:`slot_rng`), so that it sees only what its player may see."""

    def __init__(self, name: str, game: Game, seed: int):
        self.name, self.game, self.seed = name, game, seed
        self.opponents: dict[int, AgentOpponent] = {}

    def new_game(self, slot: int) -> None:
        opponent = self.opponents.get(slot)
        if opponent is None:
            opponent = make_opponent(self.name, self.game, self.seed * 7919 + slot, slot_rng(self.seed, slot))
            self.opponents[slot] = opponent
        opponent.reset()

    def act(self, turn: Turn, rows: np.ndarray, slots) -> np.ndarray:
        states = [turn.state(int(row)) for row in rows]
        moves = [self.opponents[slot](state, state.current_player) for state, slot in zip(states, slots)]
        return np.array(moves, dtype=np.int64)


class HeuristicMember(AgentMember):
    """The game's heuristic: the home's one pass over the whole batch where the batch is the game's fast
    engine (:func:`agents.opponents.heuristic_batch_policy`), else per game as :class:`AgentMember` (so the
    slots' opponents are kept ready either way)."""

    def __init__(self, game: Game, seed: int):
        super().__init__("heuristic", game, seed)
        self.at_once = heuristic_batch_policy(game)

    def act(self, turn: Turn, rows: np.ndarray, slots) -> np.ndarray:
        moves = self.at_once(turn.batch)
        return super().act(turn, rows, slots) if moves is None else moves[rows]


class NetworkMember(SlotGenerators):
    """A model file's policy: every game where it is to move answered by one forward pass."""

    def __init__(self, path: str, game: Game, deterministic: bool, seed: int):
        from agents.models.network import load_network

        super().__init__(seed)
        self.network = load_network(path, game)
        self.deterministic = deterministic

    def act(self, turn: Turn, rows: np.ndarray, slots) -> np.ndarray:
        probs = self.network.policy(turn.observations(rows), turn.masks(rows))
        if self.deterministic:
            return probs.argmax(axis=1)
        return sample_actions(probs, self.uniforms(slots))


def sample_actions(probs: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One move per row drawn from its probabilities with the given uniform numbers (inverse CDF;
    a zero-probability move is never drawn)."""
    cumulative = np.cumsum(probs, axis=1, dtype=np.float64)
    draws = uniforms * cumulative[:, -1]
    picks = (cumulative <= draws[:, None]).sum(axis=1)
    # Round-off may point past the last legal move: step back to the most probable one then.
    rows = np.arange(len(probs))
    bad = (picks >= probs.shape[1]) | (probs[rows, np.minimum(picks, probs.shape[1] - 1)] == 0)
    picks[bad] = probs[bad].argmax(axis=1)
    return picks


def build_member(spec: MemberSpec, game: Game, seed: int):
    """The in-process opponent of ``spec`` (a model file is loaded safely and checked against ``game``)."""
    if spec[0] == "agent" and spec[1] == "random":
        return RandomMember(game, seed)
    if spec[0] == "agent" and spec[1] == "heuristic":
        return HeuristicMember(game, seed)
    if spec[0] == "agent" and spec[1] in BASELINE_AGENTS:
        return AgentMember(spec[1], game, seed)
    if spec[0] == "network" and len(spec) == 3:
        return NetworkMember(spec[1], game, bool(spec[2]), seed)
    raise ValueError(f"unknown opponent spec {spec!r}")
