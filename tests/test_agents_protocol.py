"""The agent protocol: views hide the true state, agents play only legal moves, seeds reproduce,
and (anti-cheat) no agent's choice depends on information hidden from its player."""

from __future__ import annotations

import re

import numpy as np
import pytest

import envs
from agents import AGENT_NAMES, Agent, PlayerView, make_agent, play_game
from agents.leaf_values import EVALUATIONS
from envs.core.engine import IllegalActionError
from envs.games import make_game
from tests.conftest import config_id, game_configs

#: every player count and variant of every game
CONFIGS = game_configs()
IDS = [config_id(*c) for c in CONFIGS]


def mid_game_state(game, seed: int, moves: int):
    """A seeded position ``moves`` random moves into a game (stops before the end)."""
    state = game.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    for _ in range(moves):
        legal = state.legal_actions()
        after = state.clone()
        after.apply(legal[int(rng.integers(len(legal)))])
        if after.current_player is None:
            break
        state = after
    return state


# --- make_agent -------------------------------------------------------------------------
def test_make_agent_names_and_errors():
    """Agents are built by name; unknown names and options get an error listing the available ones."""
    game = make_game("wapi")
    assert make_agent("random", game, seed=1).name == "random"
    assert make_agent("heuristic", game).name == "heuristic"
    assert make_agent("ismcts", game, iterations=5).name == "ismcts"
    with pytest.raises(ValueError, match="available: random, heuristic, ismcts, ppo:PATH"):
        make_agent("alphazero", game)
    with pytest.raises(ValueError, match=r"unknown options \['depth'\].*'iterations'"):
        make_agent("ismcts", game, depth=3)
    with pytest.raises(ValueError, match="ppo:PATH"):
        make_agent("ppo", game)
    with pytest.raises(ValueError, match="iterations must be a positive int"):
        make_agent("ismcts", game, iterations=0)
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("ismcts", game, rollout="greedy")
    assert "ppo:PATH" in AGENT_NAMES


def test_play_game_rejects_an_illegal_agent_and_a_wrong_table():
    game = make_game("wapi", num_players=3)

    class Cheater(Agent):
        def act(self, view: PlayerView) -> int:
            return 99

    with pytest.raises(IllegalActionError, match="chose action 99"):
        play_game(game, [Cheater(), make_agent("random"), make_agent("random")], seed=0)
    with pytest.raises(ValueError, match="one agent per player: 3 needed, got 2"):
        play_game(game, [make_agent("random"), make_agent("random")], seed=0)


# --- the view -----------------------------------------------------------------------------
@pytest.mark.parametrize("name,config", CONFIGS, ids=IDS)
def test_view_shows_the_player_what_they_may_see_and_never_the_true_state(name, config):
    """The view's observation, mask and descriptions are the player's; none of its attributes
    is the true state, and its determinizations re-draw hidden facts (fresh copies each time)."""
    game = make_game(name, **config)
    state = mid_game_state(game, seed=3, moves=12)
    player = state.current_player
    view = PlayerView(state, np.random.default_rng(0))
    assert view.player == player and view.game is game
    assert np.array_equal(view.observation, state.observation(player))
    assert np.array_equal(view.legal_mask, state.legal_mask())
    assert list(view.legal_actions) == state.legal_actions()
    described = [view.describe_action(a) for a in view.legal_actions]
    assert described == [state.describe_action(a) for a in state.legal_actions()]
    held = [getattr(view, slot) for slot in PlayerView.__slots__]
    assert all(value is not state for value in held)
    assert not hasattr(view, "__dict__"), "no room for anything else on a view"
    one = view.sample_determinization(np.random.default_rng(1))
    two = view.sample_determinization(np.random.default_rng(1))
    assert one is not two and one.to_dict() == two.to_dict(), "a fresh copy each time, reproducible"
    assert np.array_equal(one.observation(player), state.observation(player))
    assert one.legal_actions() == state.legal_actions()


# --- legality and reproducibility -----------------------------------------------------------
#: Test cost, not game facts: seeded games per configuration where the default (20) is too many or
#: too few, and the games too long for every seat to search in a unit test. A new game needs neither.
GAMES_PER_CONFIG = {"wapi": 40, "wakanda": 60, "samurai": 6}
LONG_GAMES = ("samurai",)


