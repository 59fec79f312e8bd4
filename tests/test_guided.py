"""ISMCTS guided by a network (agents/guided.py, agents/network_evaluator.py): the fast forward pass equals the
network's, values reach every player, a network for another game is refused before any search,
searches reproduce from their seed, the prior steers them, backups are exact, and hidden information
never changes a choice."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_agents_protocol import ANTI_CHEAT, mid_game_state, twin_positions

from agents import PlayerView, make_agent, play_game
from agents.guided import GuidedISMCTSAgent
from agents.heuristic_evaluator import HeuristicEvaluator
from agents.models.card import network_description
from agents.network_evaluator import InferenceNet, NetworkEvaluator
from envs.games import make_game
from training.network import new_network, save_network

GAMES = [
    ("wakanda", {}),
    ("samurai", {"num_players": 2}),
    ("wapi", {"num_players": 4}),
    ("samurai", {"num_players": 3}),
]
IDS = [f"{name}{config.get('num_players', '')}" for name, config in GAMES]


def tiny_network(game, seed: int = 0, shared=(16,), pi=(16,), activation="tanh"):
    torch.manual_seed(seed)
    return new_network(
        game, network_description(list(pi), shared=list(shared), activation=activation), command="tests/test_guided.py"
    )


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    """A small random network saved for each game configuration: {(name, num_players): path}."""
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for name, config in GAMES:
        game = make_game(name, **config)
        paths[name, game.num_players] = save_network(tiny_network(game), str(folder / f"{name}{game.num_players}"))
    return paths


def model_for(model_files, game) -> str:
    return "ppo:" + model_files[game.name, game.num_players]


# --- the evaluator ------------------------------------------------------------------------------
@pytest.mark.parametrize("shared,pi,activation", [((16,), (16,), "tanh"), ((), (32, 16), "relu")])
@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_inference_net_equals_the_networks_own_forward_pass(name, config, shared, pi, activation):
    game = make_game(name, **config)
    net = tiny_network(game, seed=3, shared=shared, pi=pi, activation=activation)
    rng = np.random.default_rng(0)
    obs = rng.random((7, game.observation_size), dtype=np.float32)
    masks = rng.random((7, game.num_actions)) < 0.3
    masks[:, 0] = True
    want_probs, want_values = net.evaluate(obs, masks)
    probs, values = InferenceNet(net)(obs, masks)
    np.testing.assert_allclose(probs, want_probs, atol=1e-6)
    np.testing.assert_allclose(values, want_values, atol=1e-6)


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_evaluator_gives_every_player_its_own_value(name, config):
    """The mover's value from its observation; with two players the other's is its negation (zero-sum
    win rewards), at larger tables each player's own observation is evaluated. Checked against the
    network on observations from fresh observers; priors live on the legal moves only."""
    game = make_game(name, **config)
    net = tiny_network(game, seed=5)
    evaluator = NetworkEvaluator(net, game)
    states = [mid_game_state(game, seed=s, moves=3 + 4 * s) for s in range(4)]
    priors, values = evaluator.evaluate(states)
    for k, state in enumerate(states):
        mover = state.current_player
        mask = np.zeros((1, game.num_actions), bool)
        mask[0, state.legal_actions()] = True
        want_probs, want_value = net.evaluate(game.observer().observe(state, mover)[None], mask)
        np.testing.assert_allclose(priors[k], want_probs[0], atol=1e-6)
        assert priors[k][~mask[0]].sum() == 0 and abs(priors[k].sum() - 1) < 1e-5
        for p in range(game.num_players):
            if p == mover:
                want = want_value[0]
            elif game.num_players == 2:
                want = -want_value[0]
            else:
                want = net.evaluate(game.observer().observe(state, p)[None], np.ones((1, game.num_actions), bool))[1][0]
            assert values[k, p] == pytest.approx(want, abs=1e-6)


# --- refusals -------------------------------------------------------------------------------------
def test_a_network_for_another_game_or_configuration_is_refused_before_any_search(model_files, monkeypatch):
    """The model's card is compared with the game when the agent is built: nothing is searched."""
    monkeypatch.setattr(GuidedISMCTSAgent, "search", lambda *a: pytest.fail("searched with a refused network"))
    samurai2 = model_files["samurai", 2]
    with pytest.raises(ValueError, match="trained for game 'samurai', not 'wakanda'"):
        make_agent("ismcts", make_game("wakanda"), network=f"ppo:{samurai2}")
    with pytest.raises(ValueError, match="trained for samurai configuration"):
        make_agent("ismcts", make_game("samurai", num_players=3), network=samurai2)
    loaded = tiny_network(make_game("wapi", num_players=4))
    with pytest.raises(ValueError, match="trained for wapi configuration"):
        make_agent("ismcts", make_game("wapi", num_players=3), network=loaded)
    with pytest.raises(ValueError, match="model file not found"):
        make_agent("ismcts", make_game("wakanda"), network="ppo:/no/such/model")


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("c_puct", -1, "c_puct must be 'auto' or a non-negative number"),
        ("c_puct", float("nan"), "c_puct must be"),
        ("c_puct", True, "c_puct must be"),
        ("value_mix", 1.5, r"value_mix must be 'auto' or a number in \[0, 1\]"),
        ("value_mix", "half", "value_mix must be"),
        ("leaf_batch", 0, "leaf_batch must be 'auto' or a positive int"),
        ("leaf_batch", 2.0, "leaf_batch must be"),
        ("prior_temperature", 0, "prior_temperature must be 'auto' or a positive number"),
        ("prior_temperature", True, "prior_temperature must be"),
        ("widening", 0, "widening must be a positive, finite number or None"),
        ("iterations", 0, "iterations must be a positive int"),
        ("network", 3, "network must be 'trained', 'ppo:PATH'"),
        ("network", "expert", "model file not found"),  # no search network is shipped: a path like any other
        ("evaluator", object(), "exactly one of them"),  # given with network=...
    ],
)
def test_guided_options_are_checked(model_files, option, value, message):
    game = make_game("wakanda")
    options = {"network": model_for(model_files, game), option: value}
    with pytest.raises(ValueError, match=message):
        make_agent("ismcts", game, **options)


