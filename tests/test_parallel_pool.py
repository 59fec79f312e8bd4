"""The one parallel map (``parallel.pool``): results in task order and the same in one process or two, the
work cut into round-robin chunks, a failing task reported with its own exception and which task it was.
(The Ray backend's map is checked against the local one on a real cluster in ``test_ray_backend.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

from envs.games import make_game
from parallel.pool import LocalBackend, chunks, joined, parallel_map


def deal_summary(seed: int) -> tuple[int, int, tuple[float, ...]]:
    """A task: play a seeded Wakanda game with uniformly random moves; (seed, moves, final scores)."""
    game = make_game("wakanda")
    rng = np.random.default_rng(seed)
    state = game.new_state(rng)
    moves = 0
    while state.current_player is not None:
        state.apply(int(rng.choice(state.legal_tuple())))
        moves += 1
    return seed, moves, tuple(float(s) for s in state.scores())


def refuse_seven(value: int) -> int:
    """A task that fails on one input, as a bug in a worker would."""
    if value == 7:
        raise ValueError(f"seven is refused, got {value}")
    return value * value


def test_results_come_in_task_order_and_equal_in_one_process_or_two():
    seeds = [11, 3, 29, 5, 17, 2, 23, 8]
    here = parallel_map(deal_summary, seeds, processes=1)
    assert [r[0] for r in here] == seeds, "each result at its task's place"
    assert len({r[1:] for r in here}) > 1, "different deals, different games"
    counted = []
    on_two = LocalBackend(2).map(deal_summary, seeds, counted.append)
    assert on_two == here, "the same games, in the same order, whatever the number of processes"
    assert counted == [1] * len(seeds), "progress told once per finished task"


def test_chunks_deal_round_robin_into_tasks_of_similar_size():
    assert chunks(list(range(10)), 1) == [[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]]
    assert chunks(range(3), 2) == [[0], [1], [2]], "no empty chunk"
    assert chunks(list(range(40)), 1, max_size=5) == [list(range(i, 40, 8)) for i in range(8)], "at most max_size"
    assert sorted(x for c in chunks(range(101), 3) for x in c) == list(range(101)), "every item once"


def test_joined_concatenates_each_named_array_in_task_order():
    parts = [{"a": np.array([1, 2]), "b": np.zeros((2, 3))}, {"a": np.array([3]), "b": np.ones((1, 3))}]
    out = joined(parts)
    assert out["a"].tolist() == [1, 2, 3] and out["b"].sum(axis=1).tolist() == [0, 0, 3]


@pytest.mark.parametrize("processes", [1, 2])
def test_a_failing_task_raises_its_own_exception_naming_the_task(processes):
    with pytest.raises(ValueError, match="seven is refused, got 7") as raised:
        parallel_map(refuse_seven, [1, 2, 7, 3], processes=processes)
    assert "in task 2 of 4 of the parallel map: 7" in raised.value.__notes__


def test_bad_process_counts_are_refused_by_name():
    for bad in (0, -1, 2.0, True, "2"):
        with pytest.raises(ValueError, match="--processes must be a positive int"):
            LocalBackend(bad)
