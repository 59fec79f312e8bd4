"""The training package (training): the league's games on the public vector env, batched opponents, the league,
evaluation and the warm start. Speed and strength are measured in benchmarks/, not here."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.models.card import network_description
from agents.opponents import sample_actions
from envs.core.vector import GameVectorEnv
from envs.games import available_games, make_game
from training.imitation import clone, fit_advantages, generate, measure
from training.league import League
from training.league_games import LeagueDealer, league_games
from training.members import NetworkMember, SharedMember
from training.network import new_network, save_network
from training.win_rates import evaluate


def network_file(tmp_path, game, name="net", seed=0) -> str:
    torch.manual_seed(seed)
    return save_network(new_network(game, network_description([16]), command="tests"), str(tmp_path / name))


def random_actions(masks: np.ndarray, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def play(env, steps: int, seed: int = 0):
    """``steps`` random legal learner moves in the SB3 env ``env``: what each step gave."""
    env.reset()
    rng, seen = np.random.default_rng(seed), []
    for _ in range(steps):
        seen.append(env.step(random_actions(env.env_method("action_masks"), rng)))
    return seen


# --- the league's games ------------------------------------------------------------------------
@pytest.mark.parametrize("name", available_games())
def test_the_league_deals_each_game_an_opponent_and_records_every_finished_game(name):
    """Each game is dealt one member of the league (drawn by its probabilities); every finished game is
    recorded against the member that played it, with SB3's episode statistics."""
    game, league = make_game(name), League(["random", "heuristic"])
    env = league_games(game, 6, league, seed=2, reward="win")
    finished = []
    for _, rewards, dones, infos in play(env, 150):
        for i in np.flatnonzero(dones).tolist():
            assert infos[i]["episode"]["r"] == rewards[i] and infos[i]["opponent"] in env.venv.dealer.members.values()
            finished.append(infos[i])
    assert finished and sum(m.games for m in league.members.values()) == len(finished)
    assert {type(info["opponent"]) for info in finished} == {SharedMember}


def test_same_seed_same_games_and_different_seeds_different_games():
    game = make_game("wakanda")

    def trajectory(seed):
        env = league_games(game, 3, League(["random", "heuristic"]), seed=seed, reward="win")
        return np.stack([obs for obs, *_ in play(env, 60)])

    assert np.array_equal(trajectory(1), trajectory(1))
    assert not np.array_equal(trajectory(1), trajectory(2))


def test_a_member_that_leaves_the_league_is_dealt_no_new_game(tmp_path):
    """A snapshot replaced in the league is dealt no new game; the games it was dealt still name it."""
    game = make_game("wapi", num_players=3)
    league = League(["random", "self"], max_snapshots=1, weighting="uniform")
    league.add_snapshot(network_file(tmp_path, game, "a"))
    dealer, rng = LeagueDealer(league, game, seed=0), np.random.default_rng(0)
    first = dealer(np.arange(16), rng)
    old = next(o for o in first if isinstance(o, NetworkMember))
    league.add_snapshot(network_file(tmp_path, game, "b"))
    assert old not in dealer(np.arange(16), rng) and dealer.member_id(old) == 1 and 1 not in dealer.members


def test_network_opponents_move_in_one_forward_pass_per_round(tmp_path, monkeypatch):
    """Every game where a network is to move is answered by one batched evaluate call: with one
    network at a 4-player table, a step takes at most 3 rounds (3 opponents), whatever the batch."""
    game = make_game("wapi", num_players=4)
    member = NetworkMember(network_file(tmp_path, game), game, deterministic=False)
    calls = []
    real = member.network.policy
    monkeypatch.setattr(member.network, "policy", lambda obs, masks: calls.append(len(obs)) or real(obs, masks))
    env = GameVectorEnv(game, 16, deal=lambda games, rng: [member] * len(games), seed=0)
    _, infos = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        calls.clear()
        _, _, _, _, infos = env.step(random_actions(infos["action_mask"], rng))
        assert len(calls) <= 3 + 3  # a game that ends may deal one that opens with up to 3 opponent moves
        assert sum(calls) >= 16  # every game's opponents moved
    assert max(calls) > 1


def test_sampled_moves_are_legal_and_follow_the_probabilities():
    probs = np.array([[0.0, 0.25, 0.0, 0.75]] * 4000)
    picks = np.array(sample_actions(probs, np.random.default_rng(0).random(4000)))
    assert set(picks) == {1, 3} and abs((picks == 3).mean() - 0.75) < 0.03
    assert sample_actions(np.array([[0.0, 1.0, 0.0]]), np.array([0.999999999]))[0] == 1


