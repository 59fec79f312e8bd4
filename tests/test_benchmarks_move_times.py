"""benchmarks/move_times.py: best's moves timed with the collector's long-lived objects frozen and not."""

import pytest

from benchmarks import move_times


def test_the_page_names_its_command_and_times_every_move_of_both_searches(tmp_path):
    out = tmp_path / "move_times.md"
    move_times.main(["--games", "1", "--budget", "0.01", "--out", str(out)])
    text = out.read_text()
    assert "Command: `python -m benchmarks.move_times --games 1 --budget 0.01" in text
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| f") or line.startswith("| u")]
    assert [row[0].strip() for row in rows] == ["frozen (now)", "unfrozen (before)"]
    for row in rows:
        moves, mean, p99, longest = int(row[1]), float(row[2]), float(row[3]), float(row[4])
        assert moves > 10  # a three-player Samurai game gives the searcher dozens of decisions
        assert 0 < mean <= p99 <= longest


def test_the_clock_counts_only_full_collections_inside_a_move():
    clock = move_times.Clock(None)
    clock.on_collection("start", {"generation": 2})
    clock.on_collection("stop", {"generation": 2})
    assert clock.collections == []  # between moves
    clock.in_move = True
    clock.on_collection("start", {"generation": 1})
    clock.on_collection("stop", {"generation": 1})
    clock.on_collection("start", {"generation": 2})
    clock.on_collection("stop", {"generation": 2})
    assert len(clock.collections) == 1


@pytest.mark.parametrize("argv", [["--games", "0"], ["--budget", "0"], ["--budget", "-1"]])
def test_bad_arguments_are_refused_with_their_names(argv, capsys):
    with pytest.raises(SystemExit):
        move_times.main(argv)
    assert "--games must be at least 1 and --budget above 0" in capsys.readouterr().err
