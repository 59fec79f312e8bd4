"""The search's fast paths give what the plain ones gave: the leaf evaluation's draws and sums, the observer
that catches up with one state after another, and the benchmark that compares two checkouts' moves."""

from __future__ import annotations

import bisect
import json
import random
from pathlib import Path

import numpy as np
import pytest

from agents.heuristic.samurai_values import chance
from agents.leaf_values import SAMPLES, samurai
from agents.random_words import take
from benchmarks import ismcts_speed
from envs.core.engine import win_rewards
from envs.games import make_game
from envs.samurai.scoring import winners as winners_of


@pytest.mark.parametrize("count", [0, 1, 2, 7, 301])
@pytest.mark.parametrize("seed", [0, 12345])
def test_random_words_are_the_outputs_of_as_many_random_calls(seed, count):
    """``random_words.take`` reads the generator's 32-bit outputs through getrandbits; random() pairs the same
    outputs into each float (top 27 and 26 bits), so both give the same floats and leave the same state."""
    one_by_one, at_once = random.Random(seed), random.Random(seed)
    expected = [one_by_one.random() for _ in range(count)]
    words = take(at_once, 2 * count).astype(np.float64)
    assert (((words[0::2] // 32) * 67108864.0 + words[1::2] // 64) / 9007199254740992.0).tolist() == expected
    assert at_once.getstate() == one_by_one.getstate()


def samurai_as_first_written(state, rnd: random.Random) -> tuple[list[float], list[float]]:
    """The Samurai leaf evaluation as it was first written (before it was made faster): the oracle."""
    n = state.game.num_players
    contests = []
    expected = state.scores()
    for s, types in enumerate(state.figures):
        open_land = state.need[s]
        for t in types:
            influence = state.influence(s, t)
            chances = []
            for p in range(n):
                rival = max(v for q, v in enumerate(influence) if q != p)
                chances.append(chance(influence[p] - rival, open_land))
            total = sum(chances)
            cumulative, acc = [], 0.0
            for p, c in enumerate(chances):
                acc += c / total
                expected[p] += c / total
                cumulative.append(acc)
            contests.append((t, cumulative))
    win = [0.0] * n
    for _ in range(SAMPLES):
        captured = [c[:] for c in state.captured]
        for t, cumulative in contests:
            p = min(bisect.bisect_left(cumulative, rnd.random()), n - 1)
            captured[p][t] += 1
        for p, r in enumerate(win_rewards(n, winners_of(captured))):
            win[p] += r
    return [w / SAMPLES for w in win], expected


def random_positions(game, games: int, seed: int) -> list:
    """Every position of ``games`` games of random moves (deals and moves from ``seed``)."""
    rnd, states = random.Random(seed), []
    for k in range(games):
        state = game.new_state(np.random.default_rng(seed + k))
        while state.current_player is not None:
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rnd.randrange(len(legal))])
    return states


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_samurai_leaf_evaluation_is_the_one_first_written(num_players):
    """Every value and every draw as before, in every position of random games (captures, set-asides, ends)."""
    game = make_game("samurai", num_players=num_players)
    for k, state in enumerate(random_positions(game, 3, seed=10 * num_players)[::3]):
        fast, slow = random.Random(k), random.Random(k)
        assert samurai(state, fast) == samurai_as_first_written(state, slow)
        assert fast.getstate() == slow.getstate()


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_samurai_observer_following_one_state_after_another_sees_what_a_fresh_one_sees(num_players):
    """A search follows determinization after determinization; the observer catches up with each from the
    last (only what differs rewritten): every seat's observation must be a fresh observer's, also after moves."""
    game = make_game("samurai", num_players=num_players)
    states = random_positions(game, 2, seed=7)
    rng, rnd = np.random.default_rng(1), random.Random(2)
    observer = game.observer()
    for state in states[::5]:
        sample = state.determinize(state.current_player, rng)
        observer.follow(sample)
        for _ in range(rnd.randrange(4)):
            if sample.current_player is None:
                break
            action = rnd.choice(sample.legal_actions())
            sample.apply(action)
            observer.applied(sample, action)
        for seat in range(num_players):
            assert np.array_equal(observer.observe(sample, seat), game.observer().observe(sample, seat))


def test_the_benchmark_compares_a_checkout_with_itself(tmp_path):
    """Two workers (here both this checkout) search the same positions with the same seeds: the moves agree; the
    run's record makes the same page again, and a record from a dirty checkout is refused unless allowed."""
    out, record = tmp_path / "speed.md", tmp_path / "speed.json"
    root = Path(ismcts_speed.__file__).resolve().parent.parent
    argv = ["--reference-dir", str(root), "--games", "wapi", "--rounds", "1", "--iterations", "2", "--out", str(out)]
    ismcts_speed.main([*argv, "--record", str(record)])
    rows = [line for line in out.read_text().splitlines() if line.startswith("| wapi")]
    assert len(rows) == 1 and rows[0].endswith("| yes |")
    again = tmp_path / "again.md"
    data = json.loads(record.read_text())
    data["provenance"]["dirty"] = False
    record.write_text(json.dumps(data))
    ismcts_speed.main(["--from-record", str(record), "--out", str(again)])
    assert again.read_text().split("| game |")[1] == out.read_text().split("| game |")[1]
    data["provenance"]["dirty"] = True
    record.write_text(json.dumps(data))
    with pytest.raises(SystemExit, match="dirty"):
        ismcts_speed.main(["--from-record", str(record), "--out", str(again)])


def test_the_benchmarks_arguments_are_checked(capsys):
    with pytest.raises(SystemExit):
        ismcts_speed.main(["--rounds", "0"])
    assert "--rounds must be at least 1" in capsys.readouterr().err
