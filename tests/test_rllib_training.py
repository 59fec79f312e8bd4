"""train.py --backend rllib end to end (a tiny run on a local Ray with one remote env runner), the
checkpoints as ``rllib:PATH`` agents, and what may never happen when one is loaded: code from a file run,
or a policy of another game or configuration played.
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
import ray
import torch

import train
from agents import make_agent, play_game
from agents.models.rllib_policy import CARD_FILE, WEIGHTS_FILE, MaskedPolicy
from envs.games import make_game
from training.win_rates import wilson_interval

pytestmark = pytest.mark.slow

TINY = [
    "--backend",
    "rllib",
    "--game",
    "wakanda",
    "--timesteps",
    "600",
    "--n-envs",
    "2",
    "--n-steps",
    "150",
    "--batch-size",
    "100",
    "--n-epochs",
    "1",
    "--net-arch",
    "16",
    "16",
    "--opponents",
    "random",
    "heuristic",
    "self",
    "--eval-opponents",
    "random",
    "heuristic",
    "--eval-freq",
    "300",
    "--snapshot-freq",
    "300",
    "--eval-freq-games",
    "4",
    "--eval-games",
    "8",
    "--progress-bar",
    "false",
    "--seed",
    "3",
    "--num-env-runners",
    "1",
]


@pytest.fixture(scope="module")
def rllib_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rllib") / "run"
    results = train.main(TINY + ["--out", str(out)])
    return out, results


def run_error(argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        train.main(argv)
    return str(exit_info.value.code)


class Payload:
    """Unpickling this creates a folder: the proof that code from a file ran."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


# --- the run ------------------------------------------------------------------------------
def test_the_run_trains_evaluates_and_reports_like_the_sb3_path(rllib_run):
    out, results = rllib_run
    for name in (
        "args.json",
        "results.json",
        "results.md",
        "learning_curve.png",
        "checkpoint/" + CARD_FILE,
        "checkpoint/" + WEIGHTS_FILE,
        "last_checkpoint/" + CARD_FILE,
        "checkpoint/rllib_checkpoint.json",
    ):
        assert (out / name).is_file(), name
    assert results["backend"] == "rllib" and results["num_env_runners"] == 1
    assert results["timesteps"] >= 600 and results["steps_per_second"] > 0
    assert "a local Ray" in results["cluster"]
    assert [row["opponent"] for row in results["final"]] == ["random", "heuristic"]
    for row in results["final"]:
        assert row["games"] == 8
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(row["win_rate"] * 8, 8))
    assert [p["timesteps"] for p in results["curve"]][0] == 0 and len(results["curve"]) >= 3
    members = [row["member"] for row in results["league"]]
    assert members[:2] == ["random", "heuristic"] and all(m.startswith("snapshot_") for m in members[2:])
    assert "snapshot_0" in os.listdir(out / "snapshots"), "the learner as it starts is the first snapshot"
    assert sum(row["games"] for row in results["league"]) > 0 and len(members) > 2
    assert json.loads((out / "results.json").read_text())["final"] == results["final"]
    table = (out / "results.md").read_text()
    assert "| random | 8 |" in table and "| heuristic | 8 |" in table
    assert sorted(os.listdir(out / "snapshots")) == [
        f"snapshot_{s}" for s in sorted(int(n.split("_")[1]) for n in os.listdir(out / "snapshots"))
    ] and os.listdir(out / "snapshots")
    assert not ray.is_initialized(), "the local Ray is shut down"


def test_the_checkpoint_plays_as_an_rllib_agent_and_as_evaluated(rllib_run):
    out, results = rllib_run
    game = make_game("wakanda")
    agent = make_agent(f"rllib:{out}/checkpoint", game)
    for seed in range(3):
        outcome = play_game(game, [agent, make_agent("random", game, seed=seed)], seed=seed)
        assert outcome.moves > 0
    from training.win_rates import evaluate

    again = evaluate(MaskedPolicy.load(out / "checkpoint", game), game, "random", 8, seed=20_000)
    assert again == results["final"][0], "the final table is the saved policy's"


