"""The one opponent home (``agents/opponents.py``) under training's members: merging them changed no move.

The digests below are of the moves the members and the vector env's batch heuristic made on seeded games
before training's heuristic member moved into the home (commit 75777af); the same seeds must give the
same moves after it: the per-slot streams of the members (each slot's view generator and agent seed) are
kept, not replaced by the home's one stream.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from agents import ismcts, plays_model
from agents.opponents import batch_opponent
from envs.core.batch import StateBatch, batch_games
from envs.core.opponents import random_moves
from envs.games import make_game
from training.members import AgentMember, SharedMember, build_member

SLOTS = 4


def played(move, batch, rounds: int) -> str:
    """Every move ``move(batch, rows)`` makes for the players to act in ``rows`` over ``rounds`` rounds
    (games dealt anew as they end), as a digest."""
    moves = []
    for _ in range(rounds):
        rows = np.flatnonzero(batch.current_player >= 0)
        chosen = np.zeros(len(batch), dtype=np.int64)
        chosen[rows] = move(batch, rows)
        batch.step(chosen)
        moves += chosen[rows].tolist()
        batch.reset_done()
    return hashlib.sha256(repr(moves).encode()).hexdigest()[:16]


def member_moves(name: str, agent: str, per_game: bool, rounds: int = 40) -> str:
    """The moves of training's member ``agent`` in every seat of ``SLOTS`` seeded games (``random~`` is
    the random agent as a per-game :class:`AgentMember`, not the home's uniform random moves)."""
    game = make_game(name)
    batch = StateBatch(game, SLOTS, 3) if per_game else batch_games(game, SLOTS, 3)
    member = AgentMember("random", game, 7) if agent == "random~" else build_member(("agent", agent), game, 7)
    seen = set()

    def move(batch, rows):
        for slot in rows.tolist():
            if (slot, int(batch.seeds[slot])) not in seen:
                seen.add((slot, int(batch.seeds[slot])))
                member.new_game(np.array([slot]))
        where = np.zeros(len(batch), dtype=bool)
        where[rows] = True
        return member(batch, where, np.random.default_rng(5))[rows]

    return played(move, batch, rounds)


def vector_heuristic_moves(name: str, per_game: bool, rounds: int = 40) -> str:
    """The moves of the vector env's ``batch_opponent("heuristic")`` in every seat of seeded games."""
    game = make_game(name)
    batch = StateBatch(game, SLOTS, 3) if per_game else batch_games(game, SLOTS, 3)
    opponent, rng = batch_opponent("heuristic", game), np.random.default_rng(11)

    def move(batch, rows):
        where = np.zeros(len(batch), dtype=bool)
        where[rows] = True
        return opponent(batch, where, rng)[rows]

    return played(move, batch, rounds)


MEMBERS = {
    ("wapi", "heuristic", False): "262327a2b55e1d06",
    ("wapi", "heuristic", True): "262327a2b55e1d06",
    ("samurai", "heuristic", False): "44e74ad45503de52",
    ("samurai", "heuristic", True): "44e74ad45503de52",
    ("wakanda", "heuristic", False): "bd8a9283d4e5bb5b",
    ("wakanda", "heuristic", True): "bd8a9283d4e5bb5b",
    ("samurai", "random~", True): "21a699302aab60d0",
}
#: ISMCTS (20 simulations a move) reads its view's determinization: the slots' view generators are kept.
SEARCH = {
    ("wapi", True): "de051b06f30c2400",
    ("samurai", False): "976181959b3a71fc",
    ("wakanda", True): "f066ab4cadcc4b56",
}

VECTOR = {
    ("wapi", False): "262327a2b55e1d06",
    ("wapi", True): "262327a2b55e1d06",
    ("samurai", True): "44e74ad45503de52",
    ("wakanda", True): "bd8a9283d4e5bb5b",
}


@pytest.mark.parametrize("name, agent, per_game", list(MEMBERS))
def test_a_members_moves_are_those_it_made_before_the_merge(name, agent, per_game):
    """Seeded: the member's moves, fast engine or per-game states, are those made before the merge."""
    assert member_moves(name, agent, per_game) == MEMBERS[name, agent, per_game]


def test_the_random_member_is_the_homes_random_moves():
    """Since training's games moved onto the public vector env, its random member is the home's random moves
    (one stream, the env's), no longer per-slot generators: its earlier digests no longer apply."""
    member = build_member(("agent", "random"), make_game("wapi"), 7)
    assert isinstance(member, SharedMember) and member.opponent is random_moves


@pytest.mark.parametrize("name, per_game", list(SEARCH))
def test_a_searching_members_moves_are_those_it_made_before_the_merge(name, per_game, monkeypatch):
    """Seeded: ISMCTS's moves, through each slot's own view generator and agent seed, are those made before."""
    monkeypatch.setattr(ismcts, "DEFAULT_ITERATIONS", 20)
    assert member_moves(name, "ismcts", per_game, rounds=6) == SEARCH[name, per_game]


@pytest.mark.parametrize("name, per_game", list(VECTOR))
def test_the_vector_envs_heuristic_moves_are_those_it_made_before_the_merge(name, per_game):
    """Seeded: ``batch_opponent("heuristic")``'s moves are those made before the merge."""
    assert vector_heuristic_moves(name, per_game) == VECTOR[name, per_game]


def test_batch_opponent_hands_random_and_callables_to_the_environments_and_refuses_by_name():
    """``"heuristic"`` and ``"trained"`` are the agents' own; ``"random"`` and a callable are the environments'
    ``batch_opponent`` (one home for them); any other name is refused with the names it takes."""
    game = make_game("wapi")
    assert batch_opponent("random", game) is random_moves
    assert batch_opponent(random_moves, game) is random_moves
    with pytest.raises(ValueError, match=r"opponents must be one of \['random', 'heuristic', .*got 'ismcts'"):
        batch_opponent("ismcts", game)


def test_the_agents_that_play_a_model_file_are_named_by_the_players():
    """``agents.plays_model``: what the page keeps built and checks against a card (it was the page's own
    list of names): the shipped model and the file agents, ε-greedy or not; no search, level or heuristic."""
    assert all(plays_model(name) for name in ("trained", "ppo:m.zip", "rllib:run/ck", "ppo:m.zip~0.1"))
    assert not any(plays_model(name) for name in ("random", "heuristic", "ismcts~0.2", "best", "level:5"))