@pytest.mark.parametrize("name,config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_agents_play_only_legal_moves_over_many_seeded_games(name, config, kind):
    """play_game raises on any illegal choice; every game ends with winners and rewards."""
    game = make_game(name, **config)
    for seed in range(GAMES_PER_CONFIG.get(name, 20)):
        agents = [make_agent(kind, game, seed=seed * 10 + p) for p in range(game.num_players)]
        result = play_game(game, agents, seed=seed)
        assert result.winners and len(result.rewards) == game.num_players and result.moves > 0


@pytest.mark.parametrize("name,config", CONFIGS, ids=IDS)
def test_ismcts_with_a_tiny_budget_plays_legal_games(name, config):
    """Both rollout policies; long games (Samurai) get one seat searching, the others random."""
    game = make_game(name, **config)
    for seed, rollout in enumerate(("heuristic", "random")):
        agents = [
            make_agent("ismcts", game, seed=seed + p, iterations=3, rollout=rollout) for p in range(game.num_players)
        ]
        if name in LONG_GAMES:
            agents[1:] = [make_agent("random", game, seed=seed + p) for p in range(1, game.num_players)]
        result = play_game(game, agents, seed=seed)
        assert result.winners


@pytest.mark.parametrize(
    "name,config",
    [c for c in CONFIGS if c[0] not in LONG_GAMES or not c[1]],
    ids=[config_id(*c) for c in CONFIGS if c[0] not in LONG_GAMES or not c[1]],
)
def test_seeds_reproduce_whole_games(name, config):
    """The same seeds give the same moves; another agent seed gives another game (random agents).
    (ISMCTS searches with random rollouts here: Samurai's heuristic rollouts are slow for a unit test.)"""
    game = make_game(name, **config)

    def run(agent_seed: int, kinds: tuple[str, ...]):
        search = {"iterations": 8, "rollout": "random"}
        seats = [kinds[p % len(kinds)] for p in range(game.num_players)]
        agents = [
            make_agent(kind, game, seed=agent_seed + p, **(search if kind == "ismcts" else {}))
            for p, kind in enumerate(seats)
        ]
        return play_game(game, agents, seed=11, record=True).actions

    mixed = ("ismcts", "heuristic", "random")
    assert run(5, mixed) == run(5, mixed)
    assert run(5, ("random",)) != run(6, ("random",))


# --- anti-cheat -------------------------------------------------------------------------------
def hidden_twin(state, player: int, seed: int):
    """A state that differs from ``state`` only in what ``player`` cannot see (a re-deal of it)."""
    twin = state.determinize(player, np.random.default_rng(seed))
    assert np.array_equal(twin.observation(player), state.observation(player))
    return twin


#: every configuration: each hides something else (a bag, hands, face-down villages, a drafted set-up)
ANTI_CHEAT = CONFIGS


def twin_positions(game):
    """``(seed, state, twin, player)`` for six mid-game positions: each with a choice for ``player`` (to act)
    and a twin that differs from it only in what that player cannot see (those where nothing is hidden any
    more, late in the game, are left out)."""
    for seed in range(6):
        state = mid_game_state(game, seed=seed, moves=8 + 3 * seed)
        player = state.current_player
        if len(state.legal_actions()) < 2:
            continue
        twin = hidden_twin(state, player, seed=100 + seed)
        if twin.to_dict() != state.to_dict():
            yield seed, state, twin, player


@pytest.mark.parametrize("name,config", ANTI_CHEAT, ids=IDS)
@pytest.mark.parametrize(
    "kind,options", [("heuristic", {}), pytest.param("ismcts", {"iterations": 60}, marks=pytest.mark.slow)]
)
def test_choices_do_not_depend_on_hidden_information(name, config, kind, options):
    """With a fixed seed an agent chooses the same in two states that differ only in information
    hidden from its player (bag order re-shuffled, other hands/piles re-dealt, face-down villages swapped)."""
    game = make_game(name, **config)
    checked = 0
    for seed, state, twin, _ in twin_positions(game):
        if kind == "ismcts" and name in LONG_GAMES:
            options = {"iterations": 12}  # its heuristic rollouts are slow; a few samples show the point
        a = make_agent(kind, game, seed=42, **options).act(PlayerView(state, np.random.default_rng(1)))
        b = make_agent(kind, game, seed=42, **options).act(PlayerView(twin, np.random.default_rng(2)))
        assert a == b, f"seed {seed}: {state.describe_action(a)} vs {twin.describe_action(b)}"
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("name,config", ANTI_CHEAT, ids=IDS)
def test_determinizations_depend_only_on_what_the_player_knows(name, config):
    """What makes the anti-cheat test meaningful: the engine's determinize gives the same sample
    from two states that differ only in hidden facts (so agents' samples cannot carry them)."""
    game = make_game(name, **config)
    state = mid_game_state(game, seed=4, moves=15)
    player = state.current_player
    twin = hidden_twin(state, player, seed=9)
    one = state.determinize(player, np.random.default_rng(5))
    two = twin.determinize(player, np.random.default_rng(5))
    assert one.to_dict() == two.to_dict()


EVALUATED = [c for c in CONFIGS if c[0] in EVALUATIONS]


@pytest.mark.parametrize("name,config", EVALUATED, ids=[config_id(*c) for c in EVALUATED])
def test_ismcts_truncated_rollouts_with_an_evaluation_play_legal_games(name, config):
    """rollout_depth=k stops rollouts after k plies and scores the position with the game's leaf
    evaluation (``agents.leaf_values.EVALUATIONS``), in every configuration of every game that has one."""
    game = make_game(name, **config)
    for seed, depth in enumerate((0, 2)):
        agents = [make_agent("ismcts", game, seed=seed, iterations=4, rollout_depth=depth)]
        agents += [make_agent("random", game, seed=seed + p) for p in range(1, game.num_players)]
        assert play_game(game, agents, seed=seed).winners


def test_ismcts_rollout_depth_is_checked():
    with pytest.raises(ValueError, match="rollout_depth must be"):
        make_agent("ismcts", make_game("samurai", num_players=2), rollout_depth=-1)
    with pytest.raises(ValueError, match="needs a position evaluation"):
        make_agent("ismcts", make_game("wakanda"), rollout_depth=2)
    assert (
        make_agent("ismcts", make_game("wakanda")).settings.rollout_depth is None
    )  # auto: no evaluation, play to the end
    with pytest.raises(ValueError, match="needs a position evaluation"):
        make_agent("ismcts", make_game("samurai", num_players=2), leaf_evaluation=None)  # its depth 0 needs one
    with pytest.raises(ValueError, match=r"^leaf_evaluation must be 'auto', None or a callable .*, got 'mine'$"):
        make_agent("ismcts", make_game("wakanda"), leaf_evaluation="mine")


def test_ismcts_values_its_leaves_with_the_evaluation_it_is_given():
    """leaf_evaluation=: any callable (state, rnd) -> (win, scores) stands in for the game's own (Wakanda has
    none): the search asks it at every cut-off leaf, of unfinished positions only, and plays legal games."""
    game = make_game("wakanda")
    seen = []

    def mine(state, rnd):
        assert state.current_player is not None
        seen.append(state.current_player)
        return [0.0] * game.num_players, state.scores()

    agents = [make_agent("ismcts", game, seed=1, iterations=20, rollout_depth=1, leaf_evaluation=mine)]
    agents.append(make_agent("random", game, seed=2))
    assert play_game(game, agents, seed=3).winners
    assert len(seen) > 20


# --- ISMCTS options ----------------------------------------------------------------------------
def test_ismcts_auto_options_take_the_games_tuned_values():
    """'auto' options resolve per game (agents.tuning.SEARCH); explicit values win over them."""
    wapi = make_agent("ismcts", make_game("wapi", num_players=4))
    assert (
        wapi.settings.paired_root,
        wapi.settings.tree_depth,
        wapi.settings.rollout_epsilon,
        wapi.settings.rollout_depth,
    ) == (True, 1, 0.0, None)
    wakanda = make_agent("ismcts", make_game("wakanda"))
    assert (wakanda.settings.paired_root, wakanda.settings.tree_depth, wakanda.settings.rollout_epsilon) == (
        False,
        None,
        0.1,
    )
    assert make_agent("ismcts", make_game("samurai", num_players=2)).settings.rollout_depth == 0
    mine = make_agent(
        "ismcts", make_game("wapi", num_players=4), paired_root=False, tree_depth=None, rollout_epsilon=0.2
    )
    assert (mine.settings.paired_root, mine.settings.tree_depth, mine.settings.rollout_epsilon) == (False, None, 0.2)


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("paired_root", "yes", "paired_root must be 'auto', True or False"),
        ("tree_depth", 0, "tree_depth must be 'auto', a positive int or None"),
        ("tree_depth", 1.5, "tree_depth must be 'auto', a positive int or None"),
        ("rollout_epsilon", "always", "rollout_epsilon must be 'auto' or a number in"),
    ],
)
def test_ismcts_search_shape_options_are_checked(option, value, message):
    with pytest.raises(ValueError, match=message):
        make_agent("ismcts", make_game("wapi", num_players=4), **{option: value})


