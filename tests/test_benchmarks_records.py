"""The protocol's deal sets and the records (benchmarks/core/protocol.py, records.py, arena.py, report.py):
disjoint deal sets, records that round-trip, pooling that refuses what cannot be pooled, and reports
that are a pure function of the records."""

import json
from pathlib import Path

import pytest

from benchmarks import pool_records
from benchmarks import report as report_command
from benchmarks.core import arena, provenance, records, report
from benchmarks.core.matches import AgentSpec, deal_seed
from benchmarks.core.protocol import DEAL_SETS, LADDERS, deal_seeds, deal_set_of, reference_tables
from benchmarks.core.records import Record
from envs.games import make_game

ROOT = Path(__file__).resolve().parent.parent


def test_tuning_and_test_deal_sets_never_overlap():
    (a, n), (b, m) = DEAL_SETS["tuning"], DEAL_SETS["test"]
    assert a + n <= b or b + m <= a
    tuning, test = set(deal_seeds("tuning", 1000)), set(deal_seeds("test", 1000))
    assert not tuning & test and len(test) == 1000
    assert deal_set_of(deal_seeds("test", 1, m - 1)[0]) == "test" and deal_set_of(b + m) is None
    with pytest.raises(ValueError, match="not within the test set"):
        deal_seeds("test", 2, m - 1)
    with pytest.raises(ValueError, match="deal set must be one of"):
        deal_seeds("fresh", 1)


def test_every_seed_the_older_benchmarks_drew_is_a_tuning_deal():
    # matches.deal_seed draws 32-bit seeds: no earlier run can have touched the test set
    for run in range(5):
        for deal in range(200):
            assert deal_set_of(deal_seed(run, deal)) == "tuning"


def test_the_ladder_places_every_rung_relative_to_the_anchors():
    rungs = list(LADDERS["full"].rungs)
    tables = [(hero.label, opponent.label) for hero, opponent in reference_tables(rungs)]
    assert tables[0] == ("heuristic", "random")
    assert all((rung.label, "heuristic") in tables for rung in rungs[2:])


def tiny_record() -> Record:
    """Random against the heuristic on three test deals of two-player Wapi (real games, a blink)."""
    random, heuristic = AgentSpec("random", "random"), AgentSpec("heuristic", "heuristic")
    agents = {"random": {"name": "random", "options": {}}, "heuristic": {"name": "heuristic", "options": {}}}
    run = records.new_run(["python", "-m", "test"], agents)
    tasks = arena.plan("wapi", {"num_players": 2}, [(heuristic, random)], "test", 3)
    return arena.play(tasks, run, progress=False)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_record_round_trips_and_is_never_overwritten(tmp_path, suffix):
    record = tiny_record()
    assert len(record.games) == 6 and not record.failures  # 3 deals x 2 rotations
    game = record.games[0]
    assert game["seed"] == deal_seeds("test", 1)[0] and game["deal_set"] == "test"
    assert game["config"]["num_players"] == 2 and len(game["cpu_us"]) == 2
    assert all(isinstance(t, int) and t >= 0 for seat in game["cpu_us"] for t in seat)
    assert sum(len(seat) for seat in game["cpu_us"]) == game["moves"]
    path = records.write(record, tmp_path / f"r{suffix}")
    again = records.read([path])
    assert list(again.lines()) == json.loads(json.dumps(list(record.lines())))
    with pytest.raises(ValueError, match="not overwritten"):
        records.write(record, path)
    if suffix == ".jsonl.gz":  # the same record, the same bytes
        assert records.write(again, tmp_path / "s.jsonl.gz").read_bytes() == path.read_bytes()


def test_pooling_refuses_a_game_played_twice_and_a_label_meaning_two_agents(tmp_path):
    record = tiny_record()
    a = records.write(record, tmp_path / "a.jsonl")
    with pytest.raises(ValueError, match="played twice"):
        records.read([a, a])
    other = tiny_record()
    other.runs[0]["agents"]["heuristic"] = {"name": "ismcts", "options": {}}
    for line in other.games:
        line["seed"] += 100
    b = records.write(other, tmp_path / "b.jsonl")
    with pytest.raises(ValueError, match="'heuristic' means"):
        records.read([a, b])
    other.runs[0]["agents"]["heuristic"] = record.runs[0]["agents"]["heuristic"]
    other.runs[0]["protocol"] = "drawluck-bench v1"
    c = records.write(other, tmp_path / "c.jsonl")
    with pytest.raises(ValueError, match="different protocols"):
        records.read([a, c])


def test_pool_command_concatenates_runs(tmp_path):
    first, second = tiny_record(), tiny_record()
    for line in second.games:
        line["seed"] += 7  # another deal
    second.runs[0]["run"] = "other"
    for line in second.games:
        line["run"] = "other"
    paths = [records.write(first, tmp_path / "1.jsonl"), records.write(second, tmp_path / "2.jsonl.gz")]
    assert pool_records.main([*map(str, paths), "--out", str(tmp_path / "pooled.jsonl.gz")]) == 0
    pooled = records.read([tmp_path / "pooled.jsonl.gz"])
    assert len(pooled.runs) == 2 and len(pooled.games) == 12