def test_a_checkpoint_of_another_game_or_configuration_is_refused_before_torch_reads_it(rllib_run, tmp_path):
    out, _ = rllib_run
    copy = tmp_path / "checkpoint"
    copy.mkdir()
    (copy / CARD_FILE).write_text((out / "checkpoint" / CARD_FILE).read_text())
    marker = tmp_path / "ran"
    torch.save({"payload": Payload(marker)}, copy / WEIGHTS_FILE)  # never read: the card is refused first
    with pytest.raises(ValueError, match="trained for game 'wakanda', not 'wapi'"):
        make_agent(f"rllib:{copy}", make_game("wapi"))
    with pytest.raises(ValueError, match=r"trained for wakanda configuration \{'advanced': False\}"):
        make_agent(f"rllib:{copy}", make_game("wakanda", advanced=True))
    assert not marker.exists()


def test_no_pickle_in_a_checkpoint_is_ever_run(rllib_run, tmp_path):
    """RLlib's own checkpoint files are pickles: replace each with one that runs code, and load and play."""
    out, _ = rllib_run
    import shutil

    crafted = tmp_path / "checkpoint"
    shutil.copytree(out / "checkpoint", crafted)
    marker = tmp_path / "ran"
    pickles = list(crafted.rglob("*.pkl"))
    assert pickles, "RLlib wrote pickles into the checkpoint"
    for path in pickles:
        path.write_bytes(pickle.dumps(Payload(marker)))
    game = make_game("wakanda")
    play_game(game, [make_agent(f"rllib:{crafted}", game), make_agent("random", game, seed=0)], seed=0)
    assert not marker.exists(), "the RLlib pickles were not read"
    torch.save({"layers.0.weight": Payload(marker)}, crafted / WEIGHTS_FILE)  # the weights file itself
    with pytest.raises(ValueError, match="is not a plain torch state_dict"):
        make_agent(f"rllib:{crafted}", game)
    assert not marker.exists(), "torch.load(weights_only=True) refused the payload"


def test_broken_checkpoints_are_refused_by_name(rllib_run, tmp_path):
    out, _ = rllib_run
    game = make_game("wakanda")
    with pytest.raises(ValueError, match="not found"):
        make_agent(f"rllib:{tmp_path / 'nowhere'}", game)
    with pytest.raises(ValueError, match=f"holds no {CARD_FILE}"):
        make_agent(f"rllib:{tmp_path}", game)
    with pytest.raises(ValueError, match="rllib:PATH"):
        make_agent("rllib:", game)
    bad = tmp_path / "bad"
    bad.mkdir()
    card = json.loads((out / "checkpoint" / CARD_FILE).read_text())
    (bad / CARD_FILE).write_text(json.dumps({**card, "hidden": [16, 17]}))
    torch.save(torch.load(out / "checkpoint" / WEIGHTS_FILE, weights_only=True), bad / WEIGHTS_FILE)
    with pytest.raises(ValueError, match="does not hold the network its card describes"):
        make_agent(f"rllib:{bad}", game)
    (bad / CARD_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        make_agent(f"rllib:{bad}", game)


# --- bad input: a message, and nothing left running ----------------------------------------
def test_rllib_options_need_the_rllib_backend():
    assert "options of --backend rllib" in run_error(["--game", "wakanda", "--num-env-runners", "2"])
    assert "options of --backend rllib" in run_error(["--game", "wakanda", "--ray-address", "auto"])


def test_sb3_only_options_are_refused_with_rllib(tmp_path):
    assert "not an option of --backend rllib" in run_error(TINY + ["--resume", str(tmp_path / "model.zip")])
    message = run_error(TINY + ["--warm-start", "heuristic", "--league", "uniform"])
    assert "--warm-start, --league: not an option of --backend rllib" in message
    assert "--num-env-runners must be 0" in run_error(TINY[:-1] + ["-1"])


def test_an_unreachable_cluster_ends_with_a_message_and_nothing_running(tmp_path):
    message = run_error(TINY + ["--ray-address", "127.0.0.1:1", "--out", str(tmp_path / "run")])
    assert "cannot reach a Ray cluster at 127.0.0.1:1" in message
    assert not ray.is_initialized() and not (tmp_path / "run").exists()


def test_the_scaling_benchmark_trains_rllib_as_train_py_builds_it():
    """benchmarks.scale's RLlib part drives the league the way training does (it once called a method the league
    no longer had): a few learner steps at small settings, measured."""
    import envs
    from benchmarks import scale
    from training.settings import game_training

    hp = dict(game_training("wakanda"), n_steps=16, n_envs=4, batch_size=64, n_epochs=1)
    rate = scale.rllib_steps_per_second(envs.describe("wakanda").make(), ["random", "heuristic"], hp, 64, 0, 0)
    assert rate > 0
