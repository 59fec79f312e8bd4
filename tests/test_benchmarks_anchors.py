"""Frozen anchors (benchmarks/core/anchors.py): every reference agent and engine is identified by a content hash,
and a hash cannot change while the protocol's version stays the same."""

import json

from agents.levels import parse_level_name
from benchmarks.core import anchors
from benchmarks.core.protocol import PROTOCOL


def test_no_anchor_or_engine_changed_without_a_new_protocol_version():
    committed = json.loads(anchors.TABLE.read_text())
    assert committed["protocol"] == PROTOCOL, "the protocol changed: python -m benchmarks.anchors --write"
    differ = anchors.changed(anchors.table(), committed)
    assert not differ, (
        f"{differ} changed under {PROTOCOL}: what a reference agent plays or the engine is not the same any "
        "more; bump benchmarks.core.protocol.PROTOCOL, then python -m benchmarks.anchors --write"
    )


def test_a_level_is_hashed_as_what_it_plays():
    level = parse_level_name("level:3", "wapi")  # Wapi's own level 3 (agents/levels.py)
    assert anchors.resolve("level:3", {}, "wapi") == {"name": level.agent, "options": level.options}
    assert anchors.anchor_hash("level:3", {}, "wapi") == anchors.anchor_hash(level.agent, level.options, "wapi")
    assert anchors.anchor_hash("level:3", {}, "wapi") != anchors.anchor_hash("level:3", {}, "wakanda")
    five = anchors.resolve("level:5", {}, "wakanda")
    assert five["name"] == "best" and five["options"]["time_limit"] == 0.5
    assert anchors.anchor_hash("ismcts", {"iterations": 20}, None) != anchors.anchor_hash(
        "ismcts", {"iterations": 50}, None
    )


def test_rewording_a_docstring_changes_no_hash_and_changing_code_does(tmp_path):
    base = 'def f(x):\n    """Why."""\n    return x + 1  # one\n'
    files = [tmp_path / name for name in ("a.py", "b.py", "c.py")]
    for path, text in zip(files, [base, base.replace("Why.", "Because.").replace("# one", ""), base.replace("1", "2")]):
        path.write_text(text)
    digests = [anchors.source_digest(path) for path in files]
    assert digests[0] == digests[1] != digests[2]


def test_the_code_path_of_an_agent_follows_its_imports_into_the_agents_package_only():
    files = {path.relative_to(anchors.ROOT).as_posix() for path in anchors.code_path("agents.ismcts")}
    assert {"agents/ismcts.py", "agents/protocol.py", "agents/tuning.py"} <= files
    assert not any(path.startswith(("envs/", "benchmarks/")) for path in files)
    assert "agents/ppo.py" not in files  # the registry's lazy imports (agents/__init__.py) are not followed


def test_writing_the_table_is_refused_when_a_hash_changed_under_the_same_version(monkeypatch, tmp_path, capsys):
    """``--write`` cannot make a changed anchor pass the test above without a new protocol version."""
    from benchmarks import anchors as command

    committed = json.loads(anchors.TABLE.read_text())
    table = tmp_path / "anchors.json"
    table.write_text(json.dumps(committed))
    monkeypatch.setattr(command, "TABLE", table)
    altered = committed | {"engines": committed["engines"] | {"wapi": "0" * 64}}
    monkeypatch.setattr(command, "table", lambda: altered)
    assert command.main(["--write"]) == 1 and "bump the protocol's version first" in capsys.readouterr().out
    assert json.loads(table.read_text()) == committed  # refused: nothing written
    monkeypatch.setattr(command, "PROTOCOL", "drawluck-bench v3")
    monkeypatch.setattr(command, "table", lambda: altered | {"protocol": "drawluck-bench v3"})
    assert command.main(["--write"]) == 0 and json.loads(table.read_text())["engines"]["wapi"] == "0" * 64
