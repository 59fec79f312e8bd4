"""Search distillation (training/distill): the command runs end to end and its network plays, an
interrupted run resumes to exactly the uninterrupted one (between generations and inside one, from its
shards), bad input is refused before anything is written, the teacher's records hold proper targets, a
fit learns them, the cards name the run and its cost, and no file it reads runs code."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
import torch
from test_model_file_safety import Payload, crafted_policy

from agents import make_agent, play_game
from agents.models.card import network_description
from agents.models.files import read_card
from agents.models.network import load_network
from envs.games import make_game
from training.distill import ship
from training.distill.command import main
from training.distill.learn import fit, load_records, save_records
from training.distill.selfplay import RECORD_FIELDS, play_selfplay
from training.network import new_network, save_network

TINY = [
    "--game",
    "wakanda",
    "--games",
    "2",
    "--iterations",
    "6",
    "--gate-games",
    "2",
    "--heuristic-games",
    "2",
    "--shard-games",
    "1",
    "--warm-start-games",
    "4",
    "--processes",
    "1",
    "--progress-bar",
    "false",
    "--epochs",
    "1",
]


def history(out) -> list[dict]:
    """The run's history without its timings."""
    rows = json.loads((out / "state.json").read_text())["history"]
    return [{k: v for k, v in row.items() if not k.endswith("seconds")} for row in rows]


def test_a_run_resumed_after_an_interruption_is_the_uninterrupted_run(tmp_path):
    """Generation 1, then half of generation 2's shards (as a run stopped inside it leaves them), then
    --resume up to 2, gives the same games, fits and gates as 2 at once; the outputs are there, the
    cards name the run, its teacher and its cost, and the best network plays."""
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    main(TINY + ["--generations", "2", "--out", str(straight)])
    main(TINY + ["--generations", "1", "--out", str(resumed)])
    (resumed / "data" / "gen_002").mkdir()
    shutil.copy(straight / "data" / "gen_002" / "shard_0000.npz", resumed / "data" / "gen_002")
    main(["--out", str(resumed), "--resume", "--generations", "2", "--progress-bar", "false"])
    assert history(straight) == history(resumed)
    assert len(history(straight)) == 3 and all("gate_win_rate" in row for row in history(straight)[1:])
    for name in ("model.zip", "models/gen_002.zip", "data/gen_002/shard_0001.npz", "card.md", "settings.json"):
        assert (straight / name).exists(), name
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(straight / "tb"))
    card = read_card(str(straight / "models" / "gen_002.zip"))
    assert card["command"].startswith("python -m training.distill --game wakanda")
    distill = card["training"]["distill"]
    assert (distill["generation"], distill["run"], distill["teacher"]["kind"]) == (2, "straight", "best")
    assert distill["data"]["positions"] > 0 and distill["cpu_hours"] > 0
    assert "| 2 | best 6 |" in (straight / "card.md").read_text()
    game = make_game("wakanda")
    agent = make_agent(f"ppo:{straight / 'model.zip'}", game)
    assert play_game(game, [agent, make_agent("random", game, seed=1)], seed=3).winners


@pytest.fixture
def samurai_model(tmp_path):
    torch.manual_seed(0)
    return save_network(
        new_network(make_game("samurai", num_players=2), network_description([8]), "test"), str(tmp_path / "samurai2")
    )


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--games", "0"], "--games must be at least 1"),
        (["--num-players", "3"], "--num-players is not an option of wakanda"),
        (["--search-option", "value_mix=2"], r"value_mix must be 'auto' or a number in \[0, 1\]"),
        (["--search-option", "depth=3"], "--search-option: .*unexpected keyword argument 'depth'"),
        (["--search-option", "iterations=3"], "the budget is --iterations"),
        (["--ray-address", "localhost:1"], "--ray-address is an option of --backend ray"),
        (["--start", "random"], "--start must be one of"),
        (["--start", "transfer:SAMURAI"], "its game is .samurai., not .wakanda.: no transfer"),
        (["--start", "ppo:SAMURAI"], "trained for game 'samurai', not 'wakanda'"),
        (["--resume"], "holds no run to continue"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path, samurai_model, extra, message):
    out = tmp_path / "run"
    extra = [e.replace("SAMURAI", samurai_model) for e in extra]
    with pytest.raises(SystemExit, match=message):
        main(TINY + ["--generations", "1", "--out", str(out)] + extra)
    assert not out.exists() or not any(out.iterdir())


def test_a_resumed_run_keeps_its_settings_and_a_finished_one_is_not_overwritten(tmp_path):
    out = tmp_path / "run"
    main(TINY + ["--generations", "1", "--out", str(out)])
    with pytest.raises(SystemExit, match="holds a run already: pass --resume"):
        main(TINY + ["--generations", "1", "--out", str(out)])
    with pytest.raises(SystemExit, match="only --generations, .* may be given, not --epochs"):
        main(["--out", str(out), "--resume", "--epochs", "8"])


