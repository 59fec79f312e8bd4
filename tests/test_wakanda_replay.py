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

import json
from pathlib import Path

import pytest

from envs import wakanda_v0
from tests.conftest import replay_game

RECORDED = Path(__file__).parent / "data" / "wakanda_games.json"
GAMES_PER_VARIANT = 40


def replay(seed: int, advanced: bool, reward: str, actions: list[int] | None = None) -> tuple[list[int], str]:
    """One game through env() (:func:`tests.conftest.replay_game`), every info recorded."""
    env = wakanda_v0.env(advanced=advanced, reward=reward)
    return replay_game(env, seed, actions, lambda info, done: sorted(info.items()))


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