def test_guided_options_without_a_network_are_named():
    with pytest.raises(
        ValueError, match=r"unknown options \['c_puct'\] for agent 'ismcts' \(\['c_puct'\] need network"
    ):
        make_agent("ismcts", make_game("wakanda"), c_puct=2.0)


# --- the search ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,config", GAMES[:3], ids=IDS[:3])
def test_guided_searches_reproduce_from_their_seeds(model_files, name, config):
    """Budgeted in iterations, the same seeds give the same moves and the same visit counts over the
    first 24 moves of a game; another agent seed other visit counts."""
    game = make_game(name, **config)
    network = model_for(model_files, game)

    def run(agent_seed: int):
        return search_trace(
            game,
            24,
            lambda p: make_agent("ismcts", game, network=network, iterations=12, leaf_batch=4, seed=agent_seed + p),
        )

    first = run(1)
    assert first == run(1)
    assert first != run(2)


def search_trace(game, moves: int, agent_for) -> list:
    """The first ``moves`` moves of a seeded game between guided searches (``agent_for(player)``), with the
    visit counts of each search."""
    agents = [agent_for(p) for p in range(game.num_players)]
    state, rng, trace = game.new_state(np.random.default_rng(7)), np.random.default_rng(8), []
    while state.current_player is not None and len(trace) < moves:
        agent = agents[state.current_player]
        action = agent.act(PlayerView(state, rng))
        trace.append((action, agent.visit_distribution().tobytes() if agent.last_root else None))
        agent.last_root = None
        state.apply(action)
    return trace


