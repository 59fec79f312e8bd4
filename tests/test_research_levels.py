"""``python -m research.levels``: each level against the one below on test deals, records in chunks
that a stopped run resumes, and a report (and the page's ratings) made from the records alone."""

from __future__ import annotations

import json

import pytest

import research.levels as levels
from agents.levels import LEVELS
from benchmarks.core.protocol import DEAL_SETS
from benchmarks.core.rating import Share


def test_each_level_meets_the_one_below_and_the_anchors_place_them():
    tables = levels.tables("samurai")
    heads = [(hero.label, opponent.label) for hero, opponent in tables]
    assert heads == [(f"level:{n}", f"level:{n - 1}") for n in range(2, 6)] + [
        ("heuristic", "random"),
        ("level:1", "random"),
    ]
    level5 = tables[3][0]
    assert (level5.name, dict(level5.options)) == (LEVELS[5].agent, LEVELS[5].options), "the record names the agent"
    assert [levels.searches(table) for table in tables] == [False, False, True, True, False, False]
    assert [levels.hero_level(table) for table in tables] == [2, 3, 4, 5, 0, 1], "what --up-to N filters on"


def test_up_to_plays_the_lower_levels_only(tmp_path, capsys):
    folder = tmp_path / "records"
    argv = ["play", "--configs", "wapi 2p", "--deals", "2", "--search-deals", "2", "--chunk", "2", "--up-to", "3"]
    assert levels.main([*argv, "--records", str(folder), "--out", str(tmp_path / "l.md"), "--processes", "1"]) == 0
    played = sorted(p.name.removeprefix("wapi_2p_").removesuffix("_000.jsonl.gz") for p in folder.iterdir())
    assert played == ["heuristic_vs_random", "level_1_vs_random", "level_2_vs_level_1", "level_3_vs_level_2"]
    with pytest.raises(SystemExit):
        levels.main([*argv[:-2], "--up-to", "1"])
    assert "--up-to: invalid choice: 1" in capsys.readouterr().err


def test_a_game_with_levels_of_its_own_plays_them_and_pools_its_records_alone(tmp_path):
    """Wakanda's level 3 is a short search (agents.levels.GAME_LEVELS), Wapi's one search is level 5: their
    tables name those agents, and a folder holding two games' records reports each with its own levels."""
    tables = levels.tables("wakanda")
    level3 = tables[1][0]
    assert (level3.label, level3.name, dict(level3.options)) == ("level:3", "best", {"time_limit": 0.01})
    assert [levels.searches(table) for table in tables] == [False, True, True, True, False, False]
    assert [levels.searches(table) for table in levels.tables("wapi")] == [False, False, False, True, False, False]
    from benchmarks.core import records

    for game in ("wakanda", "samurai"):
        run = levels.level_run(game, ["play"])
        line = {"kind": "game", "run": run["run"], "game": game, "config": {}, "seed": 1, "seats": ["level:3"] * 2}
        line |= {"scores": [1.0, 0.0], "winners": [0]}  # a whole game line: v2 records follow their schema
        records.write(records.Record(runs=[run], games=[line]), tmp_path / f"{game}.jsonl")
    with pytest.raises(ValueError, match="agent label 'level:2' means"):
        records.read(sorted(tmp_path.iterdir()))  # pooled across games, a level would mean two agents
    pooled = levels.pooled_by_game(sorted(tmp_path.iterdir()))
    assert pooled["wakanda"].agents()["level:3"]["name"] == "best"
    assert pooled["samurai"].agents()["level:3"]["name"] == "heuristic"


