"""The distillation's games, played in worker processes (:mod:`parallel.pool`): the teacher's games and the
network's matches.

**The teacher's games** (:func:`play_selfplay`): the teacher's search in every seat
(:func:`teacher_agents`), each decision with a real choice recorded as the mover's
observation (float16: Samurai's are 3,807 numbers, all small counts), its legal mask,
the search's policy (its visits: :meth:`agents.ismcts.ISMCTSAgent.visit_distribution`),
the search's own value of the position (its mean over the root's simulations) and, once
the game is over, the mover's final reward (the two value targets). For the first
``explore_moves`` decisions of each player the move is *drawn* from the search's policy
rather than its best move, so that the games (and the data) are varied.

**The network's matches** (:func:`play_match`): the network alone (one forward pass a
move, the way it is shipped) in one seat and an opponent in the others, on fixed deals
with the network in every seat in turn: the gate (against the last kept network) and
the learning curve (against the heuristic). A k-way shared win counts 1/k.

Every game is a pure function of its seed (budgets in iterations), so a run is
reproducible whatever the number of processes or the backend, and a resumed run plays
the games the interrupted one would have played. Each task reports the CPU seconds it
took, where it ran, so that the run's cost is counted on a cluster too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The arrays of a teacher's record, by name, and their types (the dataset's layout; :mod:`.learn` reads them).
RECORD_DTYPES = {
    "obs": np.float16,
    "masks": bool,
    "policies": np.float16,
    "values": np.float32,
    "search_values": np.float32,
    "games": np.int64,
}
RECORD_FIELDS = tuple(RECORD_DTYPES)


def _seeds(seed: int, count: int) -> list[int]:
    """``count`` independent integer seeds drawn from ``seed`` (a game's deal, views, moves, seats)."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def teacher_agents(game, teacher: str, network, search: dict[str, Any], seeds: Sequence[int]) -> list:
    """One teacher search per seed (``search``: its options and budget). ``best``: the configuration's best
    search (:func:`agents.best.best_guide`: guided by the shipped model or the heuristic, or plain ISMCTS);
    ``guided``: the guided search with ``network`` (the run's best so far) as its evaluator."""
    from agents.best import best_guide
    from agents.guided import GuidedISMCTSAgent
    from agents.ismcts import ISMCTSAgent

    if teacher == "guided":
        return [GuidedISMCTSAgent(game, network=network, seed=s, **search) for s in seeds]
    guide = best_guide(game)
    if guide:
        return [GuidedISMCTSAgent(game, seed=s, **guide, **search) for s in seeds]
    return [ISMCTSAgent(game, seed=s, **search) for s in seeds]


def play_selfplay(task: tuple) -> dict[str, np.ndarray]:
    """Worker: the teacher's games ``(game_seed, game_id)`` (see the module docstring); its records, and the
    CPU seconds they took as ``cpu_seconds``."""
    import torch

    from agents.models.network import load_network
    from agents.protocol import PlayerView
    from agents.tree import most_visited
    from envs.games import make_game
    from training.imitation import decision_arrays

    started = time.process_time()
    torch.set_num_threads(1)
    game_name, config, teacher, model, search, games, explore_moves, reward = task
    game = make_game(game_name, **config)
    network = load_network(model, game) if teacher == "guided" else None
    observer = game.observer()
    rows: dict[str, list] = {name: [] for name in RECORD_FIELDS}
    for game_seed, game_id in games:
        deal, views, draws, *seats = _seeds(game_seed, 3 + game.num_players)
        agents = teacher_agents(game, teacher, network, search, seats)
        view_rng, draw_rng = np.random.default_rng(views), np.random.default_rng(draws)
        state = game.new_state(np.random.default_rng(deal))
        observer.follow(state)
        decisions = [0] * game.num_players
        movers: list[int] = []
        while state.current_player is not None:
            player = state.current_player
            view = PlayerView(state, view_rng)
            if len(view.legal_actions) == 1:
                action = view.legal_actions[0]
            else:
                agent = agents[player]
                root = agent.search(view)
                policy = agent.visit_distribution(root)
                rows["obs"].append(observer.observe(state, player).astype(np.float16))
                rows["masks"].append(view.legal_mask.astype(bool))
                rows["policies"].append(policy.astype(np.float16))
                rows["search_values"].append(agent.root_value(root))
                movers.append(player)
                if decisions[player] < explore_moves:
                    weights = policy.astype(np.float64)
                    action = int(draw_rng.choice(len(policy), p=weights / weights.sum()))
                else:
                    action = most_visited(root, view.legal_actions)
                decisions[player] += 1
            state.apply(action)
            observer.applied(state, action)
        final = state.rewards(reward)
        rows["values"].extend(final[p] for p in movers)
        rows["games"].extend([game_id] * len(movers))
    records = decision_arrays(game, rows, RECORD_DTYPES)
    records["cpu_seconds"] = np.array(time.process_time() - started)
    return records


def play_match(task: tuple) -> tuple[list[float], float]:
    """Worker: the network of ``model`` alone against ``opponent`` (``heuristic`` or another model file) in
    each of ``games`` ``(deal_seed, network_seat)``; its win share in each, and the CPU seconds taken."""
    import torch

    from agents import make_agent
    from agents.protocol import play_game
    from envs.games import make_game

    started = time.process_time()
    torch.set_num_threads(1)
    game_name, config, model, opponent, games = task
    game = make_game(game_name, **config)
    network = make_agent(f"ppo:{model}", game)
    others = make_agent(opponent if opponent == "heuristic" else f"ppo:{opponent}", game, seed=0)
    shares = []
    for deal, seat in games:
        agents = [network if p == seat else others for p in range(game.num_players)]
        result = play_game(game, agents, seed=deal)
        shares.append(1.0 / len(result.winners) if seat in result.winners else 0.0)
    return shares, time.process_time() - started
