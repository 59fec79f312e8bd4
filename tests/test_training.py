"""The training package (training): lockstep games, batched opponents, workers, the league,
evaluation and the warm start. Speed and strength are measured in benchmarks/, not here."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.models.card import network_description
from envs.games import available_games, make_game
from training.imitation import clone, fit_advantages, generate, measure
from training.league import League
from training.lockstep import LockstepGames, RandomDealer
from training.members import HeuristicMember, NetworkMember, RandomMember, build_member, sample_actions
from training.network import new_network, save_network
from training.vecenv import LockstepVecEnv, one_torch_thread
from training.win_rates import FixedDeals, evaluate


def network_file(tmp_path, game, name="net", seed=0) -> str:
    torch.manual_seed(seed)
    return save_network(new_network(game, network_description([16]), command="tests"), str(tmp_path / name))


def lockstep(game, members: dict, slots=6, seed=0, probabilities=None):
    dealer = RandomDealer(game.num_players, seed)
    ids = list(members)
    dealer.set_probabilities(ids, probabilities or [1 / len(ids)] * len(ids))
    return LockstepGames(game, slots, members, dealer)


def random_actions(games: LockstepGames, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in games.masks])


# --- lockstep games ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", available_games())
def test_every_slot_waits_for_the_learner_with_its_true_view(name):
    """After reset and every step, each slot is the learner's turn; its observation is what a fresh
    observer encodes for the learner's seat in a fresh copy of the game, and its mask is the legal moves
    (random and heuristic opponents, so both kinds of member move in the rounds)."""
    game = make_game(name)
    games = lockstep(game, {0: RandomMember(game, 0), 1: build_member(("agent", "heuristic"), game, 0)}, slots=4)
    games.reset()
    rng = np.random.default_rng(1)
    for _ in range(100):
        for slot in range(games.num_slots):
            state = games.batch.state(slot)
            assert state.current_player == games.seats[slot]
            assert np.array_equal(games.obs[slot], game.observer().observe(state, int(games.seats[slot])))
            assert np.flatnonzero(games.masks[slot]).tolist() == list(state.legal_tuple())
        games.step(random_actions(games, rng))


class Recorded:
    """A member or dealer whose every move and deal is written to a per-slot log (for a replay); a heuristic's
    batched moves are checked against the per-game policy on a fresh copy of each game as they are made."""

    def __init__(self, inner, log: dict, policy=None):
        self.inner, self.log, self.policy = inner, log, policy

    def new_game(self, slot):
        self.inner.new_game(slot)

    def act(self, turn, rows, slots):
        moves = self.inner.act(turn, rows, slots)
        for row, slot, move in zip(rows, slots, moves):
            if self.policy is not None:
                assert move == self.policy(turn.batch.state(int(row)))
            self.log.setdefault(slot, []).append(("move", int(move)))
        return moves

    def deal(self, slot):
        dealt = self.inner.deal(slot)
        self.log.setdefault(slot, []).append(("deal", dealt[0]))
        return dealt


@pytest.mark.parametrize("name", available_games())
def test_each_game_is_its_seeds_deal_played_with_the_members_moves(name):
    """Differential: each game a slot plays is ``env().reset(seed)``'s deal for the seed the dealer drew;
    replaying its moves (the learner's and the members') through the per-game engine gives the same position
    after every step and the same final reward; the batched heuristic moves as the per-game policy."""
    from agents.heuristic import rollout_policy_for
    from envs.core.batch import new_game

    game, log = make_game(name), {}
    members = {
        0: Recorded(RandomMember(game, 0), log),
        1: Recorded(HeuristicMember(game, 0), log, rollout_policy_for(game)),
    }
    dealer = RandomDealer(game.num_players, 4)
    dealer.set_probabilities([0, 1], [0.5, 0.5])
    games = LockstepGames(game, 4, members, Recorded(dealer, log))
    games.reset()
    rng, replayed, ended = np.random.default_rng(3), {}, 0
    for _ in range(60):
        actions = random_actions(games, rng)
        for slot in range(4):
            log[slot].append(("move", int(actions[slot])))
        outcomes = games.step(actions)
        for slot in range(4):
            state = replayed.get(slot)
            for kind, value in log.pop(slot):
                if kind == "deal":
                    if state is not None and outcomes[slot] is not None:
                        assert state.is_terminal()
                        seat, winners = outcomes[slot]["seat"], state.winners()
                        assert outcomes[slot]["reward"] == state.rewards("win")[seat]
                        assert outcomes[slot]["win_points"] == (1 / len(winners) if seat in winners else 0.0)
                        observed = game.observer().observe(state, seat)
                        assert np.array_equal(outcomes[slot]["terminal_observation"], observed)
                        ended += 1
                    state = new_game(game, value)
                else:
                    state.apply(value)
            replayed[slot], log[slot] = state, []
            assert state.to_dict() == games.batch.state(slot).to_dict()
    assert ended > 0


def test_a_slot_reports_its_game_once_when_it_ends_and_is_dealt_a_new_seed():
    """A step either continues a slot's game (same seed, one more learner move) or ends it: then it returns
    the outcome and the slot holds a new deal (a new seed, no learner move yet)."""
    game = make_game("wapi", num_players=3)
    games = lockstep(game, {0: RandomMember(game, 0)}, slots=5)
    games.reset()
    rng, outcomes = np.random.default_rng(2), []
    for _ in range(300):
        seeds, moves = games.batch.seeds.copy(), games.moves.copy()
        for slot, outcome in enumerate(games.step(random_actions(games, rng))):
            if outcome is None:
                assert games.batch.seeds[slot] == seeds[slot] and games.moves[slot] == moves[slot] + 1
            else:
                assert games.batch.seeds[slot] != seeds[slot] and games.moves[slot] == 0
                assert outcome["moves"] == moves[slot] + 1
                outcomes.append(outcome)
    assert len(outcomes) > 20 and {o["seat"] for o in outcomes} == {0, 1, 2}


def test_same_seed_same_games_and_different_seeds_different_games():
    game = make_game("wakanda")

    def trajectory(seed):
        games = lockstep(game, {0: RandomMember(game, seed)}, slots=3, seed=seed)
        games.reset()
        rng, seen = np.random.default_rng(0), []
        for _ in range(60):
            seen.append(games.obs.copy())
            games.step(random_actions(games, rng))
        return np.stack(seen)

    assert np.array_equal(trajectory(1), trajectory(1))
    assert not np.array_equal(trajectory(1), trajectory(2))


def test_an_illegal_learner_action_is_refused():
    game = make_game("wakanda")
    games = lockstep(game, {0: RandomMember(game, 0)}, slots=2)
    games.reset()
    actions = random_actions(games, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~games.masks[1])[0])
    with pytest.raises(ValueError, match="slot 1: the learner chose action .* not legal"):
        games.step(actions)


def test_network_opponents_move_in_one_forward_pass_per_round(tmp_path, monkeypatch):
    """Every game where a network is to move is answered by one batched evaluate call: with one
    network at a 4-player table, a step takes at most 3 rounds (3 opponents), whatever the batch."""
    game = make_game("wapi", num_players=4)
    member = NetworkMember(network_file(tmp_path, game), game, deterministic=False, seed=0)
    calls = []
    real = member.network.policy
    monkeypatch.setattr(member.network, "policy", lambda obs, masks: calls.append(len(obs)) or real(obs, masks))
    games = lockstep(game, {0: member}, slots=16)
    games.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        calls.clear()
        games.step(random_actions(games, rng))
        assert len(calls) <= 3 + 3  # a game that ends may deal one that opens with up to 3 opponent moves
        assert sum(calls) >= 16  # every slot's opponents moved
    assert max(calls) > 1


def test_sampled_moves_are_legal_and_follow_the_probabilities():
    probs = np.array([[0.0, 0.25, 0.0, 0.75]] * 4000)
    picks = np.array(sample_actions(probs, np.random.default_rng(0).random(4000)))
    assert set(picks) == {1, 3} and abs((picks == 3).mean() - 0.75) < 0.03
    assert sample_actions(np.array([[0.0, 1.0, 0.0]]), np.array([0.999999999]))[0] == 1


def test_a_batch_split_over_workers_plays_the_same_games(tmp_path):
    """Every slot has its own generators, so the games do not depend on how the 4 slots are shared out
    (with 2 workers this process plays 1 slot and the workers 1 and 2; with 3, one slot each)."""
    league = League(["random", "heuristic"])

    def run(workers):
        env = LockstepVecEnv("wakanda", {}, "win", 4, league, seed=3, workers=workers)
        try:
            obs, rng, seen = env.reset(), np.random.default_rng(0), []
            for _ in range(40):
                actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
                obs, rewards, dones, infos = env.step(actions)
                seen.append((obs.copy(), rewards.copy(), dones.copy()))
            return seen
        finally:
            env.close()

    alone = run(0)
    for workers in (2, 3):
        for (a, ra, da), (b, rb, db) in zip(alone, run(workers), strict=True):
            assert np.array_equal(a, b) and np.array_equal(ra, rb) and np.array_equal(da, db)


def test_the_main_process_steps_its_share_on_one_torch_thread_and_gets_its_threads_back():
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with one_torch_thread(True):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), one_torch_thread(True):
            raise RuntimeError("a game failed")
        assert torch.get_num_threads() == 2
        with one_torch_thread(False):  # no workers: the games may use every thread
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)


def test_vecenv_reports_finished_games_to_the_league_and_sb3():
    league = League(["random"])
    env = LockstepVecEnv("wakanda", {}, "win", 4, league, seed=0)
    env.reset()
    rng, done_infos = np.random.default_rng(0), []
    for _ in range(120):
        obs, rewards, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        for env_index in np.flatnonzero(dones):
            info = infos[env_index]
            assert info["episode"]["r"] == rewards[env_index] and info["terminal_observation"].shape == obs[0].shape
            done_infos.append(info)
    assert done_infos and league.members[0].games == len(done_infos)
    with pytest.raises(ValueError, match=r"workers must be in 0\.\.4 \(fewer than num_envs, 5\), got 5"):
        LockstepVecEnv("wakanda", {}, "win", 5, league, seed=0, workers=5)


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
def test_evaluation_swaps_seats_on_fixed_deals_and_is_reproducible(tmp_path):
    game = make_game("wapi", num_players=3)
    assert FixedDeals(7, 3, 100).deals == [(100, 0), (100, 1), (100, 2), (101, 0), (101, 1), (101, 2), (102, 0)]
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
