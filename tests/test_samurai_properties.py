"""Samurai properties over many seeded random games: termination, conservation of tiles
and figures, captures consistent with influences recomputed from ``state_dict()``, the
mask, state_dict round trips, and determinize. (The observer's properties, hidden
information included: ``test_samurai_observer.py``.)"""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from envs.samurai import SamuraiGame
from envs.samurai.board import LAYOUTS, NEIGHBOURS
from envs.samurai.components import FIGURE_TYPES, PLAY, PLAYER_TILES, TILE_NAMES

GAMES_PER_CHUNK = 100
CHUNKS = 5  # 500 games per player count
MAX_DECISIONS = 2_000  # far above any real game (about 100 decisions per player)


def influence_from_dict(data: dict, settlement: int, figure_type: str) -> list[int]:
    """Influence recomputed from the serialised board, independently of the engine's tables."""
    total = [0] * data["num_players"]
    for h in NEIGHBOURS[settlement]:
        cell = data["board"].get(str(h))
        if cell is None:
            continue
        name = cell["tile"]
        if name.startswith(FIGURE_TYPES):
            value = int(name[-1]) if name.startswith(figure_type) else 0
        elif name.startswith(("samurai", "ship")):
            value = int(name[-1])
        else:
            value = {"ronin": 1, "tile_swap": 0}[name]
        total[cell["owner"]] += value
    return total


def check_conservation(data: dict) -> None:
    """Each player's 20 tiles are in hand, pile or on the board (a used figure swap discarded);
    figures on the board + captured + set aside = the supply."""
    n, supply = data["num_players"], LAYOUTS[data["num_players"]].supply
    full = Counter(TILE_NAMES[k] for k in PLAYER_TILES)
    for p in range(n):
        held = Counter(data["hands"][p]) + Counter(data["piles"][p])
        held += Counter(c["tile"] for c in data["board"].values() if c["owner"] == p)
        if "figure_swap" not in held:
            held["figure_swap"] = 1
        assert held == full
    for t in FIGURE_TYPES:
        on_board = sum(types.count(t) for types in data["figures"].values())
        off = sum(c[t] for c in data["captured"]) + data["set_aside"][t]
        if data["turn"]["phase"] == PLAY:
            assert on_board + off == supply
        for types in data["figures"].values():
            assert types.count(t) <= 1


def check_captures(before: list[list[int]], state, captured_before, aside_before) -> None:
    """Every settlement emptied by this step went, figure by figure, to the strictly highest
    influence, or was set aside on a tie: recomputed from state_dict()."""
    from envs.samurai.board import SETTLEMENTS

    data = state.to_dict()
    expected_captured = [c[:] for c in captured_before]
    expected_aside = aside_before[:]
    for s, figures in enumerate(before):
        if figures and not state.figures[s]:
            h = SETTLEMENTS[s]
            land = [q for q in NEIGHBOURS[h] if state.layout.on_board[q] and q in state.layout.land]
            assert all(str(q) in data["board"] for q in land), "only surrounded settlements are resolved"
            for t in figures:
                influence = influence_from_dict(data, h, FIGURE_TYPES[t])
                best = max(influence)
                if influence.count(best) == 1:
                    expected_captured[influence.index(best)][t] += 1
                else:
                    expected_aside[t] += 1
    assert [[c[t] for t in FIGURE_TYPES] for c in data["captured"]] == expected_captured
    assert [data["set_aside"][t] for t in FIGURE_TYPES] == expected_aside


def play_checked(game: SamuraiGame, seed: int, round_trip_at: int) -> int:
    """One random game with every invariant checked; returns the number of decisions."""
    state = game.new_state(np.random.default_rng(seed))
    choose = random.Random(seed).choice
    decisions = 0
    while state.current_player is not None:
        legal = state.legal_actions()
        assert legal and np.flatnonzero(state.legal_mask()).tolist() == legal
        if decisions == round_trip_at:
            data = json.loads(json.dumps(state.to_dict()))
            check_conservation(data)
            other = game.state_from_dict(data)
            assert other.to_dict() == data
            assert other.legal_actions() == legal
            for p in range(game.num_players):
                assert np.array_equal(other.observation(p), state.observation(p))
        figures = [f[:] for f in state.figures]
        captured, aside = [c[:] for c in state.captured], state.set_aside[:]
        state.apply(choose(legal))  # an action from the mask is always accepted
        if state.captured != captured or state.set_aside != aside:
            check_captures(figures, state, captured, aside)
        decisions += 1
        assert decisions < MAX_DECISIONS, "the game must terminate"
    data = state.to_dict()
    check_conservation(data)
    assert data["terminal"] and data["winners"]
    assert 0 in state.figures_on_board or sum(state.set_aside) >= 4
    for p in range(game.num_players):
        obs = state.observation(p)
        assert obs.dtype == np.float32 and obs.min() >= 0.0 and obs.max() <= 1.0
    return decisions


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_keep_every_invariant(num_players, chunk):
    """Properties (500 seeded games per player count): the game terminates; tiles and figures are
    conserved; every capture matches the influences recomputed from state_dict(); the mask equals
    the legal actions and every masked action is accepted; a state_dict round trip mid-game gives
    identical observations and legal actions."""
    game = SamuraiGame(num_players)
    for seed in range(chunk * GAMES_PER_CHUNK, (chunk + 1) * GAMES_PER_CHUNK):
        play_checked(game, seed, round_trip_at=seed % 60)


@pytest.mark.parametrize(
    "config", [{"choose_hand": True}, {"figure_setup": "draft"}, {"choose_hand": True, "figure_setup": "draft"}]
)
def test_random_games_with_decision_phases_keep_every_invariant(config):
    """Properties: the choose_hand and draft set-up phases lead to legal games with the same invariants."""
    for n in (2, 3, 4):
        game = SamuraiGame(n, **config)
        for seed in range(15):
            play_checked(game, seed, round_trip_at=seed * 7)


@pytest.mark.parametrize("num_players", [2, 4])
def test_every_masked_action_is_legal(num_players):
    """Properties: the mask never offers an illegal action: each masked action, tried on a copy, is accepted."""
    game = SamuraiGame(num_players, figure_setup="draft", choose_hand=True)
    for seed in range(6):
        state = game.new_state(np.random.default_rng(seed))
        choose = random.Random(seed).choice
        while state.current_player is not None:
            for action in np.flatnonzero(state.legal_mask()):
                state.clone().apply(int(action))
            state.apply(choose(state.legal_actions()))


def test_determinize_keeps_what_the_player_knows():
    """Search support: determinize re-samples other hands and every pile's order, keeping hand sizes,
    each player's unplayed multiset, the player's own hand and the board."""
    state = SamuraiGame(3).new_state(np.random.default_rng(5))
    choose = random.Random(5).choice
    for _ in range(40):
        state.apply(choose(state.legal_actions()))
    twin = state.determinize(1, np.random.default_rng(0))
    assert twin.hands[1] == state.hands[1] and sorted(twin.piles[1]) == sorted(state.piles[1])
    for p in range(3):
        assert len(twin.hands[p]) == len(state.hands[p]) and len(twin.piles[p]) == len(state.piles[p])
        assert sorted(twin.hands[p] + twin.piles[p]) == sorted(state.hands[p] + state.piles[p])
    assert twin.tile == state.tile and twin.figures == state.figures
    assert any(twin.hands[p] != state.hands[p] or twin.piles[p] != state.piles[p] for p in (0, 2))
    game = state.game
    game.state_from_dict(twin.to_dict())  # a valid position
    while twin.current_player is not None:  # and a playable one
        twin.apply(choose(twin.legal_actions()))
