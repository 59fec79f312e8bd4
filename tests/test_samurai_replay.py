"""Referee-level behaviour kept across rewrites: recorded Samurai games replay exactly.

``tests/data/samurai_games.json`` holds games recorded with the engine as it
was before the observer was moved out of the rules (issue 12): the seed, the
configuration, every action played, and a digest of everything the agents
got at every turn (observation, mask, reward, termination, the infos'
``captured`` and ``set_aside``) and of the final ``state_dict`` (which holds
the winners). The same seed and actions must give the same game, the same
observations and the same rewards.

Not recorded: the figure draft (``figure_setup="draft"``), whose rule changed
in the same redesign (Edo now starts with one figure of each type, issue
11.5), and the infos' ``winners``, which became fixed-shape (issue 11.4); the
infos' ``captured`` and ``set_aside`` are compared in the recorded form, at the
end of the game (:func:`as_recorded`).

Re-record (only for an intended change of behaviour, with a version-history
line in the env card): ``python -m tests.test_samurai_replay``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs import samurai_v0
from envs.samurai.components import FIGURE_TYPES
from tests.conftest import replay_game

RECORDED = Path(__file__).parent / "data" / "samurai_games.json"
CONFIGS = ({"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 3, "choose_hand": True})
GAMES_PER_CONFIG = 15
INFO_KEYS = ("captured", "set_aside")


def as_recorded(key: str, value: list) -> dict | list:
    """An info value as the recording holds it: counts keyed by figure type (the infos have since become
    lists of counts per type, and hold their keys from ``reset`` on, not only at the end: issue 11.4)."""
    if key == "captured":
        return [dict(zip(FIGURE_TYPES, counts)) for counts in value]
    return dict(zip(FIGURE_TYPES, value))


def recorded_infos(info: dict, done: bool) -> list:
    """The infos as the recording holds them: ``INFO_KEYS`` at the end of the game, nothing before."""
    return [(key, as_recorded(key, info[key])) for key in INFO_KEYS if done]


def replay(seed: int, config: dict, actions: list[int] | None = None) -> tuple[list[int], str]:
    """One game through env() (:func:`tests.conftest.replay_game`)."""
    return replay_game(samurai_v0.env(**config), seed, actions, recorded_infos)


def record() -> list[dict]:
    games = []
    for config in CONFIGS:
        for seed in range(GAMES_PER_CONFIG):
            actions, digest = replay(seed, config)
            games.append(dict(seed=seed, config=config, actions=actions, digest=digest))
    return games


GAMES = json.loads(RECORDED.read_text()) if __name__ != "__main__" else []


def test_the_recording_covers_every_player_count_and_hand_choice():
    assert len(GAMES) == len(CONFIGS) * GAMES_PER_CONFIG
    assert [g["config"] for g in GAMES[::GAMES_PER_CONFIG]] == list(CONFIGS)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: "-".join(map(str, g["config"].values())) + f"-{g['seed']}")
def test_recorded_games_replay_with_the_same_observations_masks_and_rewards(game):
    """Same seed and actions: same game, same observations and masks, same rewards and outcome."""
    actions, digest = replay(game["seed"], game["config"], game["actions"])
    assert actions == game["actions"] and digest == game["digest"]


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(record(), indent=None, separators=(",", ":")) + "\n")
    print(f"recorded {len(CONFIGS) * GAMES_PER_CONFIG} games in {RECORDED}")
