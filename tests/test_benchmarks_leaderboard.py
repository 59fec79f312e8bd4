"""``python -m benchmarks.leaderboard`` (benchmarks/leaderboard.py): the reference ladder played into one
record per configuration, the page made from the records, and records never replaced."""

import pytest

from benchmarks import leaderboard
from benchmarks.core import records, report
from benchmarks.core.protocol import parse_config_label


def test_the_leaderboard_plays_the_ladder_into_records_and_makes_its_page_from_them(tmp_path, capsys):
    folder, page = tmp_path / "records", tmp_path / "page.md"
    argv = ["--quick", "--configs", "wapi 2p", "--deals", "2", "--records", str(folder), "--out", str(page)]
    assert leaderboard.main([*argv, "--no-progress", "--processes", "1", "--allow-dirty"]) == 0
    (path,) = folder.glob("*.jsonl.gz")
    assert path.name == "wapi_2p_quick.jsonl.gz"
    record = records.read([path])
    tables = {tuple(g["table"]) for g in record.games}
    assert tables == {
        ("heuristic", "random"),
        ("ismcts-20", "heuristic"),
        ("ismcts-50", "heuristic"),
        ("ismcts-50", "ismcts-20"),
    }
    offset = record.runs[0]["deal_offset"]  # fresh deals: drawn at random when the run starts, named in the record
    assert len(record.games) == len(tables) * 2 * 2 and {g["deal"] for g in record.games} == {offset, offset + 1}
    intro = report.leaderboard_intro(record, page.name)
    assert page.read_text() == report.markdown(record, "Leaderboard", intro, [path])
    assert f"--out docs/{page.name}`" in intro
    assert "--configs 'wapi 2p' --deals 2" in page.read_text()
    with pytest.raises(SystemExit):  # the same folder again: the record would be replaced
        leaderboard.main([*argv, "--no-progress"])
    assert "never replaced" in capsys.readouterr().err


def test_configurations_are_named_by_their_labels():
    assert parse_config_label("wapi 3p") == ("wapi", {"num_players": 3})
    assert parse_config_label("samurai") == ("samurai", {})
    with pytest.raises(ValueError, match="unknown configuration 'wapi 9p'"):
        parse_config_label("wapi 9p")


def test_the_ladder_plays_the_same_games_on_the_ray_backend():
    from benchmarks.core import arena, records
    from benchmarks.core.matches import AgentSpec
    from parallel.pool import RayBackend

    tables = [(AgentSpec("heuristic", "heuristic"), AgentSpec("random", "random"))]
    tasks = arena.plan("wakanda", {}, tables, "test", 3)
    run = records.new_run(["test"], {"heuristic": {"name": "heuristic", "options": {}}})
    with RayBackend(None, 1) as backend:
        on_ray = arena.play(tasks, run, backend, progress=False)
        assert "ray backend" in backend.describe()
    local = arena.play(tasks, run, progress=False)

    def games(record):
        return [{k: v for k, v in g.items() if k != "cpu_us"} for g in record.games]

    assert games(on_ray) == games(local) and len(local.games) == 6


def test_tables_play_a_part_of_the_ladder_into_a_record_named_by_them(tmp_path, capsys):
    folder, page = tmp_path / "records", tmp_path / "page.md"
    argv = ["--quick", "--configs", "wapi 2p", "--deals", "2", "--records", str(folder), "--out", str(page)]
    part = ["--tables", "ismcts-50 vs heuristic", "heuristic vs random"]
    assert leaderboard.main([*argv, *part, "--no-progress", "--processes", "1", "--allow-dirty"]) == 0
    (path,) = folder.glob("*.jsonl.gz")
    assert path.name == "wapi_2p_quick_ismcts-50_vs_heuristic_heuristic_vs_random.jsonl.gz"
    tables = {tuple(g["table"]) for g in records.read([path]).games}
    assert tables == {("ismcts-50", "heuristic"), ("heuristic", "random")}
    with pytest.raises(SystemExit):  # a table the ladder does not have is named with the ladder's tables
        leaderboard.main([*argv, "--tables", "best vs random", "--no-progress"])
    assert "'best vs random'] are not tables of the quick ladder on wapi 2p: choose from ['heuristic vs random'" in (
        capsys.readouterr().err
    )
    assert list(folder.glob("*.jsonl.gz")) == [path]  # refused before any game: nothing written
