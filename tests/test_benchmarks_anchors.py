"""Frozen anchors (benchmarks/core/anchors.py, benchmarks/core/golden.py): every engine and reference agent is
identified by what it plays, its golden games and decisions. This checkout must play them again exactly, and an
identity cannot change while the protocol's version stays the same; a faster engine that plays the same games
keeps its identity (issue 61)."""

import copy
import json

import pytest

import envs
from agents.levels import parse_level_name
from benchmarks import anchors as command
from benchmarks.core import anchors, golden, records
from benchmarks.core.protocol import PROTOCOL

CHEAP = [label for label in golden.witnesses() if label not in command.SLOW_WITNESSES]


@pytest.fixture
def fresh_caches():
    """The golden files and replays are read and checked once per process; a test that swaps them clears that."""
    caches = (anchors.goldens, anchors.engine_problems, anchors.witness_problems, anchors._legacy)
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_per_game_and_batched_engines_play_every_golden_game_again(game):
    goldens = anchors.goldens()[0][game]
    configs = {json.dumps(config, sort_keys=True) for _, config in golden.configurations([game])}
    assert {json.dumps(g["config"], sort_keys=True) for g in goldens} == configs  # every configuration
    assert anchors.engine_problems(game) == ()


@pytest.mark.parametrize("label", CHEAP)
def test_the_cheap_witnesses_choose_their_golden_decisions(label):
    assert [p for game in envs.GAMES for p in anchors.witness_problems(label, game)] == []


@pytest.mark.slow
@pytest.mark.parametrize("label", command.SLOW_WITNESSES)
def test_the_searches_of_100_and_1000_iterations_choose_their_golden_decisions(label):
    assert [p for game in envs.GAMES for p in anchors.witness_problems(label, game)] == []


def test_no_identity_changed_without_a_new_protocol_version():
    committed = json.loads(anchors.TABLE.read_text())
    assert committed["protocol"] == PROTOCOL, "the protocol changed: python -m benchmarks.anchors --write"
    differ = anchors.changed(anchors.table(), committed)
    assert not differ, (
        f"{differ} changed under {PROTOCOL}: a golden game or decision was recorded anew; bump "
        "benchmarks.core.protocol.PROTOCOL, then python -m benchmarks.anchors --write"
    )


def test_another_engine_that_plays_the_same_games_has_the_same_identity(monkeypatch):
    """Issue 61's point: the batched engine swapped for another implementation (the reference ``StateBatch`` over
    per-game states) plays every golden game again, and no identity depends on which code played them."""
    from envs.core import batch

    identity = anchors.engine_identity("samurai")
    monkeypatch.setattr(batch, "batch_class", lambda game: batch.StateBatch)
    assert golden.replay_games("samurai", anchors.goldens()[0]["samurai"]) == []
    assert anchors.engine_identity("samurai") == identity


def test_a_golden_game_played_otherwise_is_found_on_both_engines():
    (first, *rest) = copy.deepcopy(anchors.goldens()[0]["wakanda"])
    first["legal"][0] += 1  # the mask of the first move, as an engine that offered one more action would
    problems = golden.replay_games("wakanda", [first, *rest])
    assert len(problems) == 2 and all("its legal differ" in p for p in problems)
    assert {p.split(" engine")[0] for p in problems} == {"per-game", "batched"}
    first["legal"][0] -= 1
    first["winners"] = [1 - first["winners"][0]] if len(first["winners"]) == 1 else [0]
    assert any("its winners differ" in p for p in golden.replay_games("wakanda", [first, *rest]))
    first["actions"][3] = 10**6  # an action no position offers
    assert any("not legal" in p for p in golden.replay_games("wakanda", [first, *rest]))
    assert "no golden game of config" in golden.replay_games("wakanda", rest)[0]


def test_a_witness_that_chooses_otherwise_is_found():
    games, decisions = anchors.goldens()
    entries = copy.deepcopy(decisions["heuristic"]["samurai"])
    entries[0]["actions"][5] = -1
    (problem,) = golden.replay_decisions("heuristic", "samurai", games["samurai"], entries)
    assert f"another move at step {entries[0]['steps'][5]}" in problem
    assert "no golden decisions" in golden.replay_decisions("heuristic", "samurai", games["samurai"], entries[1:])[0]


def test_a_level_is_identified_as_what_it_plays():
    level = parse_level_name("level:3", "wapi")  # Wapi's own level 3 (agents/levels.py)
    assert anchors.resolve("level:3", {}, "wapi") == {"name": level.agent, "options": level.options}
    identity = anchors.anchor_identity
    assert identity("level:3", {}, "wapi") == identity(level.agent, level.options, "wapi")
    assert identity("level:3", {}, "wapi") != identity("level:3", {}, "wakanda")
    five = anchors.resolve("level:5", {}, "wakanda")
    assert five["name"] == "best" and five["options"]["time_limit"] == 0.5
    assert identity("ismcts", {"iterations": 20}, None) != identity("ismcts", {"iterations": 50}, None)
    # a time budget is not reproducible: the same code's witnesses at fixed iterations stand in
    assert anchors.witnesses_of(five) == anchors.WITNESSES["best"]
    assert anchors.witnesses_of({"name": "heuristic~0.5", "options": {}}) == ("heuristic", "heuristic~0.3")
    with pytest.raises(ValueError, match="has no anchor identity"):
        identity("rllib:somewhere", {}, "wapi")


