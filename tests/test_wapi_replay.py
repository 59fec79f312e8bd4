"""Referee-level behaviour kept: recorded Wapi games replay to the same digests.

``tests/data/wapi_recorded.json`` was written by :func:`record` on the engine
as it stood before the observer redesign (issue 12, commit 78e9966): for every
configuration below and each seed, the sha256 of everything the agents got
through ``raw_env`` (agent, observation bytes, mask bytes, reward,
termination, truncation, info) under random legal play, the final
``state_dict``, and the moves the heuristic policy chose in a second game of
the same deal. Same seed and actions: same game, same observations, same
rewards; the heuristic still reads the same public facts.

To re-record after an intended change of behaviour (and only then; say so in
the commit): ``python -m tests.test_wapi_replay``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from agents.heuristic.wapi import policy
from envs import wapi_v0
from envs.wapi import WapiGame
from tests.conftest import aec_trace

RECORDING = Path(__file__).parent / "data" / "wapi_recorded.json"
CONFIGS = [
    {"num_players": 2, "scoring": "full", "reward": "win"},
    {"num_players": 3, "scoring": "shared", "reward": "score"},
    {"num_players": 4, "scoring": "full", "reward": "score"},
    {"num_players": 5, "scoring": "shared", "reward": "win"},
    {"num_players": 3, "scoring": "full", "reward": "win", "coins": {0: 4, 1: 10, 2: 10, 3: 6, 5: 2}},
]
SEEDS = range(12)


def _label(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


def env_digest(config: dict, seed: int) -> str:
    """Everything the agents get in one random game through raw_env, and its final state, hashed."""
    env = wapi_v0.raw_env(**config)
    digest = hashlib.sha256()
    for item in aec_trace(env, seed, policy_seed=seed):
        digest.update(repr(item).encode())
    digest.update(json.dumps(env.state_dict(), sort_keys=True).encode())
    return digest.hexdigest()


def heuristic_moves(config: dict, seed: int) -> str:
    """The heuristic's moves over a whole game of the deal ``seed``, as a digit string."""
    game = WapiGame(config["num_players"], config["scoring"], config.get("coins"))
    state = game.new_state(np.random.default_rng(seed))
    moves = []
    while state.current_player is not None:
        moves.append(policy(state))
        state.apply(moves[-1])
    return "".join(map(str, moves))


def record() -> dict:
    return {
        _label(config): {str(seed): [env_digest(config, seed), heuristic_moves(config, seed)] for seed in SEEDS}
        for config in CONFIGS
    }


@pytest.mark.parametrize("config", CONFIGS, ids=_label)
def test_recorded_games_replay_identically(config):
    """Same seed and actions: the same observations, masks, rewards, infos and final state as recorded."""
    recorded = json.loads(RECORDING.read_text())[_label(config)]
    for seed in SEEDS:
        digest, moves = recorded[str(seed)]
        assert env_digest(config, seed) == digest, f"seed {seed}: the game differs from the recording"
        assert heuristic_moves(config, seed) == moves, f"seed {seed}: the heuristic plays differently"


if __name__ == "__main__":
    RECORDING.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {RECORDING}")
