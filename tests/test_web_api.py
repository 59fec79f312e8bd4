"""The JSON API of the page (``web.app``), over real HTTP on a loopback port: every endpoint,
every refusal (which changes nothing), unguessable ids, independent games and expiry.
(Limits, hygiene, the database and the worker pool: test_web_limits, test_web_hygiene,
test_web_restart, test_web_thinking.)"""

from __future__ import annotations

import json
import random

import pytest

import envs
from agents import AGENT_NAMES, PlayerView
from agents.levels import LEVELS
from envs.games import make_game
from tests.test_web_views import CASES
from tests.web_helpers import Client, serve, serve_cli, settle
from web import create_app
from web.limits import Limits
from web.opponents import level_ratings, offered_opponents, parse_model
from web.thinking import new_state
from web.views import public_view

NUM_PLAYERS = {name: envs.describe(name).make().num_players for name in envs.GAMES}


#: Limits that the many games of these tests, all from one address, stay under.
ROOMY = Limits(creates_per_minute=10_000, live_per_client=10_000)


@pytest.fixture(scope="module")
def client():
    with serve(create_app(limits=ROOMY)) as base:
        client = Client(base)
        yield client
        client.close()


def new_game(client, game="wakanda", **body):
    """A new game, once the opponents that move first have moved."""
    body = {"game": game, "opponents": ["random"] * (NUM_PLAYERS[game] - 1), "seed": 1, **body}
    status, data = client.call("POST", "/api/games", body)
    assert status == 201, data
    return data["id"], settle(client, data["id"], data["view"])


def move(client, game_id, action):
    """A move, acknowledged at once (its own frame only), then followed until the opponents answered."""
    status, view = client.call("POST", f"/api/games/{game_id}/moves", {"action": action})
    assert status == 200, view
    assert [frame["player"] for frame in view["frames"]] == [view["seat"]]
    return settle(client, game_id, view)


def play_out(client, game_id, view, seed=0):
    """Random legal moves until the end; every response checked."""
    choose = random.Random(seed).choice
    while not view["done"]:
        assert view["your_turn"] and view["legal"]
        before = len(view["log"])
        view = move(client, game_id, choose(view["legal"])["action"])
        assert len(view["log"]) == before + len(view["frames"]) and view["frames"][0]["player"] == view["seat"]
        assert "static" not in view  # what never changes comes with the game's first view (and GET) only
    return view


# --- the catalog ----------------------------------------------------------------------------
def test_catalog_lists_every_game_option_and_offered_opponent(client):
    status, data = client.call("GET", "/api/catalog")
    assert status == 200
    assert [g["name"] for g in data["games"]] == list(envs.GAMES)
    for entry in data["games"]:
        description = envs.describe(entry["name"])
        assert [o["name"] for o in entry["options"]] == [o.name for o in description.options]
        assert entry["num_players"] == NUM_PLAYERS[entry["name"]]
    names = [o["name"] for o in data["opponents"]]
    levels = [f"level:{n}" for n in LEVELS]
    assert names == levels + [name for name in AGENT_NAMES if ":" not in name]  # every agent without a path
    assert next(o for o in data["opponents"] if o["name"] == "ismcts")["options"] == {"time_limit": 1.0}
    assert [o["group"] for o in data["opponents"]] == ["level"] * len(levels) + ["advanced"] * (len(names) - 5)


