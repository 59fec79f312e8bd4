"""A model file from a stranger never runs code (issue 11.1), at every entry point that loads one.

Two crafted files, each built from a real model: one whose SB3 ``data`` entry holds a cloudpickle
payload (what ``MaskablePPO.load`` unpickles), one whose ``policy.pth`` is a pickle with a payload.
Each payload creates a marker directory when unpickled. The first test shows that the payloads are
live (SB3's loader and a plain ``torch.load`` run them); the others load the files through every
entry point of the project and check that no marker appears: the ``data`` file plays normally (that
entry is never read), the ``policy.pth`` file is refused with a ValueError.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch

import train
from agents import make_agent, play_game
from agents import play as terminal
from agents.models.card import POLICY_NAME, network_description
from agents.models.network import load_network
from envs.games import make_game
from training.network import new_network, save_network


class Payload:
    """Unpickling this creates ``marker``: a harmless stand-in for arbitrary code."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.makedirs, (self.marker,))


def rewrite(path, replace: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in (entries | replace).items():
            archive.writestr(name, data)


def crafted_data(path, marker: str) -> None:
    """Plant a cloudpickle payload in SB3's ``data`` entry (as ``observation_space``)."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    data["observation_space"][":serialized:"] = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    rewrite(path, {"data": json.dumps(data).encode()})


def crafted_policy(path, marker: str) -> None:
    """Replace ``policy.pth`` by a torch file whose pickle holds a payload."""
    from io import BytesIO

    buffer = BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buffer)
    rewrite(path, {POLICY_NAME: buffer.getvalue()})


@pytest.fixture
def files(tmp_path):
    """(game, data-crafted path, policy-crafted path, marker) for a Wakanda model saved by train.py's writer."""
    game = make_game("wakanda")
    torch.manual_seed(0)
    net = new_network(
        game,
        network_description([16, 16]),
        command="tests/test_model_file_safety.py",
        training={
            "num_timesteps": 64,
            "hyperparameters": {
                "network": network_description([16, 16]),
                "n_steps": 32,
                "batch_size": 32,
                "learning_rate": 1e-3,
                "n_epochs": 1,
                "gamma": 1.0,
                "gae_lambda": 0.95,
                "ent_coef": 0.01,
                "clip_range": 0.2,
            },
        },
    )
    marker = str(tmp_path / "payload-ran")
    data_file, policy_file = str(tmp_path / "data.zip"), str(tmp_path / "policy.zip")
    for path in (data_file, policy_file):
        save_network(net, path)
    crafted_data(data_file, marker)
    crafted_policy(policy_file, marker)
    return game, data_file, policy_file, marker


def test_the_payloads_are_live(files):
    """Without the project's loader the crafted files do run code: the tests below mean something."""
    from sb3_contrib import MaskablePPO

    game, data_file, policy_file, marker = files
    try:
        MaskablePPO.load(data_file, device="cpu")
    except Exception:
        pass  # the payload replaced the observation space: SB3 may fail after running it
    assert os.path.isdir(marker)
    os.rmdir(marker)
    with zipfile.ZipFile(policy_file) as archive:
        from io import BytesIO

        torch.load(BytesIO(archive.read(POLICY_NAME)), weights_only=False)
    assert os.path.isdir(marker)


def test_load_network_and_make_agent(files):
    game, data_file, policy_file, marker = files
    net = load_network(data_file, game)  # SB3's data is never read: the file plays normally
    agent = make_agent(f"ppo:{data_file}", game)
    play_game(game, [agent, make_agent("random", game, seed=0)], seed=0)
    assert net.num_actions == game.num_actions
    for source in (f"ppo:{policy_file}", policy_file):
        with pytest.raises(ValueError, match="policy.pth is not a plain tensor file"):
            load_network(source, game)
    with pytest.raises(ValueError, match="policy.pth is not a plain tensor file"):
        make_agent(f"ppo:{policy_file}", game)
    assert not os.path.exists(marker)


def test_the_terminal_game(files):
    game, data_file, policy_file, marker = files
    lines = []
    assert (
        terminal.main(
            ["wakanda", "--opponents", f"ppo:{data_file}", "--seed", "1"], read=lambda _: "q", write=lines.append
        )
        == 0
    )  # the game started; the human gave up at once
    with pytest.raises(SystemExit):
        terminal.main(["wakanda", "--opponents", f"ppo:{policy_file}"], read=lambda _: "q", write=lines.append)
    assert not os.path.exists(marker)


def test_the_benchmarks(files):
    from benchmarks.tournament.run import plan_tournament, play, summarize

    game, data_file, policy_file, marker = files
    plan = plan_tournament("wakanda", [f"ppo:{data_file}", "random"], 2)
    summary = summarize(plan, play(plan, processes=1, progress=False))
    assert len(summary.games) == 2 and not summary.failures
    with pytest.raises(ValueError, match="policy.pth is not a plain tensor file"):
        plan_tournament("wakanda", [f"ppo:{policy_file}", "random"], 2)
    assert not os.path.exists(marker)


def test_self_play_opponents(files):
    """A snapshot joins the league and is loaded when the league's games deal it."""
    from training.league import League
    from training.league_games import league_games

    game, data_file, policy_file, marker = files
    league = League(["self"])
    league.add_snapshot(data_file)
    env = league_games(game, 2, league, seed=0, reward="win")
    env.reset()
    env.step(np.array([np.flatnonzero(m)[0] for m in env.env_method("action_masks")]))
    league.add_snapshot(policy_file)
    env = league_games(game, 2, league, seed=0, reward="win")
    with pytest.raises(ValueError, match="policy.pth is not a plain tensor file"):
        env.reset()
    assert not os.path.exists(marker)


def test_train_resume_init_model_and_ppo_opponents(files, tmp_path):
    game, data_file, policy_file, marker = files
    base = [
        "--game",
        "wakanda",
        "--n-envs",
        "1",
        "--n-steps",
        "32",
        "--batch-size",
        "32",
        "--n-epochs",
        "1",
        "--net-arch",
        "16",
        "16",
        "--shared-layers",
        "0",
        "--eval-opponents",
        "random",
        "--eval-freq-games",
        "2",
        "--eval-games",
        "2",
        "--progress-bar",
        "false",
        "--warm-start",
        "none",
        "--init-model",
        "none",  # a new network of its own, not Wakanda's default start (the shipped model)
        "--opponents",
        "random",
    ]
    results = train.main(base + ["--timesteps", "32", "--resume", data_file, "--out", str(tmp_path / "resumed")])
    assert results["timesteps"] >= 64 + 32  # resumed at the card's step count
    results = train.main(base + ["--timesteps", "32", "--init-model", data_file, "--out", str(tmp_path / "init")])
    assert results["curve"][0]["timesteps"] == 0  # its weights, not its step count
    results = train.main(base[:-1] + [f"ppo:{data_file}", "--timesteps", "32", "--out", str(tmp_path / "vs")])
    assert results["timesteps"] >= 32
    for extra in (
        ["--resume", policy_file],
        ["--init-model", policy_file],
        ["--opponents", "random", f"ppo:{policy_file}"],
        ["--eval-opponents", f"ppo:{policy_file}"],
    ):
        with pytest.raises(SystemExit, match="policy.pth is not a plain tensor file"):
            train.main(base + ["--timesteps", "32", "--out", str(tmp_path / "refused")] + extra)
    assert not os.path.exists(tmp_path / "refused")
    assert not os.path.exists(marker)


def test_a_crafted_file_given_to_the_batch_examples_player_runs_no_code(tmp_path):
    """``examples/ppo_batch.py:BatchPPOAgent`` reads its ``.pt`` with ``torch.load(weights_only=True)``: a file
    whose pickle holds a payload is refused, and the payload never runs (``benchmarks.rate`` hands it any file)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "ppo_batch.py"
    spec = importlib.util.spec_from_file_location("ppo_batch_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    marker, crafted = tmp_path / "ran", tmp_path / "model.pt"
    torch.save({"sizes": Payload(str(marker)), "state_dict": {}}, crafted)
    with pytest.raises(pickle.UnpicklingError):
        example.BatchPPOAgent(model=str(crafted))
    assert not marker.exists()
