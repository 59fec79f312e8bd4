"""Dealing Samurai: the piles and the figures, drawn from the seed or injected by options,
the re-deal of hidden tiles that search agents need (``determinize``), and the piles as the
game's hidden orders (``PileChance``: what a review draws its chance outcomes from)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.engine import check_permutation, is_int, shown
from envs.samurai.board import CAPACITY, NUM_SETTLEMENTS, SETTLEMENTS, Layout
from envs.samurai.components import (
    CHOOSE_HAND,
    FIGURE_TYPES,
    KIND_OF_NAME,
    PLAY,
    PLAYER_TILES,
    TILE_NAMES,
    TYPE_OF_NAME,
    describe_tile,
)

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiState


def random_piles(num_players: int, rng: np.random.Generator) -> list[list[int]]:
    """Each player's 20 tiles shuffled (player 0 first); the first five become the hand."""
    return [[PLAYER_TILES[i] for i in rng.permutation(len(PLAYER_TILES))] for _ in range(num_players)]


def random_figures(layout: Layout, rng: np.random.Generator) -> list[list[int]]:
    """Figures per settlement index: Edo one of each type, each city two different
    types drawn at random, then the rest of the supply shuffled over the villages."""
    figures: list[list[int]] = [[] for _ in range(NUM_SETTLEMENTS)]
    left = [layout.supply] * 3
    villages = []
    for s in layout.settlements:
        capacity = CAPACITY[SETTLEMENTS[s]]
        if capacity == 1:
            villages.append(s)
            continue
        types = [0, 1, 2] if capacity == 3 else sorted(int(t) for t in rng.choice(3, size=2, replace=False))
        figures[s] = types
        for t in types:
            left[t] -= 1
    pool = [t for t in range(3) for _ in range(left[t])]
    for s, i in zip(villages, rng.permutation(len(pool))):
        figures[s] = [pool[i]]
    return figures


def draft_figures(layout: Layout) -> list[list[int]]:
    """The figures before the draft: Edo one of each type, as in the original game; the
    players draft the rest (``figure_moves.draft_actions``)."""
    figures: list[list[int]] = [[] for _ in range(NUM_SETTLEMENTS)]
    for s in layout.settlements:
        if CAPACITY[SETTLEMENTS[s]] == 3:
            figures[s] = [0, 1, 2]
    return figures


def piles_option(value: Any, num_players: int) -> list[list[int]]:
    """Validate ``options["piles"]``: one list of tile names per player, each a
    permutation of the 20 tiles (the first five are the starting hand)."""
    if not isinstance(value, (list, tuple)) or len(value) != num_players:
        raise ValueError(
            f"options['piles'] must be a list of {num_players} lists of tile names (one per player), got {shown(value)}"
        )
    names = [TILE_NAMES[k] for k in PLAYER_TILES]
    return [
        [KIND_OF_NAME[c] for c in check_permutation(f"options['piles'][{p}]", pile, names)]
        for p, pile in enumerate(value)
    ]


def figures_option(value: Any, layout: Layout) -> list[list[int]]:
    """Validate ``options["figures"]``: ``{settlement hex id: [types]}`` for every
    settlement on the board, each full, no type twice, the supply used exactly."""
    allowed = [SETTLEMENTS[s] for s in layout.settlements]
    if not isinstance(value, dict):
        raise ValueError(f"options['figures'] must be a dict {{settlement id: [types]}}, got {shown(value)}")
    figures: list[list[int]] = [[] for _ in range(NUM_SETTLEMENTS)]
    for key, types in value.items():
        h = _settlement_id(key, allowed, "options['figures']")
        figures[SETTLEMENTS.index(h)] = figure_list(types, h, f"options['figures'][{shown(key)}]")
    missing = [h for h in allowed if not figures[SETTLEMENTS.index(h)]]
    if missing:
        raise ValueError(f"options['figures'] must give every settlement on the board; missing {missing}")
    for h in allowed:
        if len(figures[SETTLEMENTS.index(h)]) != CAPACITY[h]:
            raise ValueError(f"options['figures'][{h}] must hold {CAPACITY[h]} figure(s), the settlement's capacity")
    for t, name in enumerate(FIGURE_TYPES):
        count = sum(f.count(t) for f in figures)
        if count != layout.supply:
            raise ValueError(f"options['figures'] must use {layout.supply} {name} figures (the supply), got {count}")
    return figures