def test_no_file_the_run_reads_executes_code(tmp_path, samurai_model):
    """A crafted --start model is refused by the safe loader; a dataset holding a pickled object is
    refused by the record loader (plain arrays only)."""
    marker = str(tmp_path / "payload-ran")
    crafted_policy(samurai_model, marker)
    with pytest.raises(SystemExit, match="policy.pth is not a plain tensor file"):
        main(
            TINY
            + [
                "--game",
                "samurai",
                "--num-players",
                "2",
                "--start",
                f"ppo:{samurai_model}",
                "--out",
                str(tmp_path / "run"),
            ]
        )
    records = {name: np.zeros(1) for name in RECORD_FIELDS}
    records["obs"] = np.array([Payload(marker)], dtype=object)
    np.savez(tmp_path / "gen_001.npz", **records)
    with pytest.raises(ValueError, match="allow_pickle"):
        load_records([tmp_path / "gen_001.npz"])
    assert not os.path.exists(marker)


def test_self_play_records_hold_the_searchs_visits_and_the_movers_results(samurai_model):
    game = make_game("samurai", num_players=2)
    search = {"iterations": 8, "leaf_batch": 4}
    task = ("samurai", game.config(), "guided", samurai_model, search, [(5, 70), (6, 71)], 2, "win")
    records = play_selfplay(task)
    rows = len(records["values"])
    assert rows > 60 and {name: len(records[name]) for name in RECORD_FIELDS} == dict.fromkeys(RECORD_FIELDS, rows)
    policies = records["policies"].astype(np.float32)
    np.testing.assert_allclose(policies.sum(axis=1), 1, atol=1e-2)  # float16 storage
    assert not (policies[~records["masks"]]).any(), "visits only on legal moves"
    assert (records["masks"].sum(axis=1) > 1).all(), "forced moves are not recorded"
    assert set(records["games"]) == {70, 71}
    assert (np.abs(records["search_values"]) <= 1).all() and len(set(records["search_values"])) > 10
    for game_id in (70, 71):
        values = records["values"][records["games"] == game_id]
        assert set(values) <= {-1.0, 0.0, 1.0} and len(set(values)) in (1, 2)
    assert play_selfplay(task)["policies"].tobytes() == records["policies"].tobytes(), "seeded"


def test_a_fit_learns_the_visit_distributions_and_the_results():
    """On records whose targets depend on the observation, the fit lowers both held-out losses."""
    game = make_game("wakanda")
    torch.manual_seed(1)
    network = new_network(game, network_description([32]), "test")
    rng = np.random.default_rng(0)
    rows = 600
    obs = (rng.random((rows, game.observation_size)) < 0.3).astype(np.float16)
    masks = np.zeros((rows, game.num_actions), bool)
    masks[:, :6] = True
    policies = np.zeros((rows, game.num_actions), np.float16)
    favourite = np.where(obs[:, 0] > 0, 1, 4)
    policies[np.arange(rows), favourite] = 0.8
    policies[np.arange(rows), 2] = 0.2
    results = np.where(obs[:, 1] > 0, 1.0, -1.0).astype(np.float32)
    data = {
        "obs": obs,
        "masks": masks,
        "policies": policies,
        "values": results,
        "search_values": results * 0.5 + np.where(obs[:, 2] > 0, 0.4, -0.4),
        "games": np.arange(rows) // 10,
    }
    report = fit(
        network, data, epochs=30, batch_size=64, learning_rate=3e-3, value_weight=1.0, seed=0, search_value_weight=0.5
    )
    assert report["held_out_policy_loss"] < report["held_out_policy_loss_before"] - 0.3
    assert report["held_out_value_loss"] < report["held_out_value_loss_before"] / 2
    assert report["held_out_agreement"] > 0.85  # the favourite is one of two moves: chance is 50%


def test_records_survive_a_save_and_load(tmp_path, samurai_model):
    task = (
        "samurai",
        make_game("samurai", num_players=2).config(),
        "guided",
        samurai_model,
        {"iterations": 4},
        [(1, 0)],
        0,
        "win",
    )
    records = play_selfplay(task)
    save_records(records, tmp_path / "gen_001.npz")
    loaded = load_records([tmp_path / "gen_001.npz", tmp_path / "gen_001.npz"])
    for name in RECORD_FIELDS:
        assert np.array_equal(loaded[name], np.concatenate([records[name]] * 2))
    assert load_network(samurai_model, make_game("samurai", num_players=2)).num_actions == 294


