"""The sealed agent (benchmarks/core/sealed): each cheat a user's agent could try gains nothing, and every failure
is a loss of that game and of the deal's remaining games. The cheats are in tests/data/cheats.py."""

import json
import re
import time
from pathlib import Path

import pytest

from benchmarks.core import arena
from benchmarks.core.matches import AgentSpec
from benchmarks.core.rating import win_shares
from benchmarks.core.verify import replay

CHEATS = Path(__file__).resolve().parent / "data" / "cheats.py"
RANDOM = AgentSpec("random", "random")


def play(name: str, tmp_path: Path, deals: int = 1, budget: float = 1.0, key: int = 7, sealed: bool = True):
    """``name`` (a class of cheats.py) against random on wapi 2p: games, failures and its log's lines."""
    log = tmp_path / f"{name}-{key}-{sealed}.jsonl"
    hero = AgentSpec(f"rated:{name}", f"{CHEATS}:{name}", (("log", str(log)),))
    labels = [hero.label] if sealed else []
    budgets = [(hero.label, budget)]
    tasks = arena.plan("wapi", {"num_players": 2}, [(hero, RANDOM)], "test", deals, budgets, 0, labels, key)
    games, failures = [], []
    for task in tasks:
        more, fails = arena.play_deal(task)
        games, failures = games + more, failures + fails
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return games, failures, lines


def test_walking_the_frames_finds_no_referee_in_the_sealed_process(tmp_path):
    _, failures, lines = play("FrameWalker", tmp_path)
    assert not failures and lines
    seen = {frame for line in lines for frame in line["frames"]}
    assert not any(frame.startswith(("protocol.py:play_game", "arena.py:")) for frame in seen)
    _, _, lines = play("FrameWalker", tmp_path, sealed=False)  # the same agent in the referee's process (v1)
    assert "protocol.py:play_game" in {frame for line in lines for frame in line["frames"]}


def test_tampering_with_every_state_it_can_reach_changes_no_game(tmp_path):
    honest, _, _ = play("Honest", tmp_path)
    tampered, failures, lines = play("Tamperer", tmp_path)
    assert not failures and all(line["tampered"] >= 1 for line in lines)  # it did tamper, with its own copies
    assert [(g["scores"], g["actions"]) for g in tampered] == [(g["scores"], g["actions"]) for g in honest]
    assert all(replay(g) is None for g in honest)  # every game's actions, the sealed agent's too, replay


def test_the_agents_seed_comes_from_the_runs_secret_key_not_from_the_deal(tmp_path):
    _, _, first = play("SeedInverter", tmp_path, key=1)
    _, _, second = play("SeedInverter", tmp_path, key=2)
    assert not any(line["hits"] for line in first + second)
    assert {line["seed"] for line in first}.isdisjoint(line["seed"] for line in second)


def test_raising_when_behind_loses_the_game_and_the_deals_rest(tmp_path):
    honest, _, _ = play("Steady", tmp_path, deals=2)
    quitter, failures, _ = play("Quitter", tmp_path, deals=2)
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
    ],
)
def test_an_exit_an_interrupt_or_a_dead_process_is_a_loss(tmp_path, name, message):
    games, (failure,), _ = play(name, tmp_path)
    assert f"its move 1: {message}" in failure["message"] and failure["move"] == 1
    assert len(games) == 2 and all(g["forfeit"] == f"rated:{name}" for g in games)


def test_a_sleeping_agent_is_stopped_by_the_wall_clock(tmp_path):
    start = time.monotonic()
    games, (failure,), _ = play("Sleeper", tmp_path, budget=0.05)
    assert time.monotonic() - start < 10
    assert "its move 1: gave no answer within 1.15 s (wall clock)" in failure["message"]
    assert len(games) == 2 and all(g["forfeit"] for g in games)


@pytest.mark.parametrize("name", ["ChildBurner", "Ponderer"])
def test_cpu_spent_in_a_child_process_is_counted(tmp_path, name):
    games, (failure,), _ = play(name, tmp_path, budget=0.05)
    assert "CPU s of its process tree, over its budget of 0.05 s" in failure["message"]
    # Move 1 on a quiet machine; a later move when the child got less of a loaded CPU.
    spent = float(re.search(r"its move \d+: ([\d.]+) CPU s", failure["message"]).group(1))
    assert spent > 0.125 and len(games) == 2  # 0.05 x 1.5 + 0.05 allowed