def _settlement_id(key: Any, allowed: list[int], where: str) -> int:
    """A settlement hex id from an int or a decimal string (JSON object keys are strings)."""
    h = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 3 else key
    if not is_int(h) or h not in allowed:
        raise ValueError(f"{where} has key {shown(key)}; settlements on this board: {allowed}")
    return h


def figure_list(types: Any, h: int, where: str) -> list[int]:
    """Figure type names in the settlement at hex ``h`` (no type twice, at most its capacity) as
    sorted type ints; ``where`` names the value in the error (options and state loading share this)."""
    if not isinstance(types, (list, tuple)) or any(not isinstance(t, str) or t not in TYPE_OF_NAME for t in types):
        raise ValueError(f"{where} must be a list of figure types from {list(FIGURE_TYPES)}, got {shown(types)}")
    if len(set(types)) != len(types):
        raise ValueError(f"{where} holds two figures of one type: {shown(list(types))}")
    if len(types) > CAPACITY[h]:
        raise ValueError(f"{where} holds {len(types)} figures; settlement {h} holds at most {CAPACITY[h]}")
    return sorted(TYPE_OF_NAME[t] for t in types)


def redeal(state: SamuraiState, player: int, rng: np.random.Generator) -> tuple[list[list[int]], list[list[int]]]:
    """New hands and piles for ``state`` with what ``player`` cannot see re-dealt: each other
    player's hand and pile from their public unplayed tiles (hand sizes kept; a tile
    chosen mid-action stays in hand), and the order of every pile, the player's own too.

    That the player to act is still acting is public too (a turn ends by itself when
    nothing is playable), so their re-dealt hand must leave them a playable tile:
    re-deals that do not are drawn again (the true deal always qualifies)."""
    hands = [hand[:] for hand in state.hands]
    piles = [pile[:] for pile in state.piles]
    for q in range(state.game.num_players):
        hand, pile = state.hands[q], state.piles[q]
        if q == player:
            pile = sorted(pile)  # sorted first: the result depends only on what player knows and rng
            piles[q] = [pile[i] for i in rng.permutation(len(pile)).tolist()]
            continue
        keep = [state.pending] if q == state.current_player and state.pending >= 0 else []
        pool = sorted(hand + pile)  # sorted first, as above
        for k in keep:
            pool.remove(k)
        cut = len(hand) - len(keep)
        must_play = q == state.current_player and state.phase == PLAY and not keep
        for _ in range(1000):
            shuffled = [pool[i] for i in rng.permutation(len(pool)).tolist()]
            hands[q], piles[q] = keep + shuffled[:cut], shuffled[cut:]
            if not must_play or state.playable_kinds(q, hands[q], state.non_quick_used):
                break
        else:  # vanishingly unlikely: keep the true hand, re-deal only the pile's order
            hands[q], piles[q] = hand[:], [pile[i] for i in rng.permutation(len(pile)).tolist()]
    return hands, piles


class PileChance:
    """Samurai's chance (``envs/core/chance.py``): each player's pile is a hidden order (order ``p`` is player
    ``p``'s), drawn from when its owner's turn ends and the hand is refilled."""

    def hidden_orders(self: SamuraiState) -> list[list[int]]:
        return [pile[:] for pile in self.piles]

    def set_hidden_orders(self: SamuraiState, orders: list[list[int]]) -> None:
        self.piles = [list(pile) for pile in orders]

    def chance_draws(self: SamuraiState, action: int) -> list[tuple[int, int]]:
        """As every game's (``GameState.chance_draws``), but while the players choose their hands: a tile chosen
        from the pile is no draw."""
        return [] if self.phase == CHOOSE_HAND else super().chance_draws(action)

    def drawer(self: SamuraiState, order: int) -> int | None:
        return order

    def describe_draw(self: SamuraiState, order: int, items: tuple[int, ...]) -> str:
        return "drew " + ", ".join(describe_tile(kind) for kind in items)