@pytest.mark.parametrize("name,config", GAMES[:3], ids=IDS[:3])
def test_the_prior_steers_the_search(name, config):
    """A network that puts almost all its prior on one legal move makes that move the most visited
    (values are all zero, the network's alone: nothing else tells the moves apart)."""
    game = make_game(name, **config)
    for seed in range(3):
        state = mid_game_state(game, seed=seed, moves=5 + seed)
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        for favourite in (legal[0], legal[-1]):
            net = tiny_network(game)
            with torch.no_grad():
                for parameter in net.module.value_net.parameters():
                    parameter.zero_()
                net.module.action_net.weight.zero_()
                net.module.action_net.bias.zero_()
                net.module.action_net.bias[favourite] = 12.0
            agent = make_agent("ismcts", game, network=net, iterations=40, value_mix=0.0, seed=seed)
            assert agent.act(PlayerView(state, np.random.default_rng(seed))) == favourite


class FavouriteEvaluator:
    """A hand-written evaluator (no network): all its prior on one move wherever that move is legal, else
    uniform; every value zero. It records the positions it was asked about."""

    def __init__(self, game, favourite):
        self.game, self.favourite, self.asked = game, favourite, []

    def evaluate(self, states):
        self.asked += states
        priors = np.zeros((len(states), self.game.num_actions), np.float32)
        for k, state in enumerate(states):
            legal = state.legal_actions()
            if self.favourite in legal:
                priors[k, self.favourite] = 1.0
            else:
                priors[k, legal] = 1 / len(legal)
        return priors, np.zeros((len(states), self.game.num_players), np.float32)


@pytest.mark.parametrize("name,config", GAMES[:3], ids=IDS[:3])
def test_a_hand_written_evaluator_guides_the_search(name, config):
    """evaluator=: any object with evaluate(states) -> (priors, values) guides the search in place of a
    network (as OpenSpiel's MCTS takes an evaluator): with all its prior on one legal move the search plays
    that move, whichever it is, and the evaluator was asked about unfinished positions of this game only."""
    game = make_game(name, **config)
    state = mid_game_state(game, seed=1, moves=6)
    legal = state.legal_actions()
    assert len(legal) >= 2
    for favourite in (legal[0], legal[-1]):
        guide = FavouriteEvaluator(game, favourite)
        agent = make_agent("ismcts", game, evaluator=guide, iterations=40, value_mix=0.0, seed=0)
        assert isinstance(agent, GuidedISMCTSAgent) and agent.evaluator is guide
        assert agent.act(PlayerView(state, np.random.default_rng(0))) == favourite
        assert guide.asked and all(s.game is game and s.current_player is not None for s in guide.asked)


def test_a_search_begins_no_simulation_once_its_time_is_spent(monkeypatch):
    """On a time budget the guided search checks its clock before each simulation, not only between
    batches of them, so a move ends within one simulation of its budget: with a clock that moves 1 ms at
    each reading and 50 ms to think, about fifty simulations run, not fifty batches of them."""
    import agents.ismcts

    game = make_game("samurai", num_players=3)
    state = mid_game_state(game, seed=1, moves=6)
    agent = make_agent("best", game, time_limit=0.05, seed=0).agent
    ticks = iter(range(10**6))
    monkeypatch.setattr(agents.ismcts.time, "process_time", lambda: next(ticks) / 1000)
    agent.act(PlayerView(state, np.random.default_rng(0)))
    assert 40 <= agent.last_iterations <= 60


def test_the_evaluator_option_is_checked():
    """evaluator= is refused, naming what it must be, when it has no evaluate method, when given with a network,
    or without a game."""
    game = make_game("wakanda")
    with pytest.raises(ValueError, match=r"^evaluator must be .heuristic. or an object with evaluate.*, got 3$"):
        make_agent("ismcts", game, evaluator=3)
    with pytest.raises(ValueError, match="exactly one of them"):
        make_agent("ismcts", game, evaluator=FavouriteEvaluator(game, 0), network="trained")
    with pytest.raises(ValueError, match="needs game="):
        make_agent("ismcts", None, evaluator=FavouriteEvaluator(game, 0))


