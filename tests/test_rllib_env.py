"""The RLlib wrapper (``training.rllib.env``) and its seats from the league (``training.rllib.league``, over
``training.league.League``), without a Ray cluster.

The wrapper must give RLlib's action-masking module what it reads (the
``"observations"`` key, a float mask), hand RLlib only the learner's seats,
one at a time and only when they are to act, deliver every learner seat's true
final reward, and play the league's opponents in the other seats. The seats
must draw opponents the learner loses to more often (the league's probabilities).
"""

from __future__ import annotations

import numpy as np
import pytest

import envs
from agents.models.rllib_policy import MaskedPolicy, game_card
from training.rllib.env import ILLEGAL_ACTION_REWARD, RLlibGameEnv
from training.rllib.league import SELF, add_snapshot, draw_seats, league_state, new_league, points_against

GAMES = list(envs.GAMES)


def play(env: RLlibGameEnv, seed: int, choose=None):
    """Play one episode with random legal actions (or ``choose(obs) -> action``); returns what RLlib would see."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    while True:
        ((agent, seen),) = obs.items()  # exactly one seat to act
        legal = np.flatnonzero(seen["action_mask"])
        action = choose(seen) if choose else int(rng.choice(legal))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        trace.append((agent, action, obs, rewards, terminated))
        if terminated["__all__"]:
            return trace, obs, rewards, terminated, truncated


@pytest.mark.parametrize("name", GAMES)
def test_observations_are_renamed_masked_and_only_for_the_seat_to_act(name):
    env = RLlibGameEnv({"game": name})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32  # RLlib's module takes its logarithm
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        for _ in range(40):
            ((agent, seen),) = obs.items()
            state = env.aec.game_state
            assert agent == f"player_{state.current_player}", "the one observation is the seat to act"
            assert space.contains(seen)
            np.testing.assert_array_equal(seen["action_mask"], state.legal_mask().astype(np.float32))
            np.testing.assert_array_equal(seen["observations"], env.aec.observe(agent)["observation"])
            legal = np.flatnonzero(seen["action_mask"])
            obs, _, terminated, _, _ = env.step({agent: int(legal[seed % len(legal)])})
            if terminated["__all__"]:
                break


@pytest.mark.parametrize("name", GAMES)
def test_every_seat_gets_its_true_final_reward_once_at_the_end(name):
    env = RLlibGameEnv({"game": name})
    for seed in range(4):
        trace, obs, rewards, terminated, truncated = play(env, seed)
        state = env.aec.game_state
        assert state.is_terminal()
        acted = {agent for agent, *_ in trace[1:]}
        assert set(obs) == set(rewards) == acted
        assert rewards == {a: float(state.rewards("win")[int(a[-1])]) for a in acted}
        assert all(terminated[a] for a in acted) and not truncated["__all__"]
        for _agent, _, step_obs, step_rewards, _ in trace[1:-1]:
            assert set(step_rewards) <= set(step_obs) and set(step_rewards.values()) <= {0.0}, "nothing before the end"


def test_the_same_seed_deals_the_same_game_and_seats():
    league = league_state(new_league(["random", "heuristic"]), {})
    env = RLlibGameEnv({"game": "wapi", "config": {"num_players": 3}, "league": league})
    first = [(a, act) for a, act, *_ in play(env, 11)[0][1:]]
    seats = env.seats
    again = [(a, act) for a, act, *_ in play(env, 11)[0][1:]]
    assert first == again and env.seats == seats
    assert first != [(a, act) for a, act, *_ in play(env, 12)[0][1:]]


@pytest.mark.parametrize("name", GAMES)
def test_league_opponents_play_the_other_seats_and_report_each_result(name):
    league = league_state(new_league(["random", "heuristic"]), {})
    env = RLlibGameEnv({"game": name, "league": league})
    n = env.game.num_players
    for seed in range(3):
        trace, obs, rewards, *_ = play(env, seed)
        learner = {f"player_{p}" for p in env.seats.learner}
        assert len(env.seats.learner) == 1 and {agent for agent, *_ in trace[1:]} <= learner
        state = env.aec.game_state
        scores, winners = state.scores(), state.winners()
        (seat,) = env.seats.learner
        expected = [
            (member, points_against(scores, winners, seat, other))
            for other, (_, member) in sorted(env.seats.opponents.items())
        ]
        assert sorted(env.pop_results()) == sorted(expected) and len(expected) == n - 1
        assert env.pop_results() == []


def random_snapshot(game, seed: int) -> dict[str, np.ndarray]:
    """A well-formed snapshot's weights (an MLP of 8 units) for ``game``."""
    rng = np.random.default_rng(seed)
    snapshot = {
        "layers.0.weight": rng.normal(size=(8, game.observation_size)),
        "layers.0.bias": np.zeros(8),
        "layers.1.weight": rng.normal(size=(game.num_actions, 8)),
        "layers.1.bias": np.zeros(game.num_actions),
    }
    MaskedPolicy.from_state_dict(snapshot, game, game_card(game, [8], "tanh"))
    return snapshot


