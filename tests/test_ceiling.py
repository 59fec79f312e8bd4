"""The skill-ceiling command (research.ceiling): its record, its report from the record, its refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.core import records, report
from benchmarks.core.protocol import deal_seeds
from benchmarks.core.rating import anchored_ratings
from benchmarks.core.records import ROOT, Record
from research import ceiling


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One quick run on Wakanda: budgets 0.002 and 0.004 s, 2 test deals (a few seconds)."""
    folder = tmp_path_factory.mktemp("ceiling")
    record_path, out = folder / "run.jsonl.gz", folder / "run.md"
    rc = ceiling.main(["--game", "wakanda", "--quick", "--record", str(record_path), "--out", str(out)])
    return rc, record_path, out


def test_the_record_holds_every_table_deal_and_rotation(quick_run):
    rc, record_path, _ = quick_run
    assert rc == 0
    record = records.read([record_path])
    assert not record.failures
    _, tables, _ = ceiling.design(list(ceiling.QUICK_BUDGETS), with_best=False)
    deals = {("heuristic", "random"): ceiling.QUICK_ANCHOR_DEALS}  # the anchors' table on more (cheap) deals
    expected = {(hero, opponent, seed, rotation) for hero, opponent in tables
                for seed in deal_seeds("test", deals.get((hero, opponent), 2)) for rotation in range(2)}  # fmt: skip
    played = [(*g["table"], g["seed"], g["seating"]) for g in record.games]
    assert sorted(played) == sorted(expected)  # each game once, none missing
    assert {g["deal_set"] for g in record.games} == {"test"}
    for g in record.games:  # every move of every seat timed
        assert len(g["cpu_us"]) == len(g["seats"]) and all(len(c) > 0 for c in g["cpu_us"])


def test_the_searchers_think_their_budget_in_cpu_seconds(quick_run):
    _, record_path, _ = quick_run
    record = records.read([record_path])
    agents = {label: {k: entry[k] for k in ("name", "options")} for label, entry in record.agents().items()}
    assert agents["ismcts-0.002s"] == {"name": "ismcts", "options": {"time_limit": 0.002}}
    assert agents["heuristic"] == {"name": "heuristic", "options": {}}  # (each also with its anchor identity, v2)


def test_the_report_regenerates_identically_from_the_record(quick_run):
    _, record_path, out = quick_run
    text, plot = out.read_text(), out.with_suffix(".png")
    image = plot.read_bytes() if plot.exists() else None
    out.unlink()
    assert ceiling.main(["--from-record", str(record_path), "--out", str(out)]) == 0
    assert out.read_text() == text
    assert (plot.read_bytes() if plot.exists() else None) == image
    for label in ("ismcts-0.002s", "ismcts-0.004s", "heuristic", "random"):
        assert f"| {label} |" in text


def test_reuse_extends_a_run_without_playing_its_games_again(quick_run, tmp_path):
    _, record_path, _ = quick_run
    old = records.read([record_path])
    path = tmp_path / "more.jsonl"
    argv = ["--game", "wakanda", "--quick", "--deals", "3", "--reuse", str(record_path), "--record", str(path)]
    assert ceiling.main([*argv, "--out", str(tmp_path / "more.md")]) == 0
    more = records.read([path])
    kept = [g for g in more.games if g["run"] == old.runs[0]["run"]]
    assert sorted(map(records.game_identity, kept)) == sorted(map(records.game_identity, old.games))
    new = [g for g in more.games if g["run"] != old.runs[0]["run"]]
    assert {g["deal"] for g in new} == {2} and len(new) == 2 * (len(ceiling.design([1, 2], False)[1]) - 1)
    assert len(more.runs) == 2


