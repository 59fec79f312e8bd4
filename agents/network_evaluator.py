"""A learned network as a search's evaluator (:class:`~agents.evaluator.Evaluator`): move priors and
position values for guided ISMCTS.

:class:`NetworkEvaluator` answers, for a batch of positions (states a search
owns: its own determinizations), the network's probabilities over the legal
moves of the player to act and every player's expected final reward. Why a
class of its own, apart from the search: the search takes *an evaluator*
(prior and value), not a network, as OpenSpiel's MCTS does, so another evaluator
(a hand-written one, a remote one) guides it the same way
(``make_agent("ismcts", game, evaluator=...)``).

**Values for every player.** The network's value is the expected win reward
of the player whose observation it reads. With two players the win rewards
are zero-sum (+1/-1, or 0/0 for a shared win), so the opponent's value is the
negation; at larger tables each player's own observation of the position is
evaluated (one more row per player, in the same forward pass).

**Speed.** A search evaluates thousands of positions a move, in small batches.
Stable-Baselines3's policy module costs a fixed overhead a call whatever the
batch (module and distribution objects), many times the small networks' own
arithmetic, so :class:`InferenceNet` runs the same layers as bare tensor
operations; a test checks it against
:meth:`agents.models.network.PolicyValueNet.evaluate`. It reads the module's weights
without copying them, so a network being trained is seen as it is now. It runs
on one torch thread whatever the process's setting (restored after each call):
for batches this small a second thread only adds hand-over costs, and on a
busy machine torch's default of one thread per core slows every call many
times over; the search's CPU-time budget also stays the time of the thread
that searches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch.nn import functional

from agents.models.card import ACTIVATION_NAMES, check_card
from agents.models.network import PolicyValueNet, load_network
from envs.core.engine import Game, GameState, shown


def _linears(module: torch.nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The (weight, bias) of every Linear layer of ``module``, in order (no copy)."""
    return [(m.weight.detach(), m.bias.detach()) for m in module.modules() if isinstance(m, torch.nn.Linear)]


class InferenceNet:
    """The forward pass of a :class:`~agents.models.network.PolicyValueNet` as bare tensor operations."""

    def __init__(self, network: PolicyValueNet):
        policy = network.module
        kind = network.card["network"]["activation"]
        self.activation = {"tanh": torch.tanh, "relu": torch.relu}[kind]
        assert set(ACTIVATION_NAMES) == {"tanh", "relu"}, "a new activation needs its function here"
        self.shared = _linears(policy.features_extractor)  # none for SB3's plain flatten
        self.pi = _linears(policy.mlp_extractor.policy_net) + _linears(policy.action_net)
        self.vf = _linears(policy.mlp_extractor.value_net) + _linears(policy.value_net)
        self.clip = network.card["reward"] == "win"

    def _run(self, x: torch.Tensor, layers: list[tuple[torch.Tensor, torch.Tensor]], last_linear: bool) -> torch.Tensor:
        for k, (weight, bias) in enumerate(layers):
            x = functional.linear(x, weight, bias)
            if not (last_linear and k == len(layers) - 1):
                x = self.activation(x)
        return x

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(B,)`` of every row, and masked move probabilities ``(k, A)`` of the first ``k =
        len(masks)`` rows (the rows after them are read for their value only)."""
        return one_thread(self._forward, observations, masks)

    def _forward(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            features = self._run(torch.from_numpy(observations), self.shared, last_linear=False)
            values = self._run(features, self.vf, last_linear=True).squeeze(-1)
            if self.clip:
                values = values.clamp(-1.0, 1.0)
            logits = self._run(features[: len(masks)], self.pi, last_linear=True)
            probs = torch.softmax(logits.masked_fill(~torch.from_numpy(masks), -math.inf), dim=1)
        return probs.numpy(), values.numpy()


class ModuleInference:
    """The same answers as :class:`InferenceNet` from the network's own forward pass
    (:meth:`~agents.models.network.PolicyValueNet.evaluate`), for the kinds it does not unroll
    (the structured kinds, such as ``samurai_graph``, whose cost is in their layers, not in module overhead)."""

    def __init__(self, network: PolicyValueNet):
        self.network = network

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return one_thread(self._forward, observations, masks)

    def _forward(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        every_row = np.ones((len(observations), masks.shape[1]), bool)  # rows read for their value only
        every_row[: len(masks)] = masks
        probs, values = self.network.evaluate(observations, every_row)
        return probs[: len(masks)], values


def one_thread(forward, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``forward(observations, masks)`` on one torch thread, the process's setting restored after
    (see the module docstring)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return forward(observations, masks)
    finally:
        torch.set_num_threads(threads)


def resolve_network(network: str | PolicyValueNet, game: Game) -> PolicyValueNet:
    """``network`` ("trained": the shipped PPO model, "ppo:PATH", a model path, or a loaded network) checked
    against ``game``: a network made for another game, configuration or shape is refused with a ValueError."""
    if game is None:
        raise ValueError("a network-guided search needs game=... to check the network against")
    if isinstance(network, PolicyValueNet):
        check_card(network.card, game, "network")
        return network
    if isinstance(network, str):
        return load_network(network, game)
    raise ValueError(f"network must be 'trained', 'ppo:PATH', a model path or a PolicyValueNet, got {shown(network)}")


class NetworkEvaluator:
    """Priors and values of a network for positions of ``game`` (see the module docstring)."""

    def __init__(self, network: PolicyValueNet, game: Game):
        self.network = resolve_network(network, game)
        unrolled = self.network.card["network"]["kind"] == "mlp_actor_critic"
        self.net = InferenceNet(self.network) if unrolled else ModuleInference(self.network)
        self.game = game
        self.num_players = game.num_players
        self._observer = game.observer()  # never told to follow a state: it encodes each one from scratch
        self._obs = np.zeros((0, game.observation_size), np.float32)
        self._masks = np.zeros((0, game.num_actions), bool)

    def _rows(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        if len(self._obs) < count:
            self._obs = np.zeros((count, self._obs.shape[1]), np.float32)
            self._masks = np.zeros((count, self._masks.shape[1]), bool)
        return self._obs[:count], self._masks[:count]

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        n, count = self.num_players, len(states)
        rows = count if n == 2 else count * n
        obs, masks = self._rows(rows)
        masks[:count] = False
        for k, state in enumerate(states):
            obs[k] = self._observer.observe(state, state.current_player)
            masks[k, state.legal_tuple()] = True
        if n > 2:  # every other player's own view of the same position, for its value
            for k, state in enumerate(states):
                for j, p in enumerate(q for q in range(n) if q != state.current_player):
                    obs[count + k * (n - 1) + j] = self._observer.observe(state, p)
        probs, values = self.net(obs[:rows], masks[:count])
        table = np.empty((count, n), np.float32)
        for k, state in enumerate(states):
            mover = state.current_player
            table[k, mover] = values[k]
            if n == 2:
                table[k, 1 - mover] = -values[k]
            else:
                for j, p in enumerate(q for q in range(n) if q != mover):
                    table[k, p] = values[count + k * (n - 1) + j]
        return probs, table
