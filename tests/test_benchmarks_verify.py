"""``python -m benchmarks.leaderboard verify`` (benchmarks/core/verify.py): a v2 record is accepted only when its
schema, provenance, identities and budgets hold and every game replays from its stored moves; each forgery of
issue 49 (a changed result, a changed identity, a dirty checkout, over-budget moves) is refused."""

import copy
from pathlib import Path

import pytest

from benchmarks import leaderboard
from benchmarks.core import arena, calibration, records, verify
from benchmarks.core.matches import AgentSpec
from benchmarks.core.protocol import PROTOCOL

#: A machine exactly as fast as the reference, measured (its one round the reference speed).
MACHINE = calibration.Calibration(1.0, (calibration.REFERENCE_SPEED,))
QUITTER = f"{Path(__file__).resolve().parent / 'data' / 'cheats.py'}:Quitter"


@pytest.fixture(scope="module")
def played() -> records.Record:
    """The heuristic (1 CPU s a move) and a quitter against random on two test deals of two-player Wapi, as a
    clean checkout would record them (the tests' own checkout may be dirty)."""
    heuristic, random = AgentSpec("heuristic", "heuristic"), AgentSpec("random", "random")
    quitter = AgentSpec("quitter", QUITTER)
    agents = {s.label: {"name": s.name, "options": {}} for s in (heuristic, random)}
    agents["quitter"] = {"name": QUITTER, "options": {}, "sha256": "0" * 64}
    run = records.new_run(["python", "-m", "test"], agents, "wapi") | {"budgets": {"heuristic": 1.0}}
    run |= {"reference_budgets": {"heuristic": 1.0}, "calibration": calibration.entry(MACHINE), "deals": 2}
    run["provenance"] |= {"dirty": False, "diff": None, "commit": "c" * 40}
    tasks = arena.plan("wapi", {"num_players": 2}, [(heuristic, random), (quitter, random)], "test", 2)
    return arena.play(tasks, run, progress=False)


def test_an_honest_record_is_accepted_and_every_game_replayed(played, tmp_path, capsys):
    assert played.failures and any(g.get("forfeit") == "quitter" for g in played.games)  # forfeits verify too
    assert verify.verify(played) == []
    path = records.write(played, tmp_path / "r.jsonl.gz")
    assert leaderboard.main(["verify", str(path)]) == 0
    assert f"accepted: 1 run(s), {len(played.games)} games replayed" in capsys.readouterr().out


def reference_forfeits(record: records.Record) -> None:
    """A reference agent's last game turned into its forfeit, with the failure line that excuses one."""
    game = next(g for g in reversed(record.games) if g["table"] == ["heuristic", "random"])
    seats = game["seats"]
    game |= {"forfeit": "heuristic", "scores": [0.0 if s == "heuristic" else 1.0 for s in seats]}
    game["winners"] = [i for i, s in enumerate(seats) if s != "heuristic"]
    keys = ("run", "game", "config", "deal_set", "deal", "seed", "seating", "seats", "table")
    failure = {k: game[k] for k in keys} | {"kind": "failure", "agent": "heuristic", "seat": 0, "move": 1}
    record.failures.append(failure | {"message": "made up"})


def dropped_deal(record: records.Record) -> None:
    """A deal of the quitter's table left out (as a referee error that dropped the deal would)."""
    last = max(g["deal"] for g in record.games)
    record.games[:] = [g for g in record.games if not (g["table"][0] == "quitter" and g["deal"] == last)]


def forged(record: records.Record, change) -> list[str]:
    copied = copy.deepcopy(record)
    change(copied)
    return verify.verify(copied)


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda r: r.games[0].update(winners=[1 - r.games[0]["winners"][0]]), "not as recorded"),
        (lambda r: r.games[0].update(scores=[99.0] * 2), "not as recorded"),
        (lambda r: r.games[0]["actions"].pop(), "do not finish the game"),
        (lambda r: r.runs[0]["agents"]["heuristic"].update(anchor="0" * 64), "heuristic's anchor identity"),
        (lambda r: r.runs[0]["engines"].update(wapi="0" * 64), "the wapi engine's identity"),
        (lambda r: r.runs[0]["provenance"].update(dirty=True), "dirty checkout"),
        (lambda r: r.games[0]["cpu_us"][r.games[0]["seats"].index("heuristic")].append(2_000_000), "over its budget"),
        (lambda r: r.failures.clear(), "with no failure line"),
        (reference_forfeits, "not an agent identified by its code"),
        (dropped_deal, "its deals are not the run's"),
        (lambda r: r.runs[0].update(deals=3), "2 deals played of the 3 planned"),
        (lambda r: r.games.pop(0), "not each rotation once"),
        (lambda r: next(g for g in r.games if g.get("forfeit")).update(scores=[1.0, 1.0]), "not scored as"),
        (lambda r: r.failures[0].update(seating=r.failures[0]["seating"] + 1), "not the rotations from its failure"),
    ],
)
def test_a_forged_record_is_refused_naming_what_is_wrong(played, change, problem):
    problems = forged(played, change)
    assert problems and any(problem in p for p in problems), problems