def test_levels_are_offered_with_nothing_to_set_and_their_ratings_where_measured(tmp_path):
    """A level is its agent with the level's options fixed: the catalog offers nothing to set, a request
    that sets something is refused, and the server's --max-think still caps its thinking time. A
    level shows a rating only for a configuration measured (the rest show their description)."""
    ratings = tmp_path / "levels.json"
    measured = {"rating": 1200, "low": 1100, "high": None, "games": 40}
    ratings.write_text(json.dumps({"samurai 2p": {"game": "samurai", "options": {"num_players": 2}, "levels":
                                   {"level:4": measured}}}))  # fmt: skip
    offered = offered_opponents(ratings=level_ratings(ratings))
    assert level_ratings(tmp_path / "absent.json") == {}
    (tmp_path / "old.json").write_text(json.dumps({"wakanda": {"level:1": {"rating": 500}}}))
    with pytest.raises(ValueError, match=r"old.json is not the levels' ratings of python -m research.levels report"):
        level_ratings(tmp_path / "old.json")
    level4, level5 = offered["level:4"], offered["level:5"]
    assert level4.listing(10.0)["ratings"] == [{"game": "samurai", "options": {"num_players": 2}, **measured}]
    assert level5.listing(10.0)["ratings"] == [] and "thinking" in level5.listing(10.0)["help"]
    assert level5.listing(10.0)["options"] == {} and level5.listing(10.0)["title"] == "Level 5 · expert"
    assert level5.agent == LEVELS[5].agent and level5.check_options({}) == LEVELS[5].options
    assert level5.check_options({}, max_think=0.05) == {"time_limit": 0.05}
    assert offered["level:1"].check_options({}) == {} and offered["level:1"].agent == LEVELS[1].agent
    with pytest.raises(ValueError, match=r"opponent 'level:5' has no options \['time_limit'\]"):
        level5.check_options({"time_limit": 5.0})


def test_a_level_plays_its_games_own_agent():
    """Wakanda and Wapi have levels of their own (agents.levels.GAME_LEVELS): Wakanda's level 3 is a
    search of 0.01 s with that preset, Wapi's the heuristic with some random moves, Samurai's the
    heuristic; the catalog's help says each."""
    level3 = offered_opponents(ratings={})["level:3"]
    assert level3.for_game("wakanda") == ("best", {"time_limit": 0.01})
    assert level3.for_game("samurai") == ("heuristic", {}) and level3.check_options({}, 10.0, "samurai") == {}
    assert level3.for_game("wapi") == ("heuristic~0.15", {})
    assert level3.check_options({}, 10.0, "wakanda") == {"time_limit": 0.01}
    help_text = level3.listing(10.0)["help"]
    assert "in wakanda: the strongest search, thinking 0.01 s a move" in help_text
    assert "in wapi: the hand-written strategy, with about one random move in seven" in help_text


def test_a_game_against_levels(client):
    """The levels play through the pool like any opponent; the players are shown by level."""
    game_id, view = new_game(client, "wapi", config={"num_players": 3}, opponents=["level:1", "level:3"], seat=0)
    view = move(client, game_id, view["legal"][0]["action"])
    assert view["players"] == ["you", "level:1", "level:3"] and len(view["log"]) >= 3
    status, data = client.call(
        "POST", "/api/games", {"game": "wakanda", "opponents": [{"name": "level:5", "time_limit": 2}]}
    )
    assert status == 422 and "opponent 'level:5' has no options ['time_limit']" in data["error"]


def test_models_are_offered_by_name_only(tmp_path):
    model = tmp_path / "best.zip"
    model.write_bytes(b"not read until a game starts")
    name, path = parse_model(f"mine={model}")
    offered = offered_opponents({name: path})
    assert offered["mine"].agent == f"ppo:{model}"
    for bad, match in [
        ("mine", "NAME=PATH"),
        (f"=x{model}", "NAME=PATH"),
        ("a b=x", "letters"),
        (f"mine={tmp_path}/missing.zip", "no model file"),
    ]:
        with pytest.raises(ValueError, match=match):
            parse_model(bad)
    with pytest.raises(ValueError, match="taken"):
        offered_opponents({"random": path})