@pytest.mark.parametrize(
    "option,value",
    [
        ("time_limit", float("nan")),
        ("time_limit", float("inf")),
        ("time_limit", 0),
        ("time_limit", -1.0),
        ("time_limit", True),
        ("time_limit", "1"),
        ("iterations", 0),
        ("iterations", 10.0),
        ("iterations", True),
        ("exploration", float("nan")),
        ("exploration", float("inf")),
        ("exploration", -0.5),
        ("score_weight", float("nan")),
        ("rollout_epsilon", float("nan")),
        ("widening", float("inf")),
        ("widening", 0),
    ],
)
def test_ismcts_refuses_budgets_and_weights_that_are_not_finite_and_positive(option, value):
    """A search budget of nan or inf seconds would never return: every numeric option is refused
    by name unless it is a finite real number in range (bools are not numbers here)."""
    with pytest.raises(ValueError, match=f"^{option} must be .*, got {re.escape(repr(value))}$"):
        make_agent("ismcts", make_game("wapi", num_players=3), **{option: value})


def test_agent_errors_quote_a_cut_value():
    """A rejected value is quoted cut short, not whole (a 200,000-item list is not a 1 MB message)."""
    huge = list(range(200_000))
    for call in (
        lambda: make_agent(huge),
        lambda: make_agent("ismcts", make_game("wakanda"), time_limit=huge),
        lambda: make_agent("ismcts", make_game("wakanda"), **{"x" * 100_000: 1}),
    ):
        with pytest.raises(ValueError) as error:
            call()
        assert len(str(error.value)) < 400, str(error.value)[:400]