# --- the league --------------------------------------------------------------------------------
def test_pfsp_draws_more_often_what_the_learner_loses_to():
    league = League(["random", "heuristic"])
    for _ in range(300):
        league.record(0, 1.0)  # the learner beats random
        league.record(1, 0.0)  # and loses to the heuristic
    league.update()
    probabilities = league.probabilities
    assert probabilities[1] > 0.9 and 0 < probabilities[0] < 0.1  # the floor keeps random in play
    uniform = League(["random", "heuristic"], weighting="uniform")
    for _ in range(300):
        uniform.record(0, 1.0)
    uniform.update()
    assert uniform.probabilities == {0: 0.5, 1: 0.5}


def test_the_snapshots_weigh_together_as_one_member():
    league = League(["heuristic", "self"], max_snapshots=4, weighting="uniform")
    for path in ("a", "b", "c", "d"):
        league.add_snapshot(path)
    assert league.probabilities[0] == pytest.approx(0.5)  # the heuristic against the group of four
    pfsp = League(["heuristic", "self"], max_snapshots=4)
    for path in ("a", "b", "c", "d"):
        pfsp.add_snapshot(path)
    for _ in range(300):
        pfsp.record(1, 0.0)  # the learner loses to snapshot a, level with the others (0.5)
    pfsp.update()
    assert pfsp.probabilities[1] > pfsp.probabilities[2] == pytest.approx(pfsp.probabilities[3])
    assert sum(pfsp.probabilities[i] for i in (1, 2, 3, 4)) < 0.5 + 0.2


def test_snapshots_join_with_their_predecessors_win_rate_and_the_oldest_leave():
    league = League(["random", "self"], max_snapshots=2)
    league.add_snapshot("a.zip")
    for _ in range(100):
        league.record(1, 1.0)
    league.add_snapshot("b.zip")
    assert league.members[2].win_rate == pytest.approx(league.members[1].win_rate)
    league.add_snapshot("c.zip")
    assert [m.label for m in league.members.values()] == ["random", "b", "c"]
    league.record(1, 0.0)  # a game against a snapshot that just left is ignored
    with pytest.raises(ValueError, match="weighting must be one of"):
        League(["random"], weighting="elo")


# --- evaluation --------------------------------------------------------------------------------
def test_evaluation_swaps_seats_on_fixed_deals_and_is_reproducible(tmp_path, monkeypatch):
    import training.win_rates

    game, played = make_game("wapi", num_players=3), []
    real = training.win_rates.seat_points
    monkeypatch.setattr(training.win_rates, "seat_points", lambda *a: played.append(a[3:5]) or real(*a))
    evaluate(new_network(game, network_description([16]), command="tests"), game, "random", 7, seed=100)
    assert played == [(0, [100, 101, 102]), (1, [100, 101]), (2, [100, 101])]
    net = new_network(game, network_description([16]), command="tests")
    first = evaluate(net, game, "random", 12, seed=5)
    assert first == evaluate(net, game, "random", 12, seed=5)
    assert first["games"] == 12 and first["ci_low"] <= first["win_rate"] <= first["ci_high"]
    with pytest.raises(ValueError, match="opponent must be one of"):
        evaluate(net, game, "grandmaster", 4)


# --- the warm start ----------------------------------------------------------------------------
def test_generated_moves_are_reproducible_and_split_independent():
    one = generate("wakanda", {}, "heuristic", 4, seed=7, processes=1)
    two = generate("wakanda", {}, "heuristic", 4, seed=7, processes=2)
    order_one, order_two = np.lexsort((one["actions"], one["games"])), np.lexsort((two["actions"], two["games"]))
    for key in one:
        assert np.array_equal(np.sort(one[key], axis=0), np.sort(two[key], axis=0)), key
    assert len(order_one) == len(order_two)
    assert np.all(one["masks"][np.arange(len(one["actions"])), one["actions"]])  # every recorded move legal
    assert set(np.unique(one["values"])) <= {-1.0, 0.0, 1.0}


def test_cloning_learns_the_heuristic_beyond_the_most_common_move():
    game = make_game("wakanda")
    data = generate("wakanda", {}, "heuristic", 40, seed=11, processes=1)
    torch.manual_seed(0)
    net = new_network(game, network_description([64, 64]), command="tests")
    report = clone(net, data, epochs=8)
    majority = np.bincount(data["actions"]).max() / len(data["actions"])
    assert report["held_out_accuracy"] > majority + 0.1
    assert report["held_out_games"] == 4 and report["train_moves"] + report["held_out_moves"] == len(data["actions"])