def test_an_identity_is_its_witnesses_decisions_not_its_source(fresh_caches, monkeypatch):
    """Another move in one golden decision of the heuristic changes the heuristic's identity and the levels
    that play it, and no other anchor's."""
    before = anchors.table()["anchors"]
    games, decisions = copy.deepcopy(anchors.goldens())
    decisions["heuristic"]["wapi"][0]["actions"][0] += 1
    monkeypatch.setattr(anchors, "goldens", lambda: (games, decisions))
    after = anchors.table()["anchors"]
    assert [label for label in before if before[label] != after[label]] == ["heuristic"]


def test_a_record_of_v2_source_hashes_is_read_as_the_identities_they_map_to(tmp_path):
    """The runs recorded before identities were behaviour keep pooling with new runs (and verifying): each source
    hash of the committed table's map was checked by replaying every golden game and decision on its code."""
    legacy = json.loads(anchors.TABLE.read_text())[anchors.LEGACY]
    old_heuristic = next(
        old for old, new in legacy["anchors"].items() if new == anchors.table()["anchors"]["heuristic"]
    )
    (old_wapi,) = legacy["engines"]["wapi"]
    assert anchors.current_engine("wapi", old_wapi) == anchors.engine_identity("wapi")
    assert anchors.current_anchor(old_heuristic) == anchors.anchor_identity("heuristic", {}, "wapi")
    agents = {"heuristic": {"name": "heuristic", "options": {}}}
    new, old = (records.new_run(["python", "-m", "test"], agents, "wapi") for _ in range(2))
    old["engines"]["wapi"], old["agents"]["heuristic"]["anchor"] = old_wapi, old_heuristic
    pooled = records.Record(runs=[new, old])
    pooled.check()  # one engine, one heuristic
    assert pooled.agents()["heuristic"]["anchor"] == new["agents"]["heuristic"]["anchor"]
    old["engines"]["wapi"] = "0" * 64
    with pytest.raises(ValueError, match="different wapi engines"):
        pooled.check()


def test_writing_the_table_is_refused_while_anything_plays_otherwise_under_the_same_version(
    monkeypatch, tmp_path, capsys
):
    """``--write`` cannot make a changed engine or anchor pass the tests above without a new protocol version."""
    committed = json.loads(anchors.TABLE.read_text())
    table = tmp_path / "anchors.json"
    table.write_text(json.dumps(committed))
    monkeypatch.setattr(command, "TABLE", table)
    monkeypatch.setattr(command, "problems", lambda full: ["batched engine, config {} seed 0: its legal differ"])
    assert command.main(["--write"]) == 1 and "bump the protocol's version first" in capsys.readouterr().out
    assert json.loads(table.read_text()) == committed  # refused: nothing written
    monkeypatch.setattr(command, "PROTOCOL", "drawluck-bench v3")
    monkeypatch.setattr(command, "rerecord", lambda: ["engine/wapi"])
    current = {"protocol": "drawluck-bench v3", "anchors": committed["anchors"], "engines": committed["engines"]}
    monkeypatch.setattr(command, "table", lambda: current)
    assert command.main(["--write"]) == 0 and json.loads(table.read_text())["protocol"] == "drawluck-bench v3"
    assert anchors.LEGACY not in json.loads(table.read_text())  # v2's source hashes mean nothing to v3


def test_rerecording_keeps_every_entry_that_replays(fresh_caches, monkeypatch, tmp_path):
    """Only what plays otherwise is recorded anew: the other golden files' lines stay byte for byte."""
    for name in ("GAMES_FILE", "DECISIONS_FILE"):
        copied = tmp_path / getattr(golden, name).name
        copied.write_text(getattr(golden, name).read_text())
        monkeypatch.setattr(golden, name, copied)
    monkeypatch.setattr(golden, "witnesses", lambda: {"random": ("random", ()), "heuristic": ("heuristic", ())})
    decisions = json.loads(golden.DECISIONS_FILE.read_text())
    decisions["heuristic"]["wakanda"][0]["actions"][0] = -1
    golden.save(golden.DECISIONS_FILE, decisions)
    before = golden.DECISIONS_FILE.read_text().splitlines()
    assert command.rerecord() == ["heuristic/wakanda"]
    after = golden.DECISIONS_FILE.read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [before.index(next(
        line for line in before if '"actions":[-1' in line))]  # fmt: skip
    assert command.rerecord() == []
