"""``benchmarks/core/batch_matches.py``: the random and heuristic games of tournaments and the luck study on
the batch engines give exactly the records ``benchmarks.core.matches.play_task`` gives, game by game."""

from __future__ import annotations

import pytest

from benchmarks.core import batch_matches
from benchmarks.core.matches import AgentSpec, Task, game_key, play_task
from benchmarks.core.protocol import seatings

TABLES = [
    ("wapi", {"num_players": 3}, ("random", "heuristic", "heuristic~0.5"), 3),
    ("wapi", {"num_players": 4, "scoring": "shared"}, ("heuristic", "random~0.3", "random", "heuristic"), 2),
    ("wakanda", {}, ("heuristic", "random"), 4),
    ("wakanda", {"advanced": True}, ("heuristic~0.25", "heuristic"), 3),
    ("samurai", {"num_players": 2}, ("heuristic", "heuristic~0.9"), 2),
]


def tasks_of(name: str, config: dict, table: tuple[str, ...], deals: int, replays: int = 1) -> list[Task]:
    specs = tuple(AgentSpec(f"{agent}#{k}", agent) for k, agent in enumerate(table))
    rows = tuple(seatings(len(table), "rotations"))
    return [Task(game_key(name, config), specs, deal, 7, rows, replays, key=deal) for deal in range(deals)]


@pytest.mark.parametrize("name,config,table,deals", TABLES)
def test_batched_games_are_the_games_play_task_plays(name, config, table, deals):
    """Same deals, same moves (heuristic, random and ε-greedy seats, every seating): the same records."""
    tasks = tasks_of(name, config, table, deals, replays=2 if name == "wakanda" else 1)
    assert all(batch_matches.batchable(task) for task in tasks)
    batched = batch_matches.play_chunk(tasks)
    for task, result in zip(tasks, batched, strict=True):
        expected = play_task(task)
        assert result.task is task and not result.failures and not expected.failures
        assert result.games == expected.games


def test_run_tasks_batches_what_it_can_and_keeps_the_order():
    """Tables with an agent that does not play batched (ISMCTS) go game by game; the results come back in
    task order, a chunk at a time (chunks smaller than the tasks here)."""
    (slow,) = tasks_of("wakanda", {}, ("ismcts", "random"), 1)
    searcher = AgentSpec("ismcts", "ismcts", (("iterations", 1),))
    slow = Task(slow.game, (searcher, slow.table[1]), 5, 7, slow.seatings)
    fast = tasks_of("wakanda", {}, ("heuristic", "random"), 3)
    tasks = [fast[0], slow, fast[1], fast[2]]
    assert [batch_matches.batchable(t) for t in tasks] == [True, False, True, True]
    chunk, batch_matches.CHUNK = batch_matches.CHUNK, 2
    try:
        results = batch_matches.run_tasks(tasks, processes=1, progress=False)
    finally:
        batch_matches.CHUNK = chunk
    assert [r.task for r in results] == tasks
    assert [r.games for r in results] == [play_task(t).games for t in tasks]
