"""The warm start: behaviour cloning of an agent's moves into the policy before PPO (``--warm-start``).

PPO from a random network spends its first hundreds of thousands of steps
learning what the heuristic already knows. So: play ``games`` games with the
chosen agent (``heuristic`` or ``ismcts``) in every seat, in parallel worker
processes; record every move's observation, legal mask and chosen action,
and the mover's final reward; then fit the policy by **masked cross-entropy**
(the logits of illegal moves removed, as the learner's own distribution does)
and the value head by mean squared error to the final reward. One game in
ten is held out, whole, and the move accuracy on it is reported (moves of
one game are alike, so a held-out *game* is the honest test).

``rollouts`` goes one step further than the heuristic it clones: at every
decision of other heuristic games it measures each legal move's mean reward
over a few *paired* samples of the game's flat search (each sample plays every
move out with the same determinization and dice: ``ISMCTSAgent.action_values``),
and fits the policy's logits, centred over the legal moves, to those
advantages over a temperature (mean squared error). One position's few samples
are noisy, but the fit pools them over hundreds of thousands of positions: one
step of policy improvement over the heuristic, learnt instead of searched at
play time. Reported: the estimated gain per decision over the heuristic's own
move, measured with the held-out games' samples (which the fit never saw).

Observations are stored as float16 (Samurai's are 3,807 numbers a move); the
games' values (counts over small totals) survive that to within 1e-3.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch

from envs.core.engine import Game
from parallel.pool import chunks, joined, parallel_map

WARM_START_AGENTS = ("heuristic", "ismcts", "rollouts")
#: ``rollouts``: the temperature of the fitted advantages (the logits learn (value - mean value) /
#: temperature; rewards are the search's, about -1..1). The paired samples per decision are a
#: training setting (``--warm-start-samples``).
ADVANTAGE_TEMPERATURE = 0.1
#: ``rollouts`` after cloning: passes of the fit to the measured moves (more moved the fresh clone's
#: play no further; ``docs/experiments/012-shipped-models-before-the-protocol.md``).
FIT_EPOCHS = 6
#: The arrays of the ``rollouts`` samples (a row per decision with a choice) and their types.
SAMPLE_DTYPES = {"obs": np.float16, "masks": bool, "move_values": np.float32, "actions": np.int64, "games": np.int64}


def play_games(task: tuple) -> dict[str, np.ndarray]:
    """Worker: play the given deals with ``agent`` in every seat; every move as (obs, mask, action, value, game)."""
    from agents import make_agent
    from agents.protocol import PlayerView
    from envs.games import make_game

    torch.set_num_threads(1)
    game_name, config, agent_name, agent_options, seeds, reward = task
    game = make_game(game_name, **config)
    observer = game.observer()
    obs, masks, actions, players, values, game_ids = [], [], [], [], [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        agents = [make_agent(agent_name, game, seed=seed * 10 + p, **agent_options) for p in range(game.num_players)]
        state = game.new_state(rng)
        observer.follow(state)
        start = len(actions)
        while state.current_player is not None:
            player = state.current_player
            legal = state.legal_tuple()
            if len(legal) > 1:  # a forced move teaches nothing
                obs.append(observer.observe(state, player).astype(np.float16))
                mask = np.zeros(game.num_actions, bool)
                mask[list(legal)] = True
                masks.append(mask)
            action = int(agents[player].act(PlayerView(state, rng)))
            if len(legal) > 1:
                actions.append(action)
                players.append(player)
            state.apply(action)
            observer.applied(state, action)
        final = state.rewards(reward)
        values.extend(final[p] for p in players[start:])
        game_ids.extend([seed] * (len(actions) - start))
    return {
        "obs": np.array(obs, np.float16).reshape(-1, game.observation_size),
        "masks": np.array(masks, bool).reshape(-1, game.num_actions),
        "actions": np.array(actions, np.int64),
        "values": np.array(values, np.float32),
        "games": np.array(game_ids, np.int64),
    }


def measure_moves(task: tuple) -> dict[str, np.ndarray]:
    """Worker: play the given deals with the heuristic in every seat; at every decision with a choice,
    each legal move's mean reward over ``samples`` paired samples (obs, mask, move_values, heuristic's move, game)."""
    from agents import make_agent
    from agents.ismcts import ISMCTSAgent
    from agents.protocol import PlayerView
    from envs.games import make_game

    torch.set_num_threads(1)
    game_name, config, seeds, samples = task
    game = make_game(game_name, **config)
    observer = game.observer()
    rows: dict[str, list] = {name: [] for name in SAMPLE_DTYPES}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        heuristics = [make_agent("heuristic", game, seed=seed * 10 + p) for p in range(game.num_players)]
        search = ISMCTSAgent(game, seed=seed, paired_root=True, tree_depth=1)
        state = game.new_state(rng)
        observer.follow(state)
        while state.current_player is not None:
            view = PlayerView(state, rng)
            action = int(heuristics[state.current_player].act(view))
            if len(view.legal_actions) > 1:
                values = measured_values(search, view, samples)
                rows["obs"].append(observer.observe(state, state.current_player).astype(np.float16))
                rows["masks"].append(np.isin(np.arange(game.num_actions), view.legal_actions))
                rows["move_values"].append(values)
                rows["actions"].append(action)
                rows["games"].append(seed)
            state.apply(action)
            observer.applied(state, action)
    return decision_arrays(game, rows, SAMPLE_DTYPES)


#: The fields of a decision's row that hold a value per action (``obs`` holds the observation; the others,
#: one value).
PER_ACTION = {"masks", "policies", "move_values"}


def decision_arrays(game, rows: dict[str, list], dtypes: dict[str, Any]) -> dict[str, np.ndarray]:
    """The rows collected one per decision as arrays of ``dtypes``, a row per decision (also when there are none)."""
    arrays = {name: np.array(rows[name], dtype) for name, dtype in dtypes.items()}
    for name in arrays.keys() & PER_ACTION:
        arrays[name] = arrays[name].reshape(-1, game.num_actions)
    if "obs" in arrays:
        arrays["obs"] = arrays["obs"].reshape(-1, game.observation_size)
    return arrays


def measured_values(search, view, samples: int) -> np.ndarray:
    """Each legal move's mean reward over ``samples`` paired samples of ``search`` (a paired flat
    ``ISMCTSAgent``), as a vector over all actions, 0 off the legal moves."""
    values = np.zeros(view.game.num_actions, np.float32)
    for move, value in search.action_values(view, samples).items():
        values[move] = value
    return values


def generate(
    game_name: str,
    config: dict,
    agent: str,
    games: int,
    seed: int,
    reward: str = "win",
    processes: int = 2,
    agent_options: dict | None = None,
) -> dict[str, np.ndarray]:
    """The moves of ``games`` games (deal seeds ``seed``, ``seed + 1``, ...) played on ``processes`` processes."""
    deals = chunks(range(seed, seed + games), processes)
    tasks = [(game_name, config, agent, dict(agent_options or {}), chunk, reward) for chunk in deals]
    return joined(parallel_map(play_games, tasks, processes))


def measure(
    game_name: str, config: dict, games: int, seed: int, samples: int, processes: int = 2
) -> dict[str, np.ndarray]:
    """The measured moves of ``games`` heuristic games (deal seeds ``seed``, ``seed + 1``, ...)."""
    tasks = [(game_name, config, chunk, samples) for chunk in chunks(range(seed, seed + games), processes)]
    return joined(parallel_map(measure_moves, tasks, processes))


def clone(
    network,
    data: dict[str, np.ndarray],
    epochs: int = 10,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_weight: float = 0.5,
    seed: int = 0,
) -> dict[str, Any]:
    """Fit ``network`` (a :class:`~agents.models.network.PolicyValueNet`, its module trained in place) to the moves.

    Returns the training and held-out move accuracy (one game in ten held out) and the losses."""
    train_rows, test_rows, held = held_out_split(data["games"], seed)

    def loss(rows: np.ndarray) -> torch.Tensor:
        policy_loss, value_loss, _ = _losses(network, data, rows)
        return policy_loss + value_weight * value_loss

    _minimise(network.module, loss, train_rows, epochs, batch_size, learning_rate, seed)
    with torch.no_grad():
        train_loss, train_value, train_acc = _losses(network, data, train_rows[:20_000])
        test_loss, test_value, test_acc = _losses(network, data, test_rows)
    return {
        "train_moves": len(train_rows),
        "held_out_moves": len(test_rows),
        "held_out_games": held,
        "train_accuracy": train_acc,
        "held_out_accuracy": test_acc,
        "held_out_policy_loss": float(test_loss),
        "held_out_value_loss": float(test_value),
        "train_policy_loss": float(train_loss),
    }


def _minimise(module, loss, rows: np.ndarray, epochs: int, batch_size: int, learning_rate: float, seed: int) -> None:
    """Adam on ``loss(batch rows)`` over shuffled minibatches of ``rows``, ``epochs`` passes (seeded);
    the module is left in eval mode."""
    optimizer = torch.optim.Adam(module.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    module.train()
    for _ in range(epochs):
        order = rows[torch.randperm(len(rows), generator=generator).numpy()]
        for start in range(0, len(order), batch_size):
            optimizer.zero_grad()
            loss(order[start : start + batch_size]).backward()
            optimizer.step()
    module.eval()


def held_out_split(games: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The rows to train on and the rows held out (one game in ten, whole), and how many games are held out."""
    game_ids = np.unique(games)
    held = np.random.default_rng(seed).choice(game_ids, size=max(1, len(game_ids) // 10), replace=False)
    is_held = np.isin(games, held)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held), len(held)


def fit_advantages(
    network,
    data: dict[str, np.ndarray],
    epochs: int = FIT_EPOCHS,
    batch_size: int = 512,
    learning_rate: float = 3e-4,
    temperature: float = ADVANTAGE_TEMPERATURE,
    seed: int = 0,
) -> dict[str, Any]:
    """Fit ``network``'s logits to the measured moves' advantages (:func:`measure`), one game in ten held out.

    Returns the held-out gain per decision over the heuristic's move, before and after the fit."""
    train_rows, test_rows, held = held_out_split(data["games"], seed)
    masks = torch.from_numpy(data["masks"])
    values = torch.from_numpy(data["move_values"])
    advantages = (values - _legal_mean(values, masks)) * masks / temperature
    gain_before = _gain(network, data, test_rows)

    def loss(rows: np.ndarray) -> torch.Tensor:
        logits, _ = network.logits_and_values(torch.from_numpy(data["obs"][rows].astype(np.float32)))
        legal = masks[rows]
        error = (logits - _legal_mean(logits, legal)) * legal - advantages[rows]
        return error.square().sum() / legal.sum()

    _minimise(network.module, loss, train_rows, epochs, batch_size, learning_rate, seed)
    return {
        "measured_positions": len(train_rows),
        "held_out_positions": len(test_rows),
        "held_out_measured_games": held,
        "held_out_gain_before": gain_before,
        "held_out_gain": _gain(network, data, test_rows),
    }


def _legal_mean(values: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return (values * masks).sum(dim=1, keepdim=True) / masks.sum(dim=1, keepdim=True)


def _gain(network, data: dict[str, np.ndarray], rows: np.ndarray) -> float:
    """Mean measured value of the network's most probable move minus that of the heuristic's move."""
    with torch.no_grad():
        logits, _ = network.logits_and_values(torch.from_numpy(data["obs"][rows].astype(np.float32)))
    picks = logits.masked_fill(~torch.from_numpy(data["masks"][rows]), -math.inf).argmax(dim=1).numpy()
    values = data["move_values"][rows]
    return float(np.mean(values[np.arange(len(rows)), picks] - values[np.arange(len(rows)), data["actions"][rows]]))


def _losses(network, data, rows) -> tuple[torch.Tensor, torch.Tensor, float]:
    obs = torch.from_numpy(data["obs"][rows].astype(np.float32))
    masks = torch.from_numpy(data["masks"][rows])
    actions = torch.from_numpy(data["actions"][rows])
    logits, values = network.logits_and_values(obs)
    logits = logits.masked_fill(~masks, -1e9)  # masked cross-entropy: only the legal moves compete
    policy_loss = torch.nn.functional.cross_entropy(logits, actions)
    value_loss = torch.nn.functional.mse_loss(values, torch.from_numpy(data["values"][rows]))
    accuracy = float((logits.argmax(dim=1) == actions).float().mean())
    return policy_loss, value_loss, accuracy


def warm_start(
    network,
    game: Game,
    agent: str,
    games: int,
    seed: int,
    reward: str,
    processes: int,
    epochs: int,
    samples: int,
    fresh: bool = True,
) -> dict[str, Any]:
    """Generate the moves and clone them into ``network`` (``rollouts``: the heuristic's, then fit to the
    moves measured in as many other games); returns what to report (counts, accuracy, gain, time).

    A network that is not ``fresh`` (``train.py --init-model``: trained already) skips the cloning, which
    would pull it back towards the heuristic, and is only fit to the measured moves, for ``epochs``
    passes: from a good start the fit can run longer before it overfits the measurements' noise."""
    started = time.time()
    game_name, config = game.name, game.config()  # the processes make the game again
    report: dict[str, Any] = {}
    if fresh:
        options = {"iterations": 200} if agent == "ismcts" else {}
        teacher = "heuristic" if agent == "rollouts" else agent
        data = generate(game_name, config, teacher, games, seed, reward, processes, options)
        report["generate_seconds"] = round(time.time() - started, 1)
        report.update(clone(network, data, epochs=epochs, seed=seed))
    if agent == "rollouts":
        measured = measure(game_name, config, games, seed + games, samples, processes)
        fit = fit_advantages(network, measured, epochs=FIT_EPOCHS if fresh else epochs, seed=seed)
        report["rollouts"] = {"samples": samples, **fit}
    return {"agent": agent, "games": games, "seconds": round(time.time() - started, 1), **report}
