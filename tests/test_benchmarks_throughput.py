"""The throughput benchmark's measurement on runners with known speeds, and a tiny end-to-end run."""

from __future__ import annotations

import math
import platform

import pytest

from benchmarks import throughput


class Machine:
    """A machine whose speed (work per CPU-second) changes from burst to burst, as a loaded one does."""

    def __init__(self, speeds):
        self.speeds = speeds
        self.bursts = 0

    def speed(self) -> float:
        speed = self.speeds(self.bursts)
        self.bursts += 1
        return speed


class FakeRunner:
    """Runs at ``rate`` turns per CPU-second on a machine of speed 1, a game every ``turns_per_game`` turns."""

    def __init__(self, machine: Machine, rate: float, turns_per_game: int = 10):
        self.machine, self.rate, self.turns_per_game = machine, rate, turns_per_game

    def burst(self, seconds: float) -> tuple[int, int, float]:
        turns = round(self.rate * self.machine.speed() * seconds)
        return turns, turns // self.turns_per_game, seconds


def run(speeds, rates: dict[str, float], engine_rates: dict[str, float] | None = None, rounds: int = 9):
    machine = Machine(speeds)
    pace = FakeRunner(machine, 10_000)
    runners = {
        name: (
            FakeRunner(machine, rate),
            FakeRunner(machine, (engine_rates or {})[name]) if name in (engine_rates or {}) else None,
        )
        for name, rate in rates.items()
    }
    return throughput.interleave(pace, runners, rounds, burst=0.1, log=lambda line: None)


def test_on_a_steady_machine_every_round_gives_the_true_ratio():
    result = run(lambda burst: 1.0, {"ref twin": 10_000, "fast": 40_000, "slow": 15_000}, {"fast": 200_000})
    for name, truth in (("ref twin", 1.0), ("fast", 4.0), ("slow", 1.5)):
        assert result.env_ratios[name] == pytest.approx([truth] * 9, rel=1e-3)
    assert result.engine_ratios["fast"] == pytest.approx([20.0] * 9, rel=1e-3)
    assert result.env["fast"].rate == pytest.approx(40_000, rel=1e-3)
    assert result.env["fast"].game_rate == pytest.approx(4_000, rel=1e-2)


def test_a_steady_drift_of_the_load_cancels():
    """The machine slows down by 3% a burst (to a third of its speed by the end): the ratio to the
    reference bursts on both sides of a subject's still gives the truth, the whole-run rates do not."""
    result = run(lambda burst: 1.0 - 0.03 * burst, {"a": 30_000, "b": 36_000})
    assert result.env_ratios["a"] == pytest.approx([3.0] * 9, rel=1e-3)
    assert result.env_ratios["b"] == pytest.approx([3.6] * 9, rel=1e-3)
    whole_run = result.env["a"].rate / result.reference.rate
    assert abs(whole_run - 3.0) > 0.01, "a drifting machine biases totals; that is why ratios are per round"


def test_a_load_spike_moves_one_round_and_the_median_ignores_it():
    """Every 7th burst runs at half speed: the rounds it touches are off, the median is the truth and
    the range shows that the run was noisy."""
    result = run(lambda burst: 0.5 if burst % 7 == 3 else 1.0, {"a": 36_000, "b": 20_000})
    for name, truth in (("a", 3.6), ("b", 2.0)):
        median, low, high = throughput.spread(result.env_ratios[name])
        assert median == pytest.approx(truth, rel=1e-3)
        assert low < truth * 0.9 or high > truth * 1.1


def test_the_spread_is_the_median_and_the_extremes():
    assert throughput.spread([3.0, 1.0, 2.0, 10.0]) == (2.5, 1.0, 10.0)
    assert throughput.spread([4.0]) == (4.0, 4.0, 4.0)


def test_the_env_runner_plays_whole_games_and_counts_cpu_time():
    """A real env in bursts: turns and games are counted, the game carries on from burst to burst,
    and the time is CPU time of at least the burst asked for."""
    runner = throughput.EnvRunner(throughput.subjects()["wakanda"][0])
    total_turns = total_games = 0
    for _ in range(3):
        turns, games, seconds = runner.burst(0.05)
        assert seconds >= 0.05 and turns > games >= 0
        total_turns, total_games = total_turns + turns, total_games + games
    assert total_games >= 1 and total_turns / total_games > 10, "Wakanda games last dozens of turns"


@pytest.mark.slow
def test_the_command_writes_its_table(tmp_path, capsys):
    out = tmp_path / "throughput.md"
    throughput.main(["--seconds", "0.2", "--rounds", "2", "--only", "wakanda", "--out", str(out)])
    text = out.read_text()
    assert text.startswith(throughput.TITLE + "\n\n" + throughput.INTRO)
    assert f"\n## Python {platform.python_version()}\n" in text
    assert "Command: `python -m benchmarks.throughput --seconds 0.2 --rounds 2 --only wakanda --out " in text
    assert "load average (1, 5, 15 min)" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    header, rule, *rows = table
    assert [row.split(" | ")[0] for row in rows] == ["| connect_four_v3 (reference)", "| wakanda"]
    assert all(row.count("|") == header.count("|") == rule.count("|") for row in rows)
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    wakanda = [cell.strip() for cell in rows[1].strip("|").split("|")]
    ratio = float(wakanda[columns.index("x c4")])  # the first "x c4": env() turns
    assert ratio > 1 and math.isfinite(float(wakanda[columns.index("peak RSS (MiB)")]))
    low, high = map(float, wakanda[columns.index("range")].split("-"))
    assert low <= ratio <= high


def test_bad_arguments_are_refused_by_name(capsys):
    for argv, name in (
        (["--seconds", "0"], "--seconds"),
        (["--seconds", "nan"], "--seconds"),
        (["--rounds", "0"], "--rounds"),
        (["--only", "chess"], "--only"),
    ):
        with pytest.raises(SystemExit):
            throughput.main(argv)
        assert f"error: {name}" in capsys.readouterr().err


def test_the_results_file_keeps_one_section_per_python_version():
    """A run replaces its own Python version's section and keeps the others, newest version first."""

    def section(version, figure):
        return f"## Python {version}\n\nCommand: `python -m benchmarks.throughput`\n\n| wapi 4p | {figure} |\n"

    first = throughput.report(section("3.11.7", "old 3.11"), None)
    assert first == f"{throughput.TITLE}\n\n{throughput.INTRO}\n\n{section('3.11.7', 'old 3.11')}"
    both = throughput.report(section("3.12.1", "3.12"), first)
    assert both.index("3.12") < both.index("old 3.11")
    again = throughput.report(section("3.11.9", "new 3.11"), both)
    assert "old 3.11" not in again and again.count("## Python 3.11") == 1
    assert again.index("## Python 3.12.1") < again.index("## Python 3.11.9") and "| wapi 4p | 3.12 |" in again
    assert throughput.report(section("3.12.1", "3.12"), again) == throughput.report(
        section("3.12.1", "3.12"), again.replace("3.12 |", "x |")
    )
    legacy = "# Throughput\n\nCommand: `python -m benchmarks.throughput --seconds 3`\n\n| old table |\n"
    assert "old table" not in throughput.report(section("3.12.1", "3.12"), legacy), "a file from before sections"
