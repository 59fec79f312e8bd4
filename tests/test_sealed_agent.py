"""The sealed agent (benchmarks/core/sealed): each cheat a user's agent could try gains nothing, and every failure
is a loss of that game and of the deal's remaining games. The cheats are in tests/data/cheats.py."""

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.core import arena
from benchmarks.core.matches import AgentSpec
from benchmarks.core.rating import win_shares
from benchmarks.core.sealed.isolation import NOBODY, unreadable
from benchmarks.core.sealed.referee import HostProcess, Sealed
from benchmarks.core.verify import replay

CHEATS = Path(__file__).resolve().parent / "data" / "cheats.py"
RANDOM = AgentSpec("random", "random")


def play(name: str, folder: Path, deals: int = 1, budget: float = 1.0, key: int = 7, sealed: bool = True, **options):
    """``name`` (a class of cheats.py, given ``options``) against random on wapi 2p: games, failures and its log's
    lines (the log in ``folder``, which the agent must be able to write)."""
    log = folder / f"{name}-{key}-{sealed}.jsonl"
    hero = AgentSpec(f"rated:{name}", f"{CHEATS}:{name}", tuple(sorted({"log": str(log), **options}.items())))
    labels = [hero.label] if sealed else []
    budgets = [(hero.label, budget)]
    tasks = arena.plan("wapi", {"num_players": 2}, [(hero, RANDOM)], "test", deals, budgets, 0, labels, key)
    games, failures = [], []
    for task in tasks:
        more, fails = arena.play_deal(task)
        games, failures = games + more, failures + fails
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return games, failures, lines


def test_walking_the_frames_finds_no_referee_in_the_sealed_process(open_tmp):
    _, failures, lines = play("FrameWalker", open_tmp)
    assert not failures and lines
    seen = {frame for line in lines for frame in line["frames"]}
    assert not any(frame.startswith(("protocol.py:play_game", "arena.py:")) for frame in seen)
    _, _, lines = play("FrameWalker", open_tmp, sealed=False)  # the same agent in the referee's process (v1)
    assert "protocol.py:play_game" in {frame for line in lines for frame in line["frames"]}


def test_tampering_with_every_state_it_can_reach_changes_no_game(open_tmp):
    honest, _, _ = play("Honest", open_tmp)
    tampered, failures, lines = play("Tamperer", open_tmp)
    assert not failures and all(line["tampered"] >= 1 for line in lines)  # it did tamper, with its own copies
    assert [(g["scores"], g["actions"]) for g in tampered] == [(g["scores"], g["actions"]) for g in honest]
    assert all(replay(g) is None for g in honest)  # every game's actions, the sealed agent's too, replay


def test_reading_the_referees_memory_is_refused_and_gains_nothing(open_tmp):
    secret = secrets.token_bytes(16)  # planted in the referee (this process), where the key and true state lie
    address = id(secret) + sys.getsizeof(secret) - len(secret) - 1  # CPython: a bytes object's data at its end
    honest, _, _ = play("Honest", open_tmp)
    games, failures, lines = play("MemoryReader", open_tmp, address=address, length=len(secret))
    assert not failures and len(lines) == len(games) == 2  # it tried on each game's first move
    assert {line["ppid"] for line in lines} == {os.getpid()}  # its parent: the referee
    for line in lines:  # maps, environ and mem each refused, nothing read
        assert (line["maps"], line["environ"], line["mem"]) == ("PermissionError",) * 3 and "secret" not in line
        assert line["uid"] == (NOBODY if os.geteuid() == 0 else os.geteuid())
    assert [(g["scores"], g["actions"]) for g in games] == [(g["scores"], g["actions"]) for g in honest]
    # The same reads by an ordinary child of the referee: a root one reads the secret (non-dumpable or not).
    code = f"from cheats import peek; import json; print(json.dumps(peek({os.getpid()}, {address}, {len(secret)})))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(CHEATS.parent), str(CHEATS.parents[2])]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    control = json.loads(done.stdout)
    if os.geteuid() == 0:
        assert control["secret"] == secret.hex()  # the attack is real: the planted bytes, read back
    else:  # the referee is not dumpable: a child of the same user is refused too
        assert control["mem"] == "PermissionError"


def test_an_agent_nobody_cannot_read_is_refused_naming_the_folder(tmp_path):
    agent = tmp_path / "mine.py"
    agent.write_text("class Mine:\n    def act(self, view):\n        return view.legal_actions[0]\n")
    if os.geteuid() != 0 or unreadable(agent) is None:
        pytest.skip("the host runs as nobody only under a root referee, and nobody can read this folder")
    host = HostProcess()
    try:
        with pytest.raises(ValueError, match=f"runs as nobody .uid 65534., which cannot read {unreadable(agent)} "):
            Sealed(host, "rated:Mine", 1.0, []).start("wapi", {"num_players": 2}, f"{agent}:Mine", {}, 0)
    finally:
        host.close()


