"""A configuration's label (envs/core/description.py) names only what differs from the game's own: the same for
the options given and for the configured game's ``config()``, which spells every option out (Wapi's coins)."""

from __future__ import annotations

import pytest

import envs
from envs.games import make_game

CONFIGURATIONS = [(name, config) for name in envs.GAMES for config in envs.describe(name).configurations()]


@pytest.mark.parametrize("name,config", CONFIGURATIONS, ids=lambda x: str(x))
def test_a_games_own_config_has_the_label_of_the_options_given(name, config):
    description = envs.describe(name)
    assert description.label(make_game(name, **config).config()) == description.label(config)


def test_an_option_off_the_games_own_value_is_named():
    coins = {0: 6, 1: 6, 2: 6, 3: 6, 5: 6}
    label = envs.describe("wapi").label(make_game("wapi", num_players=3, coins=coins).config())
    assert label == f"wapi 3p {coins}"
