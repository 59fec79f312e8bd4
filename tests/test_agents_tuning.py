"""The agents' per-game tuning (agents/tuning.py): every entry names a real game and a real option of its
agent, each tuned value passes that option's own check, and "auto" resolves to it (a misspelt option name
would otherwise be ignored in silence)."""

from __future__ import annotations

import pytest

import envs
from agents.heuristic_evaluator import HEURISTIC_GUIDE
from agents.search_options import DEFAULTS, GUIDED_DEFAULTS, GUIDED_RULES, RULES, guided_defaults, search_defaults
from agents.tuning import BEST_GUIDE, BEST_GUIDE_WITHOUT_MODEL, GUIDED, SEARCH
from envs.games import make_game


@pytest.mark.parametrize(
    "table,defaults,rules,resolve",
    [(SEARCH, DEFAULTS, RULES, search_defaults), (GUIDED, GUIDED_DEFAULTS, GUIDED_RULES, guided_defaults)],
    ids=["ismcts", "guided"],
)
def test_each_tuned_value_is_a_checked_option_of_a_real_game(table, defaults, rules, resolve):
    for name, options in table.items():
        assert name in envs.GAMES
        assert options and set(options) <= set(defaults), f"{name}: {sorted(set(options) - set(defaults))}"
        for option, value in options.items():
            test, allowed = rules[option]
            assert test(value), f"{name} {option}={value!r} is not {allowed}"
        assert resolve(make_game(name)) == {**defaults, **options}
    assert resolve(None) == defaults


def test_the_best_guides_name_games_and_shipped_networks():
    descriptions = [envs.describe(name) for name in envs.GAMES]
    labels = {description.label(config) for description in descriptions for config in description.configurations()}
    assert set(BEST_GUIDE) <= labels
    assert set(BEST_GUIDE.values()) <= {"trained"}
    assert set(BEST_GUIDE_WITHOUT_MODEL) <= set(envs.GAMES)
    assert set(BEST_GUIDE_WITHOUT_MODEL.values()) <= {HEURISTIC_GUIDE}