def test_progressive_widening_admits_moves_in_the_priors_order():
    """With widening w a move is admitted while the root holds fewer than 1 + w * sqrt(visits), the most
    probable first."""
    game = make_game("samurai", num_players=2)
    state = mid_game_state(game, seed=0, moves=1)
    legal = state.legal_actions()
    assert len(legal) > 10
    net = tiny_network(game, seed=2)
    probs, _ = net.evaluate(
        game.observer().observe(state, state.current_player)[None], np.isin(np.arange(game.num_actions), legal)[None]
    )
    agent = make_agent("ismcts", game, network=net, iterations=50, widening=0.5, seed=0)
    root = agent.search(PlayerView(state, np.random.default_rng(0)))
    admitted = list(root.edges)
    assert root.visits == 49 and 1 < len(admitted) < 2 + 0.5 * np.sqrt(root.visits)
    by_prior = sorted(legal, key=lambda a: -probs[0, a])
    assert sorted(admitted) == sorted(by_prior[: len(admitted)])


@pytest.mark.parametrize("temperature", [1.0, 2.0, 0.5])
def test_the_prior_temperature_flattens_or_sharpens_the_networks_probabilities(temperature):
    """The root's prior is the network's legal-move probabilities to the power 1 / prior_temperature,
    renormalised: the same order of moves, flatter above 1, sharper below."""
    game = make_game("samurai", num_players=2)
    state = mid_game_state(game, seed=0, moves=1)
    legal = state.legal_actions()
    net = tiny_network(game, seed=2)
    probs, _ = net.evaluate(
        game.observer().observe(state, state.current_player)[None], np.isin(np.arange(game.num_actions), legal)[None]
    )
    agent = make_agent("ismcts", game, network=net, iterations=3, prior_temperature=temperature, seed=0)
    prior = agent.search(PlayerView(state, np.random.default_rng(0))).prior
    expected = probs[0, legal].astype(np.float64) ** (1 / temperature)
    np.testing.assert_allclose([prior[a] for a in legal], expected / expected.sum(), rtol=1e-5)
    spread = np.std(probs[0, legal])
    assert {1.0: np.isclose, 2.0: np.less, 0.5: np.greater}[temperature](np.std(list(prior.values())), spread)


class ConstantEvaluator:
    """Uniform priors and a fixed value per seat: every backed-up mean is then known exactly."""

    def __init__(self, game, values):
        self.game, self.values = game, np.array(values, np.float32)

    def evaluate(self, states):
        priors = np.zeros((len(states), self.game.num_actions), np.float32)
        for k, state in enumerate(states):
            priors[k, state.legal_actions()] = 1 / len(state.legal_actions())
        return priors, np.tile(self.values, (len(states), 1))


def edges_of(node):
    for edge in node.edges.values():
        yield edge
        for child in edge.children.values():
            yield from edges_of(child)