def synthetic_record(deals: int = 30) -> Record:
    """Two-player games on ``deals`` deals where a stronger agent wins more often: finite intervals."""
    strength = {"random": 0.0, "heuristic": 1.0, "ismcts-0.1s": 1.5, "ismcts-1s": 2.0}
    agents = {"random": {"name": "random", "options": {}}, "heuristic": {"name": "heuristic", "options": {}}}
    agents |= {f"ismcts-{b}s": {"name": "ismcts", "options": {"time_limit": b}} for b in (0.1, 1)}
    run = {"kind": "run", "run": "r", "protocol": "p", "command": "c", "version": "v", "started": "s", "agents": agents}
    rng = np.random.default_rng(5)
    tables = [("heuristic", "random"), ("ismcts-0.1s", "heuristic"), ("ismcts-1s", "heuristic"),
              ("ismcts-1s", "ismcts-0.1s")]  # fmt: skip
    games = []
    for seed in range(deals):
        for hero, opponent in tables:
            for seating, seats in enumerate(([hero, opponent], [opponent, hero])):
                p = 1 / (1 + math.exp(strength[seats[1]] - strength[seats[0]]))
                winner = 0 if rng.random() < p else 1
                scores = [1.0 if s == winner else 0.0 for s in range(2)]
                games.append({"kind": "game", "run": "r", "game": "wakanda", "config": {}, "deal_set": "test",
                              "deal": seed, "seed": seed, "seating": seating, "seats": seats,
                              "table": [hero, opponent], "scores": scores, "winners": [winner],
                              "moves": 2, "cpu_us": [[1000], [1000]]})  # fmt: skip
    return Record(runs=[run], games=games)


def test_intervals_contain_the_estimate_and_order_by_budget():
    rows = ceiling.curve_rows(synthetic_record())
    assert [row[0] for row in rows] == ["random", "heuristic", "ismcts-0.1s", "ismcts-1s"]
    for label, _, rating, _, _ in rows:
        assert rating.low <= rating.value <= rating.high, label
    searchers = [row[2] for row in rows[2:]]
    assert all(math.isfinite(r.low) and math.isfinite(r.high) and r.high > r.low for r in searchers)


def test_a_v1_record_is_reported_with_the_small_sample_intervals():
    """Issue 49: a record without a schema version (v1) gets the expanded bootstrap and t intervals too, named
    in every table's header."""
    record = synthetic_record(deals=12)
    small = {r.name: r for r in anchored_ratings(record.games)}
    plain = {r.name: r for r in anchored_ratings(record.games, small_sample=False)}
    for label, _, rating, _, _ in ceiling.curve_rows(record):
        assert rating == small[label] and rating.low <= plain[label].low and rating.high >= plain[label].high
    text = ceiling.markdown(record, ["r.jsonl"], None)
    assert f"| rating | {report.RATING_INTERVAL} | games | moves |" in text
    assert f"| win share | {report.SHARE_INTERVAL} | games | deals |" in text


@pytest.mark.parametrize(
    ("budgets", "word"),
    [
        (["0"], "positive"),
        (["-0.1"], "positive"),
        (["nan"], "finite"),
        (["inf"], "finite"),
        (["0.1", "0.03"], "increasing"),
        (["0.1", "0.1"], "increasing"),
    ],  # fmt: skip
)
def test_bad_budgets_are_refused_naming_the_argument(budgets, word, tmp_path, capsys):
    record = tmp_path / "r.jsonl.gz"
    with pytest.raises(SystemExit):
        ceiling.main(["--game", "wakanda", "--budgets", *budgets, "--record", str(record)])
    err = capsys.readouterr().err
    assert "--budgets" in err and word in err
    assert not record.exists()


def test_bad_deals_and_missing_game_are_refused(tmp_path, capsys):
    record = tmp_path / "r.jsonl.gz"
    with pytest.raises(SystemExit):
        ceiling.main(["--game", "wakanda", "--deals", "1", "--record", str(record)])
    assert "--deals" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ceiling.main(["--game", "wakanda", "--deals", "5", "--anchor-deals", "4", "--record", str(record)])
    assert "--anchor-deals" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ceiling.main(["--budgets", "0.1"])
    assert "--game" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ceiling.main(["--from-record", str(record)])
    assert "--out" in capsys.readouterr().err
    assert not record.exists()


def test_check_budgets_refuses_non_numbers():
    for bad in ([True], ["1"], []):
        with pytest.raises(ValueError, match="--budgets"):
            ceiling.check_budgets(bad)
    assert ceiling.check_budgets([0.01, 1]) == [0.01, 1.0]


def test_a_report_of_two_configurations_is_refused():
    record = synthetic_record(deals=3)
    other = synthetic_record(deals=3)
    for game in other.games:
        game["game"] = "wapi"
    record.games += other.games
    with pytest.raises(ValueError, match="one configuration"):
        ceiling.curve_rows(record)


COMMITTED = sorted((ROOT / "research" / "results").glob("ceiling_*.md"))