def test_a_paired_flat_teacher_teaches_the_move_it_plays():
    """Wapi's plain search compares every move on the same samples (a paired flat root: equal visits), so its
    policy target is all on the move it plays, not uniform over the legal moves."""
    game = make_game("wapi", num_players=2)
    records = play_selfplay(("wapi", game.config(), "best", "", {"iterations": 40}, [(3, 0)], 0, "win"))
    policies = records["policies"].astype(np.float32)
    assert len(policies) > 10 and (policies.max(axis=1) == 1).all()
    assert records["masks"][np.arange(len(policies)), policies.argmax(axis=1)].all()
    assert records["cpu_seconds"] > 0


# --- shipping -------------------------------------------------------------------------------------------------
def test_shipping_copies_the_runs_best_network_and_the_table_says_what_its_card_says(tmp_path, monkeypatch):
    """``training.distill.ship RUN FILE``: the run's model.zip becomes the package's model of its configuration,
    the README's table is made again from the cards; a file that is no distilled network, or a second file for a
    shipped configuration, is refused and nothing is written."""
    run = tmp_path / "wk_run"
    main(TINY + ["--generations", "1", "--out", str(run)])
    package = tmp_path / "models"
    package.mkdir()
    readme = package / "README.md"
    readme.write_text(f"# Models\n\n{ship.BEGIN}\nstale\n{ship.END}\nafter\n")
    monkeypatch.setattr(ship, "SHIPPED_DIR", package.resolve())
    monkeypatch.setattr(ship, "README", readme)
    assert ship.main(["--check"]) == 1, "a stale table is found"
    assert ship.main([str(run / "models" / "gen_001.zip"), str(package / "wakanda_new.zip")]) == 0
    card = read_card(str(package / "wakanda_new.zip"))
    assert (
        card["training"]["distill"]["run"] == "wk_run" and card["config"] == read_card(str(run / "model.zip"))["config"]
    )
    text = readme.read_text()
    assert "| `wakanda_new.zip` | wakanda " in text and "of run `wk_run`" in text and "stale" not in text
    assert text.endswith("after\n") and ship.main(["--check"]) == 0
    with pytest.raises(SystemExit):
        ship.main([str(run / "models" / "gen_001.zip"), str(package / "another.zip")])  # the configuration has one
    with pytest.raises(SystemExit):
        ship.main([str(run / "models" / "gen_000.zip"), str(package / "wakanda_new.zip")])  # nothing distilled yet
    transfer = tmp_path / "transfer"  # a transfer start may be shipped: it is another configuration's network
    main(TINY + ["--generations", "1", "--start", "transfer:agents/models/wakanda.zip", "--advanced", "true"]
         + ["--out", str(transfer)])  # fmt: skip
    assert ship.main([str(transfer / "models" / "gen_000.zip"), str(package / "wakanda_advanced.zip")]) == 0
    assert "the start, `transfer:agents/models/wakanda.zip`" in readme.read_text()
    (tmp_path / "plain").mkdir()
    save_network(new_network(make_game("wakanda"), network_description([8]), "test"), str(tmp_path / "plain" / "model"))
    with pytest.raises(SystemExit):
        ship.main([str(tmp_path / "plain"), str(package / "plain.zip")])  # not made by training.distill
    assert sorted(p.name for p in package.glob("*.zip")) == ["wakanda_advanced.zip", "wakanda_new.zip"]


def test_the_packages_table_of_distilled_networks_is_made_from_their_cards():
    assert ship.main(["--check"]) == 0


def test_a_transfer_start_takes_another_configurations_weights_under_its_own_card():
    """``--start transfer:PATH``: two-player Samurai's shipped network as the start of three-player Samurai, the
    same weights under a card of the new configuration that says where they came from."""
    from agents.models.files import SHIPPED_DIR
    from training.network import transferred_network

    three = make_game("samurai", num_players=3)
    source = str(SHIPPED_DIR / "samurai2.zip")
    network = transferred_network(source, three, "test")
    assert network.card["config"] == three.config() and network.card["training"]["transferred_from"]["num_players"] == 2
    original = load_network(source, make_game("samurai", num_players=2)).module.state_dict()
    assert all(torch.equal(original[name], tensor) for name, tensor in network.module.state_dict().items())
    with pytest.raises(ValueError, match="no transfer to wakanda"):
        transferred_network(source, make_game("wakanda"), "test")


def test_the_heuristic_gate_keeps_a_network_only_above_the_best_ones_share_against_the_heuristic(tmp_path):
    """``--gate heuristic``: no head-to-head games; a generation is kept exactly when its share against the
    heuristic (on the curve's fixed deals) beats the share of the best network before it."""
    out = tmp_path / "run"
    main(TINY + ["--generations", "3", "--gate", "heuristic", "--heuristic-games", "6", "--out", str(out)])
    rows = json.loads((out / "state.json").read_text())["history"]
    best = rows[0]
    for row in rows[1:]:
        assert row["gate_games"] == row["heuristic_games"] == 6 and row["gate_win_rate"] == row["heuristic_share"]
        assert row["kept"] == (row["heuristic_share"] > best["heuristic_share"])
        best = row if row["kept"] else best