@pytest.mark.parametrize("value_mix", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("name,config", GAMES[:3], ids=IDS[:3])
def test_backups_are_exact_and_leave_no_virtual_loss(model_files, monkeypatch, name, config, value_mix):
    """With a constant evaluator (and, mixed in, a constant plain value) every edge's mean is the
    leaf value of the player who chose it: virtual losses are all taken back, signs are right;
    the visits below the root add up to the budget."""
    game = make_game(name, **config)
    n = game.num_players
    network_values = [0.5 - p / n for p in range(n)]
    plain_values = [-0.25 + p / (2 * n) for p in range(n)]
    agent = make_agent(
        "ismcts", game, network=model_for(model_files, game), iterations=150, leaf_batch=5, value_mix=value_mix, seed=3
    )
    agent.evaluator = ConstantEvaluator(game, network_values)
    monkeypatch.setattr(agent.leaf, "value", lambda state: plain_values)
    # Early, so no simulation reaches the end; Samurai in play, where its first move draws nothing
    # (each draw is a node of its own, and a node is expanded on its third visit).
    state = mid_game_state(game, seed=2, moves=30 if name == "samurai" else 4)
    root = agent.search(PlayerView(state, np.random.default_rng(0)))
    assert sum(edge.visits for edge in root.edges.values()) == 150 - 1  # the first simulation evaluated the root
    mixed = [(1 - value_mix) * v + value_mix * w for v, w in zip(network_values, plain_values)]
    edges = list(edges_of(root))
    assert len(edges) > len(root.edges)  # edges below the root too
    for edge in edges:
        assert min(abs(edge.total / edge.visits - v) for v in mixed) < 1e-9
    for edge in root.edges.values():  # the root's edges are the searcher's choices
        assert edge.total / edge.visits == pytest.approx(mixed[state.current_player], abs=1e-9)


class CountingEvaluator:
    """The real evaluator, counting the positions it is asked about."""

    def __init__(self, inner):
        self.inner, self.game, self.rows = inner, inner.game, 0

    def evaluate(self, states):
        self.rows += len(states)
        return self.inner.evaluate(states)


def nodes_of(node):
    yield node
    for edge in node.edges.values():
        for child in edge.children.values():
            yield from nodes_of(child)


@pytest.mark.parametrize("name,config", GAMES[:3], ids=IDS[:3])
def test_with_the_plain_value_alone_a_prior_is_asked_only_for_nodes_reached_again(model_files, name, config):
    """value_mix 1: a node reached once is valued without the network; every node walked through has its
    prior; the network sees far fewer positions than there are simulations (with a network value in the
    mix it sees one per unfinished simulation)."""
    game = make_game(name, **config)
    state = mid_game_state(game, seed=4, moves=30 if name == "samurai" else 4)
    rows = {}
    for value_mix in (1.0, 0.99):
        agent = make_agent("ismcts", game, network=model_for(model_files, game), iterations=200, value_mix=value_mix)
        agent.evaluator = CountingEvaluator(agent.evaluator)
        root = agent.search(PlayerView(state, np.random.default_rng(0)))
        nodes = list(nodes_of(root))
        assert all(node.prior is not None for node in nodes if node.edges)
        rows[value_mix] = agent.evaluator.rows
    assert rows[0.99] == 200  # early in the game no simulation reaches the end
    assert rows[1.0] < 200 / 2


class ScratchObserver:
    """An observer that ignores follow/applied: every observation encoded from scratch."""

    def __init__(self, game):
        self.inner = game.observer()

    def follow(self, state):
        pass

    def applied(self, state, action):
        pass

    def observe(self, state, player):
        return self.inner.observe(state, player)


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_chance_keys_told_of_each_move_equal_keys_encoded_from_scratch(model_files, name, config):
    """The search's observer follows each simulation incrementally; encoding every key from scratch
    instead gives the same tree."""
    game = make_game(name, **config)
    state = mid_game_state(game, seed=5, moves=20)
    trees = []
    for observer in (None, ScratchObserver(game)):
        agent = make_agent("ismcts", game, network=model_for(model_files, game), iterations=120, seed=9)
        if observer is not None:
            agent._observer = observer
        root = agent.search(PlayerView(state, np.random.default_rng(0)))
        trees.append([(len(node.edges), node.visits, round(node.value, 6)) for node in nodes_of(root)])
    assert trees[0] == trees[1] and len(trees[0]) > 10


def test_visit_distribution_is_the_roots_visits(model_files):
    game = make_game("samurai", num_players=2)
    agent = make_agent("ismcts", game, network=model_for(model_files, game), iterations=50, seed=1)
    state = mid_game_state(game, seed=1, moves=6)
    view = PlayerView(state, np.random.default_rng(0))
    action = agent.act(view)
    policy = agent.visit_distribution()
    assert policy.shape == (game.num_actions,) and abs(policy.sum() - 1) < 1e-6
    assert set(np.flatnonzero(policy)) <= set(view.legal_actions)
    assert policy[action] == policy.max()


def play_guided(game, agent, seed: int, opponent="heuristic"):
    """Play one game with ``agent`` in seat 0; returns, per search, the root's visits below it."""
    roots = []
    act = agent.act

    def recording(view):
        action = act(view)
        roots.append(sum(edge.visits for edge in agent.last_root.edges.values()))
        return action

    agent.act = recording
    others = [make_agent(opponent, game, seed=p) for p in range(1, game.num_players)]
    play_game(game, [agent, *others], seed=seed)
    return roots


def test_the_tree_is_kept_from_one_move_to_the_next(model_files):
    """keep_tree: a search starts from the node of the last move's tree that the game reached (Samurai's
    turn is several decisions in a row), so its root holds more than its own budget's simulations; without
    it every root holds the budget alone. The kept game reproduces from its seed; reset forgets the tree."""
    game = make_game("samurai", num_players=2)
    network = model_for(model_files, game)
    kept = play_guided(game, make_agent("ismcts", game, network=network, iterations=40, seed=1), seed=3)
    fresh = play_guided(game, make_agent("ismcts", game, network=network, iterations=40, seed=1, keep_tree=False), 3)
    assert set(fresh) == {39}  # the first simulation evaluates the root
    assert sum(v > 40 for v in kept) >= len(kept) // 4
    assert kept == play_guided(game, make_agent("ismcts", game, network=network, iterations=40, seed=1), seed=3)
    agent = make_agent("ismcts", game, network=network, iterations=40, seed=1)
    play_guided(game, agent, seed=3)
    agent.reset()
    state = mid_game_state(game, seed=3, moves=30)
    agent.act(PlayerView(state, np.random.default_rng(0)))
    assert sum(edge.visits for edge in agent.last_root.edges.values()) == 39
    one = make_agent("ismcts", game, network=network, iterations=1, seed=1)  # the root evaluated, nothing kept
    assert len(play_guided(game, one, seed=3)) > 10


@pytest.mark.parametrize(
    "options,message",
    [
        ({"keep_tree": 1}, "keep_tree must be True or False, got 1"),
        ({"split_chance": False}, "keep_tree=True needs split_chance=True"),
    ],
)
def test_keep_tree_is_checked(model_files, options, message):
    game = make_game("samurai", num_players=2)
    with pytest.raises(ValueError, match=message):
        make_agent("ismcts", game, network=model_for(model_files, game), **options)
    if "split_chance" in options:  # without the keys, without the kept tree
        make_agent("ismcts", game, network=model_for(model_files, game), keep_tree=False, **options)


# --- anti-cheat ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,config", ANTI_CHEAT)
def test_guided_choices_do_not_depend_on_hidden_information(name, config):
    """As for every agent (tests/test_agents_protocol.py): the same choice in two states that differ only
    in what the searcher cannot see; and the same next choices, searched from the kept tree, while the
    same player keeps deciding (the tree was grown from its own views alone)."""
    game = make_game(name, **config)
    net = tiny_network(game, seed=11)
    checked = reused = 0
    for seed, state, twin, player in twin_positions(game):
        agents = [make_agent("ismcts", game, network=net, iterations=30, seed=42) for _ in range(2)]
        positions = [state, twin]
        for _ in range(3):
            views = [PlayerView(s, np.random.default_rng(k)) for k, s in enumerate(positions)]
            a, b = (agent.act(view) for agent, view in zip(agents, views))
            assert a == b, f"seed {seed}: {state.describe_action(a)} vs {twin.describe_action(b)}"
            for s in positions:
                s.apply(a)
            if positions[0].current_player != player or len(positions[0].legal_actions()) < 2:
                break
            assert np.array_equal(positions[0].observation(player), positions[1].observation(player))
            reused += agents[0]._reached(PlayerView(positions[0], np.random.default_rng(0))) is not None
        checked += 1
    assert checked >= 3
    assert reused >= 2 or name != "samurai"


# --- the strength benchmark ------------------------------------------------------------------------------
def test_the_strength_benchmark_seats_the_guided_search(model_files, tmp_path, capsys):
    """--network and --guided-option reach the guided hero, the plain ISMCTS opponent keeps its own
    budget; a network for another game stops the run before any game, with the loader's message."""
    from research.strength import main

    out = tmp_path / "strength.md"
    wakanda = model_files["wakanda", 2]
    main(
        [
            "--only",
            "wakanda-guided-vs-ismcts",
            "--network",
            f"wakanda=ppo:{wakanda}",
            "--ismcts-games",
            "2",
            "--ismcts-iterations",
            "5",
            "--guided-iterations",
            "7",
            "--guided-option",
            "c_puct=2.5",
            "--processes",
            "1",
            "--out",
            str(out),
        ]
    )
    text = out.read_text()
    assert "| wakanda-guided-vs-ismcts | 2 |" in text
    assert "ISMCTS budget and options {'iterations': 5}; guided search {'iterations': 7, 'c_puct': 2.5}" in text
    with pytest.raises(SystemExit):
        main(["--only", "samurai2-guided-vs-heuristic", "--network", f"ppo:{wakanda}", "--out", str(out)])
    assert "trained for game 'wakanda', not 'samurai'" in capsys.readouterr().err


# --- the best agent -------------------------------------------------------------------------------------
def test_best_is_the_guided_search_where_its_guide_is_shipped():
    """make_agent("best") is the search guided by the network agents.tuning.BEST_GUIDE names (Wakanda and
    Samurai: the shipped trained model) where that configuration has it, else by the guide
    BEST_GUIDE_WITHOUT_MODEL names (Samurai: the heuristic), else plain ISMCTS; the terminal
    game and the tournament seat it."""
    from agents import play as terminal
    from benchmarks.tournament.run import plan_tournament, play, summarize

    wakanda = make_game("wakanda")
    best = make_agent("best", wakanda, iterations=5, seed=1)
    assert isinstance(best.agent, GuidedISMCTSAgent) and best.choice == "ismcts guided by wakanda.zip"  # agents/models
    advanced = make_agent("best", make_game("wakanda", advanced=True), iterations=5)
    assert type(advanced.agent).__name__ == "ISMCTSAgent"  # no trained model shipped for it
    assert isinstance(make_agent("best", make_game("samurai", num_players=2), iterations=5).agent, GuidedISMCTSAgent)
    for unshipped in (make_game("samurai", num_players=4), make_game("samurai", figure_setup="draft")):
        guided = make_agent("best", unshipped, iterations=5)  # no model: BEST_GUIDE_WITHOUT_MODEL
        assert isinstance(guided.agent.evaluator, HeuristicEvaluator)
        assert guided.choice == "ismcts guided by the heuristic"
    assert type(make_agent("best", make_game("wapi", num_players=4), iterations=5).agent).__name__ == "ISMCTSAgent"
    result = play_game(wakanda, [best, make_agent("random", wakanda, seed=2)], seed=4)
    assert result.winners
    lines = []
    assert (
        terminal.main(
            ["wakanda", "--opponents", "best", "--think-time", "0.01", "--seed", "1"],
            read=lambda _: "q",
            write=lines.append,
        )
        == 0
    )
    assert lines[0] == "wakanda: A (player_0): you, B (player_1): best"
    plan = plan_tournament("wakanda", ["best", "heuristic"], 2, ismcts_iterations=4)
    summary = summarize(plan, play(plan, processes=1, progress=False))
    assert len(summary.games) == 2 and not summary.failures


def test_auto_options_come_from_each_games_tuning(model_files):
    """The guided options left at "auto" are the game's measured defaults (agents.tuning.GUIDED):
    Samurai and Wapi value the leaves by the plain search alone, Wakanda half by the network and half by
    a rollout; Samurai flattens its network's prior."""
    for name, config, value_mix, temperature in (
        ("wakanda", {}, 0.5, 1.0),
        ("samurai", {"num_players": 2}, 1.0, 2.0),
        ("wapi", {}, 1.0, 1.0),
    ):
        game = make_game(name, **config)
        agent = make_agent("ismcts", game, network=model_for(model_files, game), iterations=5)
        assert (agent.settings.value_mix, agent.settings.prior_temperature) == (value_mix, temperature)
        assert (
            make_agent("ismcts", game, network=model_for(model_files, game), value_mix=0.25).settings.value_mix == 0.25
        )