def test_a_trained_model_named_on_the_command_line_plays(tmp_path):
    """``--model NAME=PATH``: offered as NAME; it plays the game it was trained for and is
    refused (422, naming why) for another."""
    from tests.test_agents_ppo import save_model

    path = save_model(tmp_path / "tiny.zip", make_game("wakanda"))
    with serve(create_app({"tiny": path}, limits=Limits(workers=0))) as base:  # no worker to start
        client = Client(base)
        assert "tiny" in [o["name"] for o in client.call("GET", "/api/catalog")[1]["opponents"]]
        game_id, view = new_game(client, "wakanda", opponents=["tiny"])
        assert play_out(client, game_id, view)["players"] == ["you", "tiny"]
        status, data = client.call(
            "POST", "/api/games", {"game": "wapi", "config": {"num_players": 2}, "opponents": ["tiny"]}
        )
        assert status == 422 and "trained for game 'wakanda'" in data["error"]


# --- a new game -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", envs.GAMES)
def test_create_gives_an_unguessable_id_and_the_human_view(client, game):
    game_id, view = new_game(client, game)
    assert len(game_id) >= 22 and game_id.replace("-", "").replace("_", "").isalnum()  # 128 random bits
    assert {"legal", "log", "done", "board", "players", "seat", "to_act"} <= set(view)
    assert view["your_turn"] and view["legal"] and not view["done"]
    assert all(isinstance(m["action"], int) and isinstance(m["text"], str) for m in view["legal"])
    assert view["players"][0] == "you" and view["seed"] == 1
    state, _ = new_state(make_game(game), 1)  # the deal of play_game / agents.play for seed 1
    assert view["board"] == json.loads(json.dumps(public_view(state, 0)["board"]))


def test_same_seed_same_game_and_ids_differ(client):
    (id1, view1), (id2, view2) = new_game(client, "wapi", seed=5), new_game(client, "wapi", seed=5)
    assert id1 != id2 and view1 == view2
    assert new_game(client, "wapi", seed=6)[1]["board"] != view1["board"]


def test_same_seed_and_moves_same_answers_from_random_and_heuristic_opponents(client):
    """Opponents that neither search nor load a model are seeded by the game's seed, seat and
    move number: two games of the same seed and the same moves are the same game."""
    body = {"seat": 1, "opponents": ["random", "heuristic", "random"], "seed": 12}
    games = [new_game(client, "wapi", **body) for _ in range(2)]
    logs = []
    for game_id, view in games:
        for _ in range(4):
            view = move(client, game_id, view["legal"][-1]["action"])
        logs.append(view["log"])
    assert logs[0] == logs[1] and len(logs[0]) > 12
    other, view = new_game(client, "wapi", **{**body, "seed": 13})
    assert view["log"] != games[0][1]["log"]


def test_a_seed_drawn_by_the_server_stays_hidden_until_the_end(client):
    game_id, view = new_game(client, "wakanda", seed=None)
    assert view["seed"] is None and "record" not in view  # the seed would reveal the deal
    view = play_out(client, game_id, view)
    assert isinstance(view["seed"], int) and view["record"]["seed"] == view["seed"]


def test_opponents_move_first_when_the_human_sits_later(client):
    game_id, view = new_game(client, "wapi", seat=2, opponents=["random", "heuristic", "random"])
    assert view["seat"] == 2 and view["to_act"] == 2 and view["players"] == ["random", "heuristic", "you", "random"]
    assert [entry["player"] for entry in view["log"]] == [0, 1]
    assert [frame["player"] for frame in view["frames"]] == [0, 1]


def test_defaults_and_ismcts_with_a_time_budget(client):
    status, data = client.call("POST", "/api/games", {"game": "wakanda"})
    assert status == 201 and data["view"]["players"] == ["you", "heuristic"]
    game_id, view = new_game(client, "wakanda", opponents=[{"name": "ismcts", "time_limit": 0.05}])
    view = move(client, game_id, view["legal"][0]["action"])
    assert view["players"] == ["you", "ismcts"] and len(view["frames"]) >= 2