def test_pool_command_leaves_out_a_run_whose_games_were_played_again(tmp_path, capsys):
    """A run replaced by one played again (the same games from a clean checkout) is left out by its id, so the
    pool holds each game once; without --leave-out the pool is refused, and an id in no record is refused too."""
    first, again = tiny_record(), tiny_record()
    again.runs[0]["run"] = "again"
    for line in again.games:
        line["run"] = "again"
    paths = [str(records.write(first, tmp_path / "1.jsonl")), str(records.write(again, tmp_path / "2.jsonl"))]
    with pytest.raises(SystemExit):
        pool_records.main([*paths, "--out", str(tmp_path / "twice.jsonl.gz")])
    assert "game played twice" in capsys.readouterr().err
    left = first.runs[0]["run"]
    assert pool_records.main([*paths, "--leave-out", left, "--out", str(tmp_path / "pooled.jsonl.gz")]) == 0
    pooled = records.read([tmp_path / "pooled.jsonl.gz"])
    assert [run["run"] for run in pooled.runs] == ["again"] and len(pooled.games) == len(again.games)
    with pytest.raises(SystemExit):
        pool_records.main([*paths, "--leave-out", "nosuchrun", "--out", str(tmp_path / "none.jsonl.gz")])
    assert "--leave-out: no run ['nosuchrun']" in capsys.readouterr().err
    assert not (tmp_path / "twice.jsonl.gz").exists() and not (tmp_path / "none.jsonl.gz").exists()


def test_a_report_is_made_from_the_record_alone_byte_for_byte(tmp_path):
    path = records.write(tiny_record(), tmp_path / "r.jsonl.gz")
    outs = [tmp_path / "one.md", tmp_path / "two.md"]
    for out in outs:
        assert report_command.main([str(path), "--out", str(out), "--allow-dirty"]) == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()
    text = outs[0].read_text()
    assert "## wapi 2p" in text and "| heuristic | `heuristic` | 1,000 | [1,000, 1,000] | 6 |" in text


def test_without_the_anchors_a_report_has_no_ratings_at_a_glance():
    """Two configurations, neither with random and the heuristic both at a table: no ratings, so no empty
    summary table; each configuration says why it has no rating."""
    heuristic, beginner = AgentSpec("heuristic", "heuristic"), AgentSpec("beginner", "heuristic~0.5")
    agents = {"heuristic": {"name": "heuristic", "options": {}}, "beginner": {"name": "heuristic~0.5", "options": {}}}
    run = records.new_run(["python", "-m", "test"], agents)
    tasks = [
        task for n in (2, 3) for task in arena.plan("wapi", {"num_players": n}, [(heuristic, beginner)], "test", 1)
    ]
    text = report.markdown(arena.play(tasks, run, progress=False), "Two tables")
    assert "## wapi 2p" in text and "## wapi 3p" in text and "Ratings at a glance" not in text
    assert text.count("(no rating: the anchors ['random', 'heuristic'] did not both play)") == 2


def test_the_ladders_best_rung_plays_wherever_best_is_a_guided_search():
    """best is a rung where it is not plain ISMCTS (already a rung): guided by a shipped model, or by the
    heuristic in Samurai without one; not in Wapi, where it is plain ISMCTS."""
    best = next(rung for rung in LADDERS["quick"].rungs if rung.name == "best")
    configs = {"wakanda": {}, "samurai": {"num_players": 4}, "wapi": {"num_players": 4}}
    assert {name: best.applies(make_game(name, **config)) for name, config in configs.items()} == {
        "wakanda": True,
        "samurai": True,
        "wapi": False,
    }


def results_files() -> dict[Path, bytes]:
    """Every committed report's bytes, by path."""
    folders = [ROOT / "benchmarks" / "results", ROOT / "research" / "results"]
    return {path: path.read_bytes() for folder in folders for path in folder.rglob("*") if path.is_file()}


def test_the_strength_benchmark_writes_no_committed_file_by_default(tmp_path, monkeypatch):
    from research import strength

    committed = results_files()
    monkeypatch.setattr(records, "ROOT", tmp_path)  # where the run's default output goes
    strength.main(["--only", "wakanda-heuristic-random", "--games", "2", "--processes", "1"])
    assert results_files() == committed
    (written,) = (tmp_path / "runs" / "bench").glob("strength-*.md")
    assert "wakanda-heuristic-random" in written.read_text()


def test_no_benchmark_gives_its_out_option_a_default():
    """No command writes over a committed report unless ``--out`` names it: an ``--out`` has no default
    (each command then picks a new file under runs/bench/, as the tests below check for some)."""
    import ast

    commands = [*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "research").glob("*.py"), ROOT / "web" / "load.py"]
    for path in sorted(commands):
        for call in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(call, ast.Call)
                and getattr(call.func, "attr", "") == "add_argument"
                and call.args
                and getattr(call.args[0], "value", None) == "--out"
            ):
                default = next((k.value for k in call.keywords if k.arg == "default"), None)
                assert default is None or getattr(default, "value", "") is None, f"{path.name}: --out has a default"