def test_self_seats_are_learner_seats_until_a_snapshot_then_the_snapshot_plays():
    game = envs.describe("wapi").make(num_players=4)
    league, kept = new_league([SELF], max_snapshots=1), {}
    env = RLlibGameEnv({"game": "wapi", "league": league_state(league, kept)})
    play(env, 0)
    assert env.seats.learner == (0, 1, 2, 3) and not env.seats.opponents, "pure self-play: one shared policy"
    add_snapshot(league, kept, "runs/snapshot_0", random_snapshot(game, 0))
    (first,) = kept
    env.set_league(league_state(league, kept))
    trace, *_ = play(env, 1)
    assert len(env.seats.learner) == 1
    assert all(opponent == (SELF, first) for opponent in env.seats.opponents.values())
    assert {agent for agent, *_ in trace[1:]} == {f"player_{env.seats.learner[0]}"}
    assert {member for member, _ in env.pop_results()} == {first}, "results name the snapshot played"
    env.set_league(league_state(league, kept, with_snapshots=False))  # probabilities only: the snapshots stay
    assert set(env.league.snapshots) == {first}
    add_snapshot(league, kept, "runs/snapshot_1", random_snapshot(game, 1))  # the first one leaves
    assert set(kept) == {first + 1}
    env.set_league(league_state(league, kept, with_snapshots=False))  # a snapshot this env never got
    assert env.league.snapshots == {}
    play(env, 2)
    assert env.seats.learner == (0, 1, 2, 3), "a snapshot it lacks leaves the seat to the learner"


def test_an_illegal_action_ends_the_game_as_a_loss_for_its_player():
    env = RLlibGameEnv({"game": "wakanda"})
    obs, _ = env.reset(seed=3)
    ((agent, seen),) = obs.items()
    before = env.aec.state_dict()
    illegal = int(np.flatnonzero(seen["action_mask"] == 0)[0])
    obs, rewards, terminated, _, infos = env.step({agent: illegal})
    assert rewards == {agent: ILLEGAL_ACTION_REWARD} and terminated["__all__"]
    assert infos[agent]["illegal_action"] == illegal
    assert env.aec.state_dict() == before, "the illegal action was not played"


def test_a_step_for_a_seat_not_to_act_is_refused():
    env = RLlibGameEnv({"game": "wakanda"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"needs an action for {agent}"):
        env.step({other: 0})


# --- the seats from the league ------------------------------------------------------------
def test_opponents_the_learner_loses_to_are_drawn_more_often():
    league = new_league(["random", "heuristic", "ismcts"])
    assert league_state(league, {}).probabilities == pytest.approx((1 / 3,) * 3), "no results yet: uniform"
    for _ in range(200):
        league.record(0, 1.0)  # the learner beats random,
        league.record(1, 0.0)  # loses to the heuristic,
        league.record(2, 0.5)  # and is level with ismcts
    league.update()
    state = league_state(league, {})
    assert state.kinds == ("random", "heuristic", "ismcts")
    p = dict(zip(state.kinds, state.probabilities))
    assert p["heuristic"] > p["ismcts"] > p["random"] > 0, "the league's floor keeps random in play"
    seats = [draw_seats(state, 3, np.random.default_rng(s)) for s in range(2000)]
    drawn = [kind for s in seats for kind, _ in s.opponents.values()]
    share = {k: drawn.count(k) / len(drawn) for k in state.kinds}
    assert share == pytest.approx(p, abs=0.03)


def test_recent_results_count_more_than_old_ones():
    league = new_league(["heuristic"])
    for _ in range(300):
        league.record(0, 0.0)
    for _ in range(300):
        league.record(0, 1.0)
    assert league.members[0].win_rate > 0.7, "the learner now beats it: the old losses fade"


def test_the_league_takes_any_agent_name_and_keeps_the_last_snapshots():
    with pytest.raises(ValueError, match="at least one"):
        new_league([])
    assert league_state(new_league(["rllib:runs/x/checkpoint", "ppo:m.zip"]), {}).kinds == (
        "rllib:runs/x/checkpoint",
        "ppo:m.zip",
    )
    league, kept = new_league(["random", SELF], max_snapshots=2), {}
    for k in range(3):
        add_snapshot(league, kept, f"runs/snapshot_{k}", {"w": np.full(2, k)})
    state = league_state(league, kept)
    assert [kept[i]["w"][0] for i in sorted(kept)] == [1, 2] and set(state.snapshots) == set(kept)
    assert state.kinds == ("random", SELF, SELF) and state.members[1:] == tuple(sorted(kept))
    assert league_state(league, kept, with_snapshots=False).snapshots is None


def test_points_against_reads_the_winners_then_the_scores():
    assert points_against([5, 5], [0], 0, 1) == 1.0, "a tie-break won"
    assert points_against([5, 5], [0], 1, 0) == 0.0
    assert points_against([3, 7, 3], [1], 0, 2) == 0.5, "both behind the winner, level"
    assert points_against([4, 7, 3], [1], 0, 2) == 1.0
    assert points_against([5, 5], [0, 1], 0, 1) == 0.5, "a shared win"
