"""research.replay_check: a study's games played again from their deals are the committed ones, and a game
that the code would not play again is found."""

import json

from research import replay_check
from research.relative_skill import run as relative_skill


def test_a_studys_games_replay_identically_and_a_changed_one_is_found(tmp_path):
    record = tmp_path / "wapi2.jsonl"
    play = ["play", "--config", "wapi2", "--first", "0", "--budgets", "2", "--deals", "2", "--record", str(record)]
    assert relative_skill.main(play) == 0
    out = tmp_path / "check.md"
    assert replay_check.main([str(record), "--deals", "2", "--out", str(out)]) == 0
    games = 2 * 2 * len(relative_skill.hero_labels([2]))
    assert f"| 0, 1 | {games} | 0 |" in out.read_text()
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    game = next(line for line in lines if line["kind"] == "game")
    game["winners"] = [1 - game["winners"][0]] if len(game["winners"]) == 1 else [0]  # as a hand-edited record
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert replay_check.main([str(record), "--deals", "2", "--out", str(out)]) == 1
    assert f"| 0, 1 | {games} | 1 |" in out.read_text() and "First differences" in out.read_text()