BAD_GAMES = [
    ([1, 2], "JSON object"),
    ({"game": "chess"}, "game must be one of"),
    ({"game": "wapi", "colour": "red"}, "unknown keys"),
    ({"seat": 0}, "missing"),
    ({"game": "wapi", "config": {"num_players": "3"}}, "num_players"),
    ({"game": "wapi", "config": {"num_players": 3.0}}, "num_players"),
    ({"game": "wapi", "config": {"num_players": True}}, "num_players"),
    ({"game": "wapi", "config": {"num_players": 7}}, "num_players"),
    ({"game": "wapi", "config": {"players": 3}}, "unknown keys"),
    ({"game": "wapi", "config": {"coins": {"4": 3}}}, "coins"),
    ({"game": "wakanda", "config": {"advanced": 1}}, "advanced"),
    ({"game": "wakanda", "seat": 2}, "seat"),
    ({"game": "wakanda", "seat": True}, "seat"),
    ({"game": "wakanda", "opponents": ["random", "random"]}, "opponents must be a list of 1"),
    ({"game": "wakanda", "opponents": "random"}, "opponents must be a list"),
    ({"game": "wakanda", "opponents": ["alphazero"]}, "offered opponents"),
    ({"game": "wakanda", "opponents": ["ppo:/etc/passwd"]}, "offered opponents"),  # never a path from a visitor
    ({"game": "wakanda", "opponents": [{"name": "ismcts", "time_limit": 600}]}, "time_limit"),
    ({"game": "wakanda", "opponents": [{"name": "ismcts", "time_limit": "1"}]}, "time_limit"),
    ({"game": "wakanda", "opponents": [{"name": "random", "time_limit": 1}]}, "no options"),
    ({"game": "wakanda", "opponents": [{"name": "ismcts", "iterations": 10**9}]}, "unknown keys"),
    ({"game": "wakanda", "seed": -1}, "seed"),
    ({"game": "wakanda", "seed": 1.5}, "seed"),
    ({"game": "wakanda", "seed": 2**70}, "seed"),
]


@pytest.mark.parametrize("body,match", BAD_GAMES)
def test_bad_new_games_are_refused_with_422(client, body, match):
    status, data = client.call("POST", "/api/games", body)
    assert status == 422 and match in data["error"], data


@pytest.mark.parametrize("raw", [b"{", b"", b"\xff\xfe", b"[1, 2"])
def test_bodies_that_are_not_json_are_refused_with_400(client, raw):
    status, data = client.call("POST", "/api/games", raw=raw)
    assert status == 400 and "JSON" in data["error"]


def test_a_body_too_large_is_refused_with_413(client):
    status, data = client.call("POST", "/api/replays", raw=b" " * 1_000_001)
    assert status == 413 and "larger" in data["error"]


# --- views and moves ------------------------------------------------------------------------
def test_get_returns_the_view_and_unknown_ids_are_404(client):
    game_id, view = new_game(client, "samurai")
    status, again = client.call("GET", f"/api/games/{game_id}")
    assert status == 200 and again == {k: v for k, v in view.items() if k != "frames"}
    assert again["static"]["hexes"] and again["static"]["end_turn"] == 17
    for path in (f"/api/games/{game_id}x", "/api/games/0", f"/api/games/{game_id}x/moves"):
        method = "POST" if path.endswith("moves") else "GET"
        status, data = client.call(method, path, {"action": 0} if method == "POST" else None)
        assert status == 404 and "no such game" in data["error"]
    status, data = client.call("GET", "/api/nothing")
    assert status == 404 and "error" in data


