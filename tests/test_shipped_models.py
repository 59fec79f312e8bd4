"""The models shipped in the package (agents/models): one for every configuration (issue 62), each a small
file with its card and the command that made it (train.py, or the distillation run it names), playable as
make_agent("trained", game) and from the terminal game; a configuration without one is a clear error naming
those that have one."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import envs
from agents import make_agent, play_game
from agents import play as terminal
from agents.models import files
from agents.models.card import card_game
from agents.models.files import SHIPPED_DIR, read_card, shipped_models
from envs.games import make_game

SHIPPED = sorted(SHIPPED_DIR.glob("*.zip"))
REQUIRED = [(name, config) for name in envs.GAMES for config in envs.describe(name).configurations()]


@pytest.mark.parametrize("name,config", REQUIRED, ids=[envs.describe(n).label(c) for n, c in REQUIRED])
def test_the_required_configurations_have_a_model(name, config):
    game = make_game(name, **config)
    shipped = [card_game({"game": name, "config": c}).config() for c in shipped_models().get(name, [])]
    assert game.config() in shipped


def test_no_configuration_has_two_models():
    """make_agent("trained", game) takes the one file for the game's configuration: a second would
    shadow it (or be shadowed) without a word."""
    configurations = [
        (name, json.dumps(config, sort_keys=True)) for name, configs in shipped_models().items() for config in configs
    ]
    assert len(configurations) == len(set(configurations)) == len(SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_each_shipped_model_is_small_carded_and_plays_legal_games(path):
    card = read_card(str(path))
    assert os.path.getsize(path) < 5 * 2**20  # the largest, Wakanda's, is under 1 MiB
    assert card["command"].startswith(("python train.py ", "python -m training.distill "))
    distill = card.get("training", {}).get("distill")
    if distill is not None and distill["generation"] == 0:  # a transfer start that no generation beat
        assert distill["start"].startswith("transfer:")
    elif distill is not None:  # a distilled network names its run, generation, teacher, data and cost
        assert distill["run"] and distill["generation"] >= 1 and distill["teacher"]["kind"] in ("best", "guided")
        assert distill["data"]["positions"] > 0 and distill["cpu_hours"] > 0
    game = card_game(card)
    agents = [make_agent("trained", game)] + [make_agent("random", game, seed=s) for s in range(game.num_players - 1)]
    assert play_game(game, agents, seed=0).winners  # an illegal move would raise


def test_the_terminal_game_plays_against_the_trained_opponent():
    lines = []
    assert (
        terminal.main(
            ["wakanda", "--opponents", "trained", "--seed", "1", "--seat", "1"], read=lambda _: "q", write=lines.append
        )
        == 0
    )  # the trained opponent moved first; then the human gave up
    assert "trained" in lines[0]


def test_a_configuration_without_a_model_names_those_with_one(tmp_path, monkeypatch):
    shutil.copy(SHIPPED_DIR / "wakanda.zip", tmp_path)
    monkeypatch.setattr(files, "SHIPPED_DIR", tmp_path)  # a package that ships Wakanda's model alone
    with pytest.raises(
        ValueError,
        match=r"no trained model is shipped for wapi \{'num_players': 5.*trained models "
        r"exist for: .*wakanda \{'advanced': False\}",
    ):
        make_agent("trained", make_game("wapi", num_players=5))


def test_reading_a_card_imports_neither_torch_nor_stable_baselines3():
    """The read side of model files is below the players and light: every shipped card (MLP or structured network)
    is read and checked with JSON alone; Stable-Baselines3 is imported only once a network is built."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import agents.models.card, agents.models.files, agents.models.network, agents.rllib_agent\n"
        f"for path in {[str(path) for path in SHIPPED]!r}:\n    agents.models.files.read_card(path)\n"
        "assert 'stable_baselines3' not in sys.modules and 'sb3_contrib' not in sys.modules\n"
        "import agents.models.network as network, envs.games\n"
        "network.load_network('trained', envs.games.make_game('wakanda'))\n"
        "assert 'sb3_contrib' in sys.modules\n"
    )
    root = SHIPPED_DIR.parent.parent
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
