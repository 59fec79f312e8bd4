"""``python -m benchmarks.rate`` (benchmarks/rate.py): a user's agent class rated from the command line,
an agent that breaks the protocol stopped with a report naming where, and the heuristic rated at its anchor."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks import rate
from benchmarks.core import records
from benchmarks.core.protocol import deal_seeds
from benchmarks.core.rating import anchored_ratings

ROOT = Path(__file__).resolve().parent.parent
WAPI_2P = ["--game", "wapi", "--num-players", "2", "--quick", "--no-progress"]


def test_the_example_agent_is_rated_from_the_command_line(tmp_path):
    record = tmp_path / "mine.jsonl.gz"
    command = [sys.executable, "-m", "benchmarks.rate", "examples/my_agent.py:MyAgent", *WAPI_2P]
    command += ["--deals", "2", "--option", "explore=0.2", "--record", str(record), "--processes", "1"]
    done = subprocess.run([*command, "--rungs", "heuristic"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "rated:MyAgent: " in done.stdout and "on wapi 2p (random 0, heuristic 1,000)" in done.stdout
    saved = records.read([record])
    mine = saved.agents()["rated:MyAgent"]
    assert mine["options"] == {"explore": 0.2} and len(mine["sha256"]) == 64
    played = [g for g in saved.games if "rated:MyAgent" in g["seats"]]
    rungs = {g["table"][1] for g in played}
    assert rungs == {"random", "heuristic"}
    assert len(played) == len(rungs) * 2 * 2  # 2 deals x 2 rotations per rung
    # fresh deals: the test set from the run's random offset, which the record names; v1's games never reused
    (run,) = saved.runs
    offset = run["deal_offset"]
    assert {g["seed"] for g in saved.games} == set(deal_seeds("test", 2, offset)) and offset > 2**20
    assert {g["deal_set"] for g in saved.games} == {"test"} and run["protocol"] == "drawluck-bench v2"


BROKEN = textwrap.dedent(
    """
    import time
    from agents import Agent

    class Illegal(Agent):
        def __init__(self):
            self.moves = 0
        def reset(self):
            self.moves = 0
        def act(self, view):
            self.moves += 1
            return 9999 if self.moves == 3 else view.legal_actions[0]

    class Crashing(Agent):
        def act(self, view):
            raise RuntimeError("no idea")

    class Needy(Agent):
        def __init__(self, game, seed, something):
            pass
        def act(self, view):
            return view.legal_actions[0]

    class Slow(Agent):
        def act(self, view):
            start = time.process_time()
            while time.process_time() - start < 0.2:
                pass
            return view.legal_actions[0]
    """
)


@pytest.mark.parametrize(
    "name, budget, message",
    [
        ("Illegal", "1.0", "its move 3: illegal action 9999"),
        ("Crashing", "1.0", "its move 1: crashed: RuntimeError: no idea"),
        ("Slow", "0.01", "its move 1: 0.2"),
    ],
)
def test_an_agent_that_breaks_the_protocol_is_stopped_with_a_report(tmp_path, open_tmp, capsys, name, budget, message):
    (open_tmp / "broken.py").write_text(BROKEN)  # where its sealed process can read it
    argv = [f"{open_tmp / 'broken.py'}:{name}", *WAPI_2P, "--deals", "2", "--budget", budget, "--deal-offset", "0"]
    argv += ["--record", str(tmp_path / "r.jsonl"), "--processes", "1", "--calibration-factor", "1"]  # budget as given
    assert rate.main(argv) == 1
    out = capsys.readouterr().out
    assert f"rated:{name} was stopped: it broke the protocol" in out
    first = out.splitlines()[1]
    assert first.startswith(f"- rated:{name} broke the protocol in wapi 2p, seat ")
    assert ", test deal 0 (seed 1099511627776), rotation 0: " in first and message in first
    if name == "Slow":  # a sealed agent: the CPU of its process tree
        assert "CPU s of its process tree, over its budget of 0.01 s (the protocol allows 0.065 s a move)" in first
    failures = records.read([tmp_path / "r.jsonl"]).failures
    assert len(failures) == 1 and failures[0]["agent"] == f"rated:{name}"  # stopped at its first deal
    assert all(f"its move {f['move']}: " in f["message"] for f in failures)


def test_bad_agent_names_and_options_are_refused_before_anything_is_played(tmp_path, open_tmp, capsys):
    (open_tmp / "broken.py").write_text(BROKEN)
    for argv, message in [
        (["nosuch.py:Agent", *WAPI_2P], "agent file nosuch.py does not exist"),
        (["examples/my_agent.py:Nope", *WAPI_2P], "has no class 'Nope'"),
        (["examples/my_agent.py:MyAgent", *WAPI_2P, "--option", "depth=2"], "unknown options ['depth']"),
        (["heuristic", *WAPI_2P, "--label", "heuristic"], "is a rung's label"),
        (["heuristic", *WAPI_2P, "--label", "trained"], "is a rung's label"),  # a rung elsewhere, not in wapi 2p
        (["heuristic", *WAPI_2P, "--deals", "1"], "--deals must be at least 2"),
        (["heuristic", *WAPI_2P, "--deal-offset", "-1"], "--deal-offset must be an int from 0 to 1152921504606846968"),
        (["heuristic", *WAPI_2P, "--rungs", "trained"], "--rungs must be among ['random', 'heuristic', 'ismcts-20'"),
        ([f"{open_tmp / 'broken.py'}:Needy", *WAPI_2P], "cannot be built: TypeError"),
    ]:
        with pytest.raises(SystemExit):
            rate.main([*argv, "--record", str(tmp_path / "never.jsonl")])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "never.jsonl").exists()
    with pytest.raises(SystemExit):
        rate.main(["heuristic", *WAPI_2P, "--record", str(open_tmp / "broken.py")])
    assert "exists; records are not overwritten" in capsys.readouterr().err


def test_rating_the_heuristic_reproduces_its_anchor_within_the_interval(tmp_path):
    record = tmp_path / "heuristic.jsonl.gz"
    argv = ["heuristic", *WAPI_2P, "--deals", "8", "--deal-offset", "0", "--rungs", "heuristic", "--processes", "1"]
    argv += ["--record", str(record)]
    assert rate.main(argv) == 0
    (rated,) = [r for r in anchored_ratings(records.read([record]).games) if r.name == "rated:heuristic"]
    assert rated.low <= 1000 <= rated.high


def test_the_example_agent_in_the_protocol_page_is_the_example_file():
    page = (ROOT / "docs" / "benchmark.md").read_text()
    shown = page.split("```python\n", 1)[1].split("```", 1)[0]
    assert shown in (ROOT / "examples" / "my_agent.py").read_text()
    assert len(shown.splitlines()) <= 20


def test_rungs_play_only_the_named_rungs_and_the_anchors(tmp_path):
    record = tmp_path / "some.jsonl.gz"
    argv = ["random", *WAPI_2P, "--deals", "2", "--rungs", "ismcts-20", "--reference", "--processes", "1"]
    assert rate.main([*argv, "--record", str(record)]) == 0
    tables = {tuple(g["table"]) for g in records.read([record]).games}
    assert tables == {
        ("rated:random", "random"),
        ("rated:random", "heuristic"),
        ("rated:random", "ismcts-20"),
        ("heuristic", "random"),
        ("ismcts-20", "heuristic"),
    }


def test_the_tuning_set_plays_the_tuning_deals_and_reuses_no_test_game(tmp_path):
    """docs/benchmark.md: settings are chosen on the tuning deals, never on the test deals a result is
    reported on; a run on the tuning set takes none of the committed (test-set) ladder games."""
    record = tmp_path / "tuning.jsonl.gz"
    argv = ["random", *WAPI_2P, "--deals", "2", "--rungs", "heuristic", "--deal-set", "tuning", "--processes", "1"]
    assert rate.main([*argv, "--record", str(record)]) == 0
    saved = records.read([record])
    assert {g["deal_set"] for g in saved.games} == {"tuning"} and len(saved.runs) == 1
    assert {g["seed"] for g in saved.games} == set(deal_seeds("tuning", 2))
    assert {g["seed"] for g in saved.games}.isdisjoint(deal_seeds("test", 2))


def test_two_rated_agents_pool_into_one_configuration(tmp_path):
    """Issue 49: two user agents could not be combined ("game played twice": both records held the ladder's
    games on the same deals). With fresh deals each run plays its own, so their records pool and rate together."""
    paths = [tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"]
    for agent, path in zip(["random", "heuristic~0.5"], paths):
        argv = [agent, *WAPI_2P, "--deals", "2", "--rungs", "heuristic", "--processes", "1", "--record", str(path)]
        assert rate.main(argv) == 0
    pooled = records.read(paths)
    names = {r.name for r in anchored_ratings(pooled.games)}
    assert {"rated:random", "rated:heuristic~0.5", "random", "heuristic"} <= names and len(pooled.runs) == 2
