"""Expert iteration's games, played in worker processes (:mod:`parallel.pool`): self-play records and gating matches.

**Self-play** (:func:`play_selfplay`): the guided search in every seat, each
decision with a real choice recorded as the mover's observation (float16:
Samurai's are 3,807 numbers, all small counts), its legal mask, the search's
visit distribution (the policy target), the search's own value of the
position (its mean over the root's simulations) and, once the game is over,
the mover's final reward (the two value targets). For the first ``explore_moves``
decisions of each player the move is *drawn* from the visit distribution
rather than the most visited one, so that the games (and the data) are
varied; after that each seat plays its best move.

**Gating** (:func:`play_gate`): the candidate network's search in one seat
and the previous network's in the others, on fixed deals with the candidate
in every seat in turn; a k-way shared win counts 1/k.

Every game is a pure function of its seed (budgets in iterations), so a
run is reproducible whatever the number of processes, and a resumed run
plays the games the interrupted one would have played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: The arrays of a self-play record, by name, and their types (the dataset's layout; :mod:`.learn` reads them).
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


def search_agents(game, network, search: dict[str, Any], seeds: Sequence[int]) -> list:
    """One guided search per seat, each with its own seed (``search``: the guided agent's options)."""
    from agents.guided import GuidedISMCTSAgent

    return [GuidedISMCTSAgent(game, network=network, seed=s, **search) for s in seeds]


def play_selfplay(task: tuple) -> dict[str, np.ndarray]:
    """Worker: self-play games ``(game_seed, game_id)`` with the network of ``model`` (see the module docstring)."""
    import torch

    from agents.guided import most_visited
    from agents.models.network import load_network
    from agents.protocol import PlayerView
    from envs.games import make_game
    from training.imitation import decision_arrays

    torch.set_num_threads(1)
    game_name, config, model, search, games, explore_moves, reward = task
    game = make_game(game_name, **config)
    network = load_network(model, game)
    observer = game.observer()
    rows: dict[str, list] = {name: [] for name in RECORD_FIELDS}
    for game_seed, game_id in games:
        deal, views, draws, *seats = _seeds(game_seed, 3 + game.num_players)
        agents = search_agents(game, network, search, seats)
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
    return decision_arrays(game, rows, RECORD_DTYPES)


def play_gate(task: tuple) -> list[float]:
    """Worker: the candidate's win share in each of ``games`` ``(deal_seed, candidate_seat)``."""
    import torch

    from agents.models.network import load_network
    from agents.protocol import play_game
    from envs.games import make_game

    torch.set_num_threads(1)
    game_name, config, candidate, previous, search, games = task
    game = make_game(game_name, **config)
    networks = load_network(candidate, game), load_network(previous, game)
    shares = []
    for deal, seat in games:
        seeds = _seeds(deal, game.num_players)
        agents = [
            search_agents(game, networks[0 if p == seat else 1], search, [seeds[p]])[0] for p in range(game.num_players)
        ]
        result = play_game(game, agents, seed=deal)
        shares.append(1.0 / len(result.winners) if seat in result.winners else 0.0)
    return shares