def test_the_agents_seed_comes_from_the_runs_secret_key_not_from_the_deal(open_tmp):
    _, _, first = play("SeedInverter", open_tmp, key=1)
    _, _, second = play("SeedInverter", open_tmp, key=2)
    assert not any(line["hits"] for line in first + second)
    assert {line["seed"] for line in first}.isdisjoint(line["seed"] for line in second)


def test_raising_when_behind_loses_the_game_and_the_deals_rest(open_tmp):
    honest, _, _ = play("Steady", open_tmp, deals=2)
    quitter, failures, _ = play("Quitter", open_tmp, deals=2)
    assert failures and all("behind: not playing on" in f["message"] for f in failures)
    assert len(quitter) == len(honest) == 4  # nothing dropped: each forfeited rotation is a game lost
    lost = [g for g in quitter if g.get("forfeit") == "rated:Quitter"]
    assert lost and all(g["seats"].index("rated:Quitter") not in g["winners"] for g in lost)
    (share,), (honest_share,) = win_shares(quitter), win_shares(honest)
    assert share.value <= honest_share.value


@pytest.mark.parametrize(
    "name, message",
    [
        ("Exiter", "crashed: SystemExit: 0"),
        ("Interrupted", "crashed: KeyboardInterrupt"),
        ("Vanisher", "its process ended without an answer (exit status 3)"),
        ("Nester", "its reply is not JSON"),
    ],
)
def test_an_exit_an_interrupt_or_a_dead_process_is_a_loss(open_tmp, name, message):
    games, (failure,), _ = play(name, open_tmp)
    assert f"its move 1: {message}" in failure["message"] and failure["move"] == 1
    assert len(games) == 2 and all(g["forfeit"] == f"rated:{name}" for g in games)


def test_a_sleeping_agent_is_stopped_by_the_wall_clock(open_tmp):
    games, (failure,), _ = play("Sleeper", open_tmp, budget=0.05)  # it sleeps 60 s: only the watchdog ends its move
    assert "its move 1: gave no answer within 1.15 s (wall clock)" in failure["message"]
    assert len(games) == 2 and all(g["forfeit"] for g in games)


@pytest.mark.parametrize("name", ["ChildBurner", "Ponderer"])
def test_cpu_spent_in_a_child_process_is_counted(open_tmp, name):
    games, (failure,), _ = play(name, open_tmp, budget=0.05)
    assert "CPU s of its process tree, over its budget of 0.05 s" in failure["message"]
    # Move 1 on a quiet machine; a later move when the child got less of a loaded CPU.
    spent = float(re.search(r"its move \d+: ([\d.]+) CPU s", failure["message"]).group(1))
    assert spent > 0.125 and len(games) == 2  # 0.05 x 1.5 + 0.05 allowed


def test_an_error_no_agent_raised_costs_the_sealed_agent_never_the_deal(open_tmp, monkeypatch):
    """An engine or referee error at a sealed agent's table forfeits the sealed agent's rest of the deal: were the
    deal dropped instead, an agent that made the referee fail when behind would lose nothing (referee, round 49).
    At a table of our own agents it stays an engine failure, with no one to charge."""

    def broken(*args, **kwargs):
        raise RuntimeError("an engine bug")

    monkeypatch.setattr(arena, "play_game", broken)
    games, (failure,), _ = play("Honest", open_tmp)
    assert failure["agent"] == "rated:Honest" and "an engine bug" in failure["message"]
    assert len(games) == 2 and all(g["forfeit"] == "rated:Honest" for g in games)
    games, (failure,), _ = play("Honest", open_tmp, sealed=False)
    assert failure["agent"] == "engine" and games == []


def test_the_older_commands_refuse_a_users_agent_which_only_rate_plays_sealed():
    """tournament, luck, strength and scale play their tables in the referee's process, where a failure drops
    the deal: a user's code there could read the game or buy its way out of a loss, so it is refused up front."""
    from benchmarks.core.matches import Task

    user = AgentSpec("mine", f"{CHEATS}:Honest")
    with pytest.raises(ValueError, match="rated sealed, by python -m benchmarks.rate"):
        Task(("wapi", (("num_players", 2),)), (user, RANDOM), 0, 0, ((0, 1), (1, 0)))
    assert Task(("wapi", (("num_players", 2),)), (RANDOM, RANDOM), 0, 0, ((0, 1), (1, 0))).table == (RANDOM, RANDOM)
