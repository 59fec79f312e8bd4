"""The search-speed benchmark: its positions, its simulation count, its arguments, a tiny run."""

from __future__ import annotations

import pytest

from benchmarks import search_speed
from envs.games import make_game


def test_positions_are_fixed_decisions_with_a_choice():
    game = make_game("samurai", num_players=2)
    views = search_speed.positions(game)
    again = search_speed.positions(game)
    assert len(views) == search_speed.POSITIONS
    assert all(len(view.legal_actions) > 1 for view in views)
    assert [v.observation.tobytes() for v in views] == [v.observation.tobytes() for v in again]
    assert len({v.observation.tobytes() for v in views}) == len(views)


@pytest.mark.parametrize("options", [{}, {"network": "trained"}])
def test_a_rate_counts_every_searchs_simulations(monkeypatch, options):
    """Each position is searched from scratch (reset drops a kept tree) with the whole budget."""
    game = make_game("samurai", num_players=2)
    views = search_speed.positions(game)[:3]
    ticks = iter([0.0, 2.0])
    monkeypatch.setattr(search_speed.time, "process_time", lambda: next(ticks))
    assert search_speed.rate(game, views, 10, **options) == 3 * 10 / 2.0


def test_arguments_are_checked(capsys):
    with pytest.raises(SystemExit):
        search_speed.main(["--rounds", "0"])
    assert "--rounds must be at least 1" in capsys.readouterr().err


def test_a_tiny_run_writes_one_row_per_game_and_the_page_is_made_again_from_its_record(tmp_path):
    out, record, again = tmp_path / "speed.md", tmp_path / "speed.json", tmp_path / "again.md"
    search_speed.main(["--rounds", "1", "--iterations", "4", "--out", str(out), "--record", str(record)])
    search_speed.main(["--from-record", str(record), "--allow-dirty", "--out", str(again)])
    assert again.read_text() == out.read_text()
    text = out.read_text()
    assert "python -m benchmarks.search_speed --rounds 1 --iterations 4" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "sims" not in line]
    assert [row.split(" | ")[0] for row in rows] == ["| wakanda 2p", "| samurai 2p", "| wapi 4p"]
    assert all(float(row.split(" | ")[3]) > 0 for row in rows)