@pytest.mark.parametrize("module", ["search_speed", "batch_rollouts"])
def test_a_speed_benchmark_writes_no_committed_file_by_default(tmp_path, monkeypatch, module):
    import importlib

    benchmark = importlib.import_module(f"benchmarks.{module}")
    results = ROOT / "benchmarks" / "results"
    before = {p.name: p.read_bytes() for p in results.glob("*.md")}
    monkeypatch.setattr(records, "ROOT", tmp_path)  # where the run's default output goes
    monkeypatch.setattr(benchmark, "positions", lambda game, real=benchmark.positions: real(game)[:2])
    argv = ["--rounds", "1"] + (["--iterations", "4"] if module == "search_speed" else ["--budgets", "0.01"])
    benchmark.main(argv)
    assert {p.name: p.read_bytes() for p in results.glob("*.md")} == before
    (written,) = (tmp_path / "runs" / "bench").glob(f"{module}*.md")
    assert f"python -m benchmarks.{module} --rounds 1" in written.read_text()


def test_a_v2_record_names_its_origin_and_a_dirty_one_is_refused_by_the_reports(tmp_path, capsys):
    record = tiny_record()
    (run,) = record.runs
    origin = run["provenance"]
    assert run["schema"] == 2 and set(run["engines"]) == {"wapi", "samurai", "wakanda"}
    assert {"commit", "dirty", "python", "numpy", "torch", "cpu"} <= set(origin) and origin["cpu"]
    assert all(len(agent["anchor"]) == 64 for agent in run["agents"].values())
    for dirty in (True, False):
        origin["dirty"] = dirty
        path = records.write(record, tmp_path / f"{dirty}.jsonl")
        if dirty:
            with pytest.raises(SystemExit):
                report_command.main([str(path), "--out", str(tmp_path / "page.md")])
            assert "dirty checkout" in capsys.readouterr().err
        else:
            assert report_command.main([str(path), "--out", str(tmp_path / "page.md")]) == 0
    page = (tmp_path / "page.md").read_text()
    assert "clean checkout; Python " in page
    assert "| 95% interval (t, deals − 1 df) |" in page  # v2 tables name their small-sample intervals


def test_every_v2_line_is_checked_against_the_schema_and_engines_never_pool(tmp_path):
    record = tiny_record()
    record.games[1]["winners"] = ["first"]
    with pytest.raises(ValueError, match=r"line 3 \(game\) breaks record-v2.schema.json: winners/0"):
        records.write(record, tmp_path / "bad.jsonl")
    record.games[1]["winners"] = [0]
    path = records.write(record, tmp_path / "good.jsonl")
    lines = path.read_text().splitlines()
    forged = json.loads(lines[0]) | {"provenance": {"commit": "abc"}}
    (tmp_path / "forged.jsonl").write_text("\n".join([json.dumps(forged), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="line 1 \\(run\\) breaks record-v2.schema.json: provenance"):
        records.read([tmp_path / "forged.jsonl"])
    other = tiny_record()
    other.runs[0]["engines"]["wapi"] = "0" * 64
    for line in other.games:
        line["seed"] += 100
    with pytest.raises(ValueError, match="different wapi engines"):
        records.read([path, records.write(other, tmp_path / "other.jsonl")])


def test_a_resumed_studys_own_record_does_not_make_its_checkout_dirty_and_nothing_else_is_excused(monkeypatch):
    """Issue 49, provenance: a study appends to its record a deal at a time, so a resumed run finds that file
    untracked. It is the run's output, not a change to the code: left out of the check, and a run made before
    (marked dirty) is told apart by its digest. Any other change is still dirt, and the reports refuse it."""
    own = provenance.ROOT / "research" / "records" / "skill_curve" / "x.jsonl"
    for status, excused in (("?? research/records/skill_curve/x.jsonl\n", True), ("?? x.py\n", False)):
        both = "?? research/records/skill_curve/x.jsonl\n" + ("" if excused else status)
        answers = {"rev-parse": "abc\n", "status": both, "diff": ""}
        monkeypatch.setattr(provenance, "_git", lambda *args, answers=answers: answers[args[0]])
        assert provenance.checkout(own)["dirty"] is not excused
        marked = provenance.checkout()  # as a run made before the own record was left out
        assert marked["dirty"] and provenance.dirty_by_own_record_only(marked, own.with_suffix(".jsonl.gz")) is excused
        record = tiny_record()
        record.runs[0]["provenance"] |= marked
        if excused:
            report.refuse_dirty(record, own)
        else:
            with pytest.raises(ValueError, match="dirty checkout"):
                report.refuse_dirty(record, own)
        with pytest.raises(ValueError, match="dirty checkout"):  # without its file, no run is excused
            report.refuse_dirty(record)