@pytest.mark.parametrize("game", envs.GAMES)
def test_illegal_and_malformed_moves_are_refused_and_change_nothing(client, game):
    game_id, view = new_game(client, game)
    legal = {m["action"] for m in view["legal"]}
    illegal = next(a for a in range(make_game(game).num_actions) if a not in legal)
    refusals = [
        ({"action": illegal}, 400, "refused"),
        ({"action": -1}, 400, "refused"),
        ({"action": 10**6}, 400, "refused"),
        ({"action": str(min(legal))}, 422, "integer"),
        ({"action": float(min(legal))}, 422, "integer"),
        ({"action": True}, 422, "integer"),
        ({"action": None}, 422, "integer"),
        ({}, 422, "missing"),
        ([min(legal)], 422, "JSON object"),
        ({"action": min(legal), "also": 1}, 422, "unknown keys"),
    ]
    for body, expected, match in refusals:
        status, data = client.call("POST", f"/api/games/{game_id}/moves", body)
        assert status == expected and match in data["error"], (body, data)
        assert client.call("GET", f"/api/games/{game_id}") == (200, {k: v for k, v in view.items() if k != "frames"})
    status, data = client.call("POST", f"/api/games/{game_id}/moves", raw=b"action=3")
    assert status == 400


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_whole_game_then_its_record_replays_step_by_step(client, game):
    game_id, view = new_game(client, game, seed=11)
    view = play_out(client, game_id, view, seed=11)
    assert view["legal"] == [] and not view["your_turn"]
    assert len(view["scores"]) == NUM_PLAYERS[game] and view["winners"]
    status, data = client.call("POST", f"/api/games/{game_id}/moves", {"action": 0})
    assert status == 400 and "over" in data["error"]
    record = view["record"]
    assert record["seed"] == 11 and len(record["moves"]) == len(view["log"])
    assert record["scores"] == view["scores"] and record["winners"] == view["winners"]
    status, replay = client.call("POST", "/api/replays", json.loads(json.dumps(record)))
    assert status == 200, replay
    assert len(replay["frames"]) == len(record["moves"]) + 1 and replay["done"]
    assert replay["frames"][-1]["board"] == view["board"]
    assert [f["text"] for f in replay["frames"][1:]] == [e["text"] for e in view["log"]]
    assert (replay["scores"], replay["winners"]) == (view["scores"], view["winners"])


@pytest.mark.parametrize("game,config", CASES)
def test_every_configuration_plays_to_the_end(client, game, config):
    """Every variant and player count the descriptions offer, from the last seat."""
    players = envs.describe(game).make(**config).num_players
    game_id, view = new_game(client, game, config=config, seat=players - 1, opponents=["random"] * (players - 1))
    assert view["config"] == json.loads(json.dumps(make_game(game, **config).config()))
    view = play_out(client, game_id, view)
    assert len(view["scores"]) == players


def test_bad_records_are_refused_with_422(client):
    game_id, view = new_game(client, "wakanda", seed=3)
    record = play_out(client, game_id, view)["record"]
    broken = [
        ({**record, "format": "chess-pgn"}, "format"),
        ({**record, "game": "go"}, "game"),
        ({**record, "config": {"advanced": "yes"}}, "advanced"),
        ({**record, "seat": 5}, "seat"),
        ({**record, "seed": "3"}, "seed"),
        ({**record, "moves": {}}, "moves"),
        ({**record, "moves": [{"player": 0, "action": 41}]}, "not a legal move"),
        (
            {**record, "moves": [{"player": 1, **{k: v for k, v in record["moves"][0].items() if k != "player"}}]},
            "not a legal move",
        ),
        ({**record, "moves": [{"player": 0, "action": True}]}, "not a legal move"),
        ({**record, "moves": [{"action": 0}]}, "missing"),
        ({**record, "players": ["you"]}, "players"),
        ({**record, "extra": 1}, "unknown keys"),
    ]
    for body, match in broken:
        status, data = client.call("POST", "/api/replays", body)
        assert status == 422 and match in data["error"], (match, data)


def test_games_are_independent(client):
    (id1, view1), (id2, view2) = new_game(client, "wapi", seed=2), new_game(client, "wapi", seed=2)
    move(client, id1, view1["legal"][0]["action"])
    assert client.call("GET", f"/api/games/{id2}")[1]["log"] == view2["log"]