def test_measured_moves_value_every_legal_move_and_are_reproducible():
    """The rollouts warm start's targets: each decision's legal moves all get a mean reward from the
    paired samples (within the search's reward range), illegal ones 0; the heuristic's move is legal;
    the same deals measure the same on any number of processes."""
    one = measure("wapi", {"num_players": 4}, 2, seed=5, samples=2, processes=1)
    two = measure("wapi", {"num_players": 4}, 2, seed=5, samples=2, processes=2)
    for key in one:
        assert np.array_equal(one[key], two[key]) or np.array_equal(np.sort(one[key], 0), np.sort(two[key], 0)), key
    assert len(one["actions"]) > 20 and one["masks"].sum(axis=1).min() >= 2
    assert np.all(one["masks"][np.arange(len(one["actions"])), one["actions"]])
    values = one["move_values"]
    assert np.all(values[~one["masks"]] == 0) and np.abs(values).max() <= 1 and np.unique(values).size > 2


def test_fitting_advantages_finds_the_better_move_the_heuristic_misses():
    """Positions whose noisy measured values (a few samples each) favour the highest legal move, which
    the heuristic often does not play: after the fit the network plays it on held-out games, so the
    reported gain over the heuristic's move, measured on those games, goes from about 0 to clearly positive."""
    game = make_game("wapi", num_players=4)
    data = generate("wapi", {"num_players": 4}, "heuristic", 30, seed=21, processes=1)
    legal = data["masks"]
    highest = legal.shape[1] - 1 - np.argmax(legal[:, ::-1], axis=1)
    values = np.random.default_rng(0).normal(0.0, 0.3, legal.shape).astype(np.float32)
    values[np.arange(len(highest)), highest] += 0.5
    data["move_values"] = np.where(legal, values, 0.0).astype(np.float32)
    torch.manual_seed(0)
    net = new_network(game, network_description([64, 64]), command="tests")
    clone(net, data, epochs=8)
    report = fit_advantages(net, data, epochs=20, batch_size=64, learning_rate=1e-3)
    missed = np.mean(highest != data["actions"])
    assert abs(report["held_out_gain_before"]) < 0.1 and missed > 0.3
    assert report["held_out_gain"] > report["held_out_gain_before"] + 0.5 * missed * 0.6
    assert report["held_out_measured_games"] == 3
    assert report["measured_positions"] + report["held_out_positions"] == len(data["actions"])


def test_only_a_paired_search_has_action_values():
    from agents.ismcts import ISMCTSAgent
    from agents.protocol import PlayerView

    game = make_game("wakanda")
    view = PlayerView(game.new_state(np.random.default_rng(0)), np.random.default_rng(0))
    with pytest.raises(ValueError, match="action_values needs a search with paired_root=True"):
        ISMCTSAgent(game, seed=0, paired_root=False).action_values(view, 4)
    with pytest.raises(ValueError, match="determinizations must be a positive int, got True"):
        ISMCTSAgent(game, seed=0, paired_root=True).action_values(view, True)
    values = ISMCTSAgent(game, seed=0, paired_root=True).action_values(view, 3)
    assert sorted(values) == sorted(view.legal_actions)
    assert values == ISMCTSAgent(game, seed=0, paired_root=True).action_values(view, 3)  # seeded


def test_win_points_follow_the_benchmarks_win_share():
    """Evaluation, the league and the batch example score a finished game alike: a win 1, a win shared by k
    1/k (a two-way win at four players is 1/2, not the 1 its +1 reward would give), a loss 0."""
    from training.win_rates import win_points

    shared = np.array([True, False, True, False])
    assert win_points(shared, 0) == 0.5 and win_points(shared, 1) == 0.0
    assert win_points(np.array([False, True]), 1) == 1.0


def test_rollouts_run_on_one_thread_and_updates_on_the_threads_asked():
    """Rollouts run on one torch thread, each update on ``--torch-threads`` (fixed, whatever the load: a seeded
    run reproduces to the bit); the threads asked for are kept when training ends."""
    import training.callbacks as callbacks

    before = torch.get_num_threads()
    threads = callbacks.TorchThreadsCallback(2)
    try:
        threads._on_rollout_start()
        assert torch.get_num_threads() == 1
        threads._on_rollout_end()
        assert torch.get_num_threads() == 2
        threads._on_rollout_start()
        assert torch.get_num_threads() == 1
        threads._on_training_end()
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
