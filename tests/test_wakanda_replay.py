"""Referee-level behaviour kept across rewrites: recorded Wakanda games replay exactly.

``tests/data/wakanda_games.json`` holds games recorded with the engine as it
was before the observer was moved out of the rules (issue 12): the seed, the
variant, the reward mode, every action played, and a digest of everything the
agents got at every turn (observation, mask, reward, termination, infos) and
of the final ``state_dict``. The same seed and actions must give the same
game, the same observations and the same rewards.

Re-record (only for an intended change of behaviour, with a version-history
line in the env card): ``python -m tests.test_wakanda_replay``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pytest

from envs import wakanda_v0

RECORDED = Path(__file__).parent / "data" / "wakanda_games.json"
GAMES_PER_VARIANT = 40


def replay(seed: int, advanced: bool, reward: str, actions: list[int] | None = None) -> tuple[list[int], str]:
    """Play one game through env(): the given actions, or random legal ones (seeded) when None.
    Returns the actions played and the digest of everything the agents got."""
    env = wakanda_v0.env(advanced=advanced, reward=reward)
    env.reset(seed=seed)
    choose, played, digest = random.Random(seed).choice, [], hashlib.sha256()
    for agent in env.agent_iter():
        obs, rew, termination, truncation, info = env.last()
        digest.update(repr((agent, rew, termination, truncation, sorted(info.items()))).encode())
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        if termination or truncation:
            env.step(None)
            continue
        action = actions[len(played)] if actions is not None else choose(np.flatnonzero(obs["action_mask"]).tolist())
        played.append(action)
        env.step(action)
    digest.update(json.dumps(env.unwrapped.state_dict(), sort_keys=True).encode())
    return played, digest.hexdigest()


def record() -> list[dict]:
    games = []
    for advanced in (False, True):
        for seed in range(GAMES_PER_VARIANT):
            reward = ("win", "score")[seed % 2]
            actions, digest = replay(seed, advanced, reward)
            games.append(dict(seed=seed, advanced=advanced, reward=reward, actions=actions, digest=digest))
    return games


GAMES = json.loads(RECORDED.read_text()) if RECORDED.exists() else []


def test_the_recording_covers_both_variants_and_reward_modes():
    assert len(GAMES) == 2 * GAMES_PER_VARIANT
    assert {(g["advanced"], g["reward"]) for g in GAMES} == {(a, r) for a in (False, True) for r in ("win", "score")}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{'advanced' if g['advanced'] else 'basic'}-{g['seed']}")
def test_recorded_games_replay_with_the_same_observations_masks_and_rewards(game):
    """Same seed and actions: same game, same observations and masks, same rewards and infos."""
    actions, digest = replay(game["seed"], game["advanced"], game["reward"], game["actions"])
    assert actions == game["actions"] and digest == game["digest"]


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(record(), indent=None, separators=(",", ":")) + "\n")
    print(f"recorded {2 * GAMES_PER_VARIANT} games in {RECORDED}")