def one_iteration(game, **options):
    """The root of ISMCTS's tree after one iteration, and the legal actions there (one simulation asked
    for: a search with batch rollouts then plays one determinization too)."""
    from agents.tree import UNIFORM, Node

    state = mid_game_state(game, seed=3, moves=12)
    while len(state.legal_actions()) < 3:
        state.apply(state.legal_actions()[0])
    agent = make_agent("ismcts", game, seed=0, **options)
    root = Node(UNIFORM)
    simulations = agent._simulations(PlayerView(state, np.random.default_rng(0)), root, 1)
    return root, state.legal_actions(), simulations


def test_paired_root_plays_each_sample_out_for_every_root_action():
    """paired_root: one determinization, one simulation per root action (counted in the budget)."""
    game = make_game("wapi", num_players=4)
    root, legal, simulations = one_iteration(game, paired_root=True)
    assert simulations == len(legal) and sorted(root.edges) == sorted(legal)
    assert all(edge.visits == edge.avail == 1 for edge in root.edges.values())
    root, legal, simulations = one_iteration(game, paired_root=False)
    assert simulations == 1 and len(root.edges) == 1


def test_tree_depth_bounds_the_tree():
    """tree_depth=1 keeps only the root's edges (flat Monte Carlo); None grows below them."""
    game = make_game("wapi", num_players=4)
    root, _, _ = one_iteration(game, paired_root=True, tree_depth=1)
    assert all(not edge.children for edge in root.edges.values())
    root, _, _ = one_iteration(game, paired_root=True, tree_depth=None)
    assert all(edge.children for edge in root.edges.values())


def test_paired_root_uses_the_same_dice_for_every_action(monkeypatch):
    """Common random numbers: with the same seed, the rollout dice are rewound before each root
    action, so every action meets the same bag order and the same rollout randomness."""
    from agents.ismcts import ISMCTSAgent

    game = make_game("wapi", num_players=4)
    seen = []
    original = ISMCTSAgent._simulate

    def spy(self, state, root, me, leaves, first=None):
        seen.append((tuple(state.bag), self.rnd.getstate()))
        return original(self, state, root, me, leaves, first)

    monkeypatch.setattr(ISMCTSAgent, "_simulate", spy)
    _, legal, _ = one_iteration(game, paired_root=True, rollout_epsilon=0.5)
    assert len(seen) == len(legal) and len(set(seen)) == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", envs.GAMES)
def test_ismcts_chance_keys_from_its_followed_observer_are_true_observations(name, monkeypatch):
    """The search keeps one observer and tells it of every move of a walk; every key it reads must
    equal the observation a fresh observer encodes from scratch (so the tree splits on what the
    player really sees, as when each key was a fresh ``state.observation``)."""
    from agents.ismcts import ISMCTSAgent

    game = make_game(name)
    keys = []

    class Checked:
        def __init__(self, observer):
            self.inner, self.game = observer, observer.game

        def follow(self, state):
            self.inner.follow(state)

        def applied(self, state, action):
            self.inner.applied(state, action)

        def observe(self, state, player):
            seen = self.inner.observe(state, player)
            assert np.array_equal(seen, state.game.observer().observe(state, player))
            keys.append(seen.tobytes())
            return seen

    original = ISMCTSAgent.act

    def act(self, view):
        self._observer = Checked(view.game.observer())
        return original(self, view)

    monkeypatch.setattr(ISMCTSAgent, "act", act)
    for seed in range(3):
        state = mid_game_state(game, seed=seed, moves=5 + 4 * seed)
        agent = make_agent("ismcts", game, seed=seed, iterations=60, paired_root=False, tree_depth=None, widening=None)
        assert agent.act(PlayerView(state, np.random.default_rng(seed))) in state.legal_actions()
    assert len(keys) > 30 and len(set(keys)) > 3, "the walks went below the root and split on outcomes"
