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

Observations are stored as float16 (Samurai's are 3,807 numbers a move); the
games' values (counts over small totals) survive that to within 1e-3.
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

import numpy as np
import torch

WARM_START_AGENTS = ("heuristic", "ismcts")


def play_games(task: tuple) -> dict[str, np.ndarray]:
    """Worker: play the given deals with ``agent`` in every seat; every move as (obs, mask, action, value, game)."""
    from agents import make_agent
    from agents.games import make_game
    from agents.protocol import PlayerView

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
    seeds = list(range(seed, seed + games))
    chunks = [seeds[i :: processes * 4] for i in range(processes * 4) if seeds[i :: processes * 4]]
    tasks = [(game_name, config, agent, dict(agent_options or {}), chunk, reward) for chunk in chunks]
    if processes == 1:
        parts = [play_games(task) for task in tasks]
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            parts = pool.map(play_games, tasks)
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def clone(
    network,
    data: dict[str, np.ndarray],
    epochs: int = 10,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_weight: float = 0.5,
    seed: int = 0,
) -> dict[str, Any]:
    """Fit ``network`` (a :class:`~agents.network.PolicyValueNet`, its module trained in place) to the moves.

    Returns the training and held-out move accuracy (one game in ten held out) and the losses."""
    rng = np.random.default_rng(seed)
    game_ids = np.unique(data["games"])
    held = set(rng.choice(game_ids, size=max(1, len(game_ids) // 10), replace=False).tolist())
    is_held = np.isin(data["games"], list(held))
    train_rows, test_rows = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    module = network.module
    optimizer = torch.optim.Adam(module.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    module.train()
    for _ in range(epochs):
        order = train_rows[torch.randperm(len(train_rows), generator=generator).numpy()]
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            policy_loss, value_loss, _ = _losses(network, data, rows)
            optimizer.zero_grad()
            (policy_loss + value_weight * value_loss).backward()
            optimizer.step()
    module.eval()
    with torch.no_grad():
        train_loss, train_value, train_acc = _losses(network, data, train_rows[:20_000])
        test_loss, test_value, test_acc = _losses(network, data, test_rows)
    return {
        "train_moves": len(train_rows),
        "held_out_moves": len(test_rows),
        "held_out_games": len(held),
        "train_accuracy": train_acc,
        "held_out_accuracy": test_acc,
        "held_out_policy_loss": float(test_loss),
        "held_out_value_loss": float(test_value),
        "train_policy_loss": float(train_loss),
    }


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
    network, game_name: str, config: dict, agent: str, games: int, seed: int, reward: str, processes: int, epochs: int
) -> dict[str, Any]:
    """Generate the moves and clone them into ``network``; returns what to report (counts, accuracy, time)."""
    started = time.time()
    options = {"iterations": 200} if agent == "ismcts" else {}
    data = generate(game_name, config, agent, games, seed, reward, processes, options)
    generated = time.time() - started
    report = clone(network, data, epochs=epochs, seed=seed)
    return {
        "agent": agent,
        "games": games,
        "generate_seconds": round(generated, 1),
        "seconds": round(time.time() - started, 1),
        **report,
    }