def test_opponents_act_through_player_views(monkeypatch):
    """Agents get a PlayerView (a determinized copy), never the true state."""
    import web.opponents
    from agents.random_agent import RandomAgent

    seen = []

    class Spy(RandomAgent):
        def act(self, view):
            seen.append(type(view))
            return super().act(view)

    monkeypatch.setattr(web.opponents, "make_agent", lambda name, game, **options: Spy(game, 0))
    with serve(create_app(limits=Limits(workers=0))) as base:  # thinking in a thread: the spy is seen
        client = Client(base)
        game_id, view = new_game(client, "samurai", seat=1)
        play_out(client, game_id, view)
    assert seen and set(seen) == {PlayerView}


def test_an_agent_that_fails_stops_the_game_saying_so_and_refuses_moves_out_of_turn(monkeypatch):
    import web.opponents
    from agents.random_agent import RandomAgent

    class Broken(RandomAgent):
        def act(self, view):
            raise RuntimeError("out of order")

    monkeypatch.setattr(web.opponents, "make_agent", lambda name, game, **options: Broken(game, 0))
    with serve(create_app(limits=Limits(workers=0))) as base:
        client = Client(base)
        game_id, view = new_game(client, "wakanda")
        before = move(client, game_id, view["legal"][0]["action"])
        assert before["error"] == "random in seat 1 could not play: RuntimeError" and not before["thinking"]
        assert before["to_act"] == 1 and before["legal"] == []
        for action in range(42):  # not even a move legal for the opponent is taken from the human
            status, data = client.call("POST", f"/api/games/{game_id}/moves", {"action": action})
            assert status == 400 and ("not your turn" in data["error"])
        assert client.call("GET", f"/api/games/{game_id}?since=0")[1] == before


# --- expiry and limits ---------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_idle_games_leave_memory_then_finished_and_abandoned_ones_are_deleted():
    """A game leaves memory after ``memory_idle`` (and comes back on its next request, the same),
    is deleted ``finished_ttl`` after its end once over, whatever is asked meanwhile (issue 48: GETs
    kept finished games alive and filled ``--max-games``), ``idle_ttl`` after its last request if abandoned."""
    clock = Clock()
    limits = Limits(workers=0, memory_idle=30, finished_ttl=60, idle_ttl=600)
    app = create_app(limits=limits, clock=clock)
    games = app.state.games
    with serve(app) as base:
        client = Client(base)
        finished, view = new_game(client, "wakanda")
        done = play_out(client, finished, view)
        idle, idle_view = new_game(client, "wakanda")
        clock.now += 31
        client.call("GET", "/api/games/unknown")  # any request sweeps
        assert set(games.live) == set()  # both left memory...
        assert client.call("GET", f"/api/games/{idle}")[1] == {k: v for k, v in idle_view.items() if k != "frames"}
        assert client.call("GET", f"/api/games/{finished}")[1]["record"] == done["record"]  # ...and came back
        clock.now += 20
        assert client.call("GET", f"/api/games/{finished}")[0] == 200  # 51 s after its end
        clock.now += 10
        assert client.call("GET", f"/api/games/{finished}")[0] == 404  # finished: deleted 60 s after its end
        assert client.call("GET", f"/api/games/{idle}")[0] == 200
        clock.now += 601 + 31
        client.call("GET", "/api/games/unknown")
        assert client.call("GET", f"/api/games/{idle}")[0] == 404  # abandoned: deleted after 600 s
        assert games.database.count() == 0 and not games.live


# --- python -m web ---------------------------------------------------------------------------------
def test_python_m_web_serves_the_page_and_the_api():
    with serve_cli("--host", "127.0.0.1") as base:
        client = Client(base)
        status, page = client.call("GET", "/")
        assert status == 200 and "<svg" not in page and "/static/app.js" in page
        assert client.call("GET", "/static/app.js")[0] == 200
        game_id, view = new_game(client, "wapi")
        assert client.call("GET", f"/api/games/{game_id}")[0] == 200


def test_python_m_web_refuses_bad_options(capsys):
    from web.__main__ import main

    for argv, match in [(["--model", "nothing"], "NAME=PATH"), (["--port", "70000"], "--port")]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and match in capsys.readouterr().err