def test_a_v1_record_cannot_be_verified():
    v1 = records.read([Path(records.ROOT) / "benchmarks/records/leaderboard/wapi_2p_quick.jsonl.gz"])
    (problem,) = verify.check_runs(v1)
    assert "cannot be verified" in problem


#: Committed v2 records that verify refuses by design, each with the one problem it must have.
REFUSED_BY_DESIGN = {"calibration/slowed.jsonl.gz": "its calibration was given (--calibration-factor), not measured"}


#: The commands whose records are ratings, what verify is for (a study's records, such as the relative-skill
#: study's, name the code they were played with and are read by their own reports).
RATINGS = ("python -m benchmarks.rate ", "python -m benchmarks.leaderboard ")


def test_every_committed_v2_rating_is_accepted():
    """Issue 49's target: ``verify`` accepts every committed v2 rating (the calibration check's slowed run, whose
    calibration was given to simulate a slower machine, is refused for that alone). An engine or anchor that plays
    otherwise than its golden games and decisions fails here too, naming the record; the records made before
    identities were behaviour hold v2 source hashes, read as the identities they map to (anchors.json)."""
    folder = records.ROOT / "benchmarks" / "records"
    checked = 0
    for path in sorted(folder.rglob("*.jsonl.gz")):
        record = records.read([path])
        if not record.runs or any(
            run["protocol"] != PROTOCOL or not run["command"].startswith(RATINGS) for run in record.runs
        ):
            continue
        checked += 1
        problems = verify.verify(record)
        expected = REFUSED_BY_DESIGN.get(path.relative_to(folder).as_posix())
        if expected is None:
            assert problems == [], f"{path.relative_to(folder)}: {problems[:3]}"
        else:
            assert problems and all(expected in problem for problem in problems), problems[:3]
    assert checked >= 3  # the example's rating and the calibration check's two runs at least


def test_the_leaderboard_refuses_a_records_folder_of_another_protocol_before_playing(tmp_path, capsys):
    """The page pools every record of its folder, and v1 and v2 runs never pool: a folder holding v1 records is
    refused at once, naming the folder, not after the games (as it once was, after the full ladder's games)."""
    old = records.ROOT / "benchmarks" / "records" / "leaderboard" / "wapi_4p_quick.jsonl.gz"
    (tmp_path / old.name).write_bytes(old.read_bytes())
    with pytest.raises(SystemExit):
        leaderboard.main(["--quick", "--configs", "wakanda", "--records", str(tmp_path), "--allow-dirty"])
    assert "holds records of drawluck-bench v1" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == [old.name]


def test_a_reference_agent_that_did_not_play_its_own_moves_is_found_by_playing_it_again(played):
    """Every other check passes a record whose "random" seat was played by the heuristic (legal moves, true
    scores): only playing the reference agent again from its seed finds it. ``--replay-agents`` draws the games;
    the rated agent (here the heuristic, with a CPU budget) plays its stored moves."""
    assert verify.verify(played, replay_agents_count=len(played.games)) == []  # the honest record replays
    impostor = AgentSpec("random", "heuristic")
    run = copy.deepcopy(played.runs[0]) | {"deals": 2}
    tasks = arena.plan("wapi", {"num_players": 2}, [(AgentSpec("heuristic", "heuristic"), impostor)], "test", 2)
    forged = arena.play(tasks, run, progress=False)
    assert verify.verify(forged) == []  # schema, hashes, replays and deals all hold
    problems = verify.verify(forged, replay_agents_count=len(forged.games))
    assert problems and all("random chose" in p and "where the record holds" in p for p in problems)