def test_play_writes_records_and_the_report_and_a_second_run_plays_nothing(tmp_path, monkeypatch):
    cheap = [t for t in levels.tables("samurai") if not levels.searches(t)]  # levels 1-3, anchors: milliseconds
    monkeypatch.setattr(levels, "tables", lambda game: cheap)
    folder, out, ratings = tmp_path / "records", tmp_path / "levels.md", tmp_path / "levels.json"
    argv = ["play", "--configs", "wakanda", "--deals", "3", "--records", str(folder), "--out", str(out)]
    argv += ["--ratings", str(ratings), "--processes", "1"]
    assert levels.main(argv) == 0
    written = sorted(p.name for p in folder.iterdir())
    assert len(written) == 4 and all(name.startswith("wakanda_") and name.endswith("_000.jsonl.gz") for name in written)
    text = out.read_text()
    assert "24 games on 3 test deals; the moves took 0 CPU s." in text, "4 tables x 3 deals x 2 rotations"
    assert "| level:2 | level:1 |" in text and "| level:3 | level:2 |" in text
    assert "| level:3 | `heuristic` |" in text and "python -m research.levels play --configs wakanda" in text
    page = json.loads(ratings.read_text())
    assert page["wakanda"]["game"] == "wakanda" and page["wakanda"]["options"] == {"advanced": False}
    assert sorted(page["wakanda"]["levels"]) == ["level:1", "level:2", "level:3"]
    from benchmarks.core import records

    games = records.read(sorted(folder.iterdir())).games
    assert all(g["deal_set"] == "test" and g["seed"] >= DEAL_SETS["test"][0] for g in games)
    before = {p: p.read_bytes() for p in folder.iterdir()}
    assert levels.main(argv) == 0
    assert {p: p.read_bytes() for p in folder.iterdir()} == before, "a record that exists is never played again"
    assert out.read_text() == text


@pytest.mark.parametrize(
    "low,players,words",
    [
        (0.62, 2, "beats it at 60% or more"),
        (0.55, 2, "wins more often, 60% not shown"),
        (0.45, 2, "not shown to be stronger"),
        (0.30, 4, "above the fair share 0.25"),
        (0.20, 4, "not shown above the fair share 0.25"),
    ],
)
def test_the_verdict_reads_the_interval(low, players, words):
    share = Share("level:2", "level:1", low + 0.05, low, low + 0.1, 20, 10)
    assert levels.verdict("level:2", share, players) == words


def test_a_verdict_on_twelve_deals_is_decided_with_the_t_interval():
    """Issue 49: level 2 wins 8 deals outright, 2 half and loses 2 (0.750): the normal interval's lower end
    (0.524) would call it stronger, t's with 11 degrees of freedom (0.497) does not, in a v1 record as in v2."""
    games = []
    for deal, result in enumerate([1.0] * 8 + [0.5] * 2 + [0.0] * 2):
        for seating, hero_wins in enumerate([result >= 0.5, result == 1.0]):
            seats = ["level:2", "level:1"] if seating == 0 else ["level:1", "level:2"]
            winner = seats.index("level:2") if hero_wins else seats.index("level:1")
            games.append({"game": "samurai", "config": {"num_players": 2}, "seed": deal, "seats": seats,
                          "table": ["level:2", "level:1"], "winners": [winner], "cpu_us": [[1], [1]]})  # fmt: skip
    lines, _ = levels.configuration_section("samurai 2p", games, {})
    text = "\n".join(lines)
    assert "| win share | 95% interval (t, deals − 1 df) |" in text
    assert "| level:2 | level:1 | 0.750 | [0.497, 1.000] | 24 | 12 | not shown to be stronger |" in text


@pytest.mark.parametrize(
    "argv,message",
    [
        (["play", "--deals", "1"], "--deals must be at least 2"),
        (["play", "--search-deals", "0"], "--search-deals must be at least 2"),
        (["play", "--chunk", "0"], "--chunk must be a positive number"),
        (["play", "--configs", "chess"], "unknown configuration 'chess'"),
    ],
)
def test_bad_command_lines_are_refused_before_anything_is_played(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        levels.main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_a_levels_run_identifies_each_level_as_what_it_plays_in_its_game():
    """Issue 49, frozen anchors: a level is a name whose agent differs by game (Wapi's level 5 thinks 0.1 s,
    Wakanda's 0.5 s), so the header identifies it resolved in the run's own game, never outside one."""
    from benchmarks.core import anchors

    for game in ("wapi", "wakanda"):
        run = levels.level_run(game, [])
        assert run["agents"]["level:5"]["anchor"] == anchors.anchor_identity("level:5", {}, game)
    assert levels.level_run("wapi", [])["agents"]["level:5"]["anchor"] != anchors.anchor_identity("level:5", {}, None)
