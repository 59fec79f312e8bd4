"""A Samurai strategy a decent player would recognise: fight for figures you can win.

Each figure still on the board is judged by my *lead* for its type there
(my influence minus the strongest rival's) against how many land hexes
around it are still empty (how much the others can still answer); that
gives a rough chance of taking it. A tile is worth the chance it adds,
summed over the figures around its hex, each weighted by its type's value
to me (types where the majority is still open count most). Then:

- **Close a settlement** when it captures for me (the capture is certain,
  worth more than any lead), never when it hands figures to a rival.
- **Contest settlements you can win**: strong tiles (value 3-4, samurai)
  where the lead is close, not where it is already safe or hopeless.
- **Wild tiles and ships**: samurai, ronin and ships count for every type,
  so they go where several figures are contested; quick tiles (ronin,
  ships) are played only when they gain something now.
- **Figure swap**: only when it moves a figure from a settlement I am
  losing into one I am winning (and another out) by a clear margin; never
  wasted on a small gain.
- **Tile swap**: recycle one of my tiles from a settlement already resolved
  to a spot where it gains.

Only public facts and my own hand are read (the board, the figures,
captures); other hands and every pile's order are never looked at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

# The same strategy over a batch of games (the batch protocol's heuristic: ``batch_policy``, ``play_out``).
from agents.heuristic.samurai_batch import batch_policy as batch_policy
from agents.heuristic.samurai_batch import compiled_policy as compiled_policy
from agents.heuristic.samurai_batch import play_out as play_out
from agents.heuristic.samurai_values import QUICK_MIN_GAIN, STRENGTH, SWAP_MIN_GAIN, TILE_COST, chance
from envs.samurai.actions import END_TURN, hex_action, settlement_figure_action, tile_of
from envs.samurai.board import HEX_KIND, LAND
from envs.samurai.components import (
    CHOOSE_HAND,
    DRAFT,
    FIGURE_SWAP,
    INFLUENCE,
    MOVABLE,
    QUICK,
    SHIPS,
    TILE_SWAP,
)  # fmt: skip

#: What spending each tile kind costs (``TILE_COST`` per point of its total influence).
TILE_COSTS = tuple(TILE_COST * sum(influence) for influence in INFLUENCE)

if TYPE_CHECKING:
    from agents.protocol import PlayerView
    from envs.samurai.rules import SamuraiState


def choose(view: PlayerView, rng: np.random.Generator) -> int:
    """The agent's move: the policy on one determinized copy (only public facts and my hand are read)."""
    return policy(view.sample_determinization(rng))


def policy(state: SamuraiState) -> int:
    """The move of the player to act in ``state`` (also ISMCTS's rollout policy on its samples)."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if state.phase == CHOOSE_HAND:
        return max(legal, key=lambda a: (STRENGTH[tile_of(a)], -a))
    if state.phase == DRAFT:
        return legal[0]
    return _Planner(state).move(legal)


class _Planner:
    def __init__(self, state: SamuraiState):
        self.state = state
        self.me = state.current_player
        self.layout = state.layout
        self.weights = self._type_weights()
        self._leads: dict[tuple[int, int], int] = {}  # (settlement, type) -> my lead over the best rival
        self._gains: dict[tuple[int, int, bool], tuple[float, ...]] = {}  # (kind, settlement, land) -> per figure
        self._standing: dict[int, tuple[tuple[int, int, float], ...]] = {}  # settlement -> its figures now
        self._firsts: dict[bool, list[int]] = {}  # sea or land -> the first empty hex of each group

    # --- valuation --------------------------------------------------------
    def _type_weights(self) -> list[float]:
        """A type's figures count most while its majority is still open between me and the best rival."""
        captured = self.state.captured
        out = []
        for t in range(3):
            mine = captured[self.me][t]
            rival = max(c[t] for p, c in enumerate(captured) if p != self.me)
            left = self.state.figures_on_board[t]
            out.append(1.5 if abs(mine - rival) <= left else 0.6)
        return out

    def lead(self, s: int, t: int) -> int:
        key = (s, t)
        if key not in self._leads:
            for u, influence in enumerate(self.state.influences(s)):  # every type's at once
                mine = influence.pop(self.me)
                self._leads[(s, u)] = mine - max(influence)
        return self._leads[key]

    def figure_value(self, s: int, t: int, extra: int, open_land: int) -> float:
        return self.value_of(t, self.lead(s, t) + extra, open_land)

    def value_of(self, t: int, lead: int, open_land: int) -> float:
        """A figure of type ``t`` with my ``lead`` and ``open_land`` hexes left around it, to me."""
        if open_land <= 0:  # resolved now: captured (+1), set aside (0) or given to a rival (-0.5)
            return self.weights[t] * (1.0 if lead > 0 else (0.0 if lead == 0 else -0.5))
        return self.weights[t] * chance(lead, open_land)

    def _figures_now(self, s: int) -> tuple[tuple[int, int, float], ...]:
        """Each figure of settlement ``s``: its type, my lead and its value to me as it stands (remembered)."""
        figures = self._standing.get(s)
        if figures is None:
            need = self.state.need[s]
            figures = self._standing[s] = tuple(
                (t, self.lead(s, t), self.figure_value(s, t, 0, need)) for t in self.state.figures[s]
            )
        return figures

    def place_gain(self, kind: int, h: int) -> float:
        """What putting ``kind`` on hex ``h`` adds over leaving it, over the settlements around ``h``."""
        gain = 0.0
        land = HEX_KIND[h] == LAND
        for s in self.layout.settlements_near[h]:
            for figure_gain in self._figure_gains(kind, s, land):
                gain += figure_gain
        return gain - TILE_COSTS[kind]

    def _figure_gains(self, kind: int, s: int, land: bool) -> tuple[float, ...]:
        """What ``kind`` next to settlement ``s`` (on a land hex or not) adds to each of its figures' values,
        remembered: a move's planning asks it again for every hex around ``s``."""
        key = (kind, s, land)
        gains = self._gains.get(key)
        if gains is None:
            need = self.state.need[s]
            after = need - 1 if land else need
            influence = INFLUENCE[kind]
            gains = self._gains[key] = tuple(
                self.value_of(t, lead + influence[t], after) - now for t, lead, now in self._figures_now(s)
            )
        return gains

    def best_target(self, kind: int) -> tuple[float, int]:
        """The best hex for ``kind`` and its gain (the first of the best)."""
        sea = kind in SHIPS
        hexes = self.state.empty_sea if sea else self.state.empty_land
        best = (-float("inf"), hexes[0] if hexes else -1)
        for h in self._group_firsts(sea):
            value = self.place_gain(kind, h)
            if value > best[0]:
                best = (value, h)
        if best[0] == -float("inf") and hexes:  # nothing near any settlement: anywhere, first hex
            best = (-TILE_COSTS[kind], hexes[0])
        return best

    def _group_firsts(self, sea: bool) -> list[int]:
        """The empty sea (or land) hexes next to settlements that come first among those next to the same
        settlements, in order (remembered). Such hexes gain alike, so the first of the best hexes is one of these."""
        firsts = self._firsts.get(sea)
        if firsts is None:
            near = self.layout.settlements_near
            by_group: dict[tuple[int, ...], int] = {}
            for h in self.state.empty_sea if sea else self.state.empty_land:
                if near[h] and near[h] not in by_group:
                    by_group[near[h]] = h
            firsts = self._firsts[sea] = list(by_group.values())
        return firsts

    def best_swap(self) -> tuple[float, tuple[int, int, int, int] | None]:
        """The figure exchange (s1, t1, s2, t2) that gains most."""
        state = self.state
        figures = [(s, t) for s in self.layout.settlements for t in state.figures[s]]
        value = {(s, t): self.figure_value(s, t, 0, state.need[s]) / self.weights[t] for s, t in figures}
        best: tuple[float, tuple[int, int, int, int] | None] = (0.0, None)
        for s1, t1 in figures:
            for s2, t2 in figures:
                if s1 >= s2 or t1 == t2 or t2 in state.figures[s1] or t1 in state.figures[s2]:
                    continue
                before = value[(s1, t1)] * self.weights[t1] + value[(s2, t2)] * self.weights[t2]
                after = self.figure_value(s2, t1, 0, state.need[s2]) + self.figure_value(s1, t2, 0, state.need[s1])
                if after - before > best[0]:
                    best = (after - before, (s1, t1, s2, t2))
        return best

    def best_tile_swap(self) -> tuple[float, int, int]:
        """(gain, from hex, to hex): move one of my tiles away from settlements that no longer need it."""
        state, best = self.state, (-float("inf"), -1, -1)
        for h, owner in enumerate(state.owner):
            if owner != self.me or not MOVABLE[state.tile[h]] or state.tile[h] == TILE_SWAP:
                continue
            if any(state.figures[s] for s in self.layout.settlements_near[h]):
                continue  # still working there
            value, to = self.best_target(state.tile[h])
            if value > best[0]:
                best = (value, h, to)
        return best

    # --- the move ---------------------------------------------------------
    def move(self, legal: list[int]) -> int:
        state = self.state
        if state.pending < 0:
            return self._choose_tile(legal)
        if state.pending == FIGURE_SWAP:
            _, swap = self.best_swap()
            if swap is not None:
                s1, t1, s2, t2 = swap
                first = settlement_figure_action(s1, t1)
                second = settlement_figure_action(s2, t2)
                if state.first_figure is None and first in legal:
                    return first
                if state.first_figure is not None and second in legal:
                    return second
            return legal[0]
        if state.pending == TILE_SWAP:
            _, frm, to = self.best_tile_swap()
            target = hex_action(to if state.swap_from >= 0 else frm)
            if state.swap_from >= 0:
                _, to = self.best_target(state.tile[state.swap_from])
                target = hex_action(to)
            return target if target in legal else legal[0]
        _, h = self.best_target(state.pending)
        return hex_action(h) if hex_action(h) in legal else legal[0]

    def _choose_tile(self, legal: list[int]) -> int:
        options: list[tuple[float, int]] = []
        for action in legal:
            if action == END_TURN:
                continue
            kind = tile_of(action)
            if kind == FIGURE_SWAP:
                gain = self.best_swap()[0]
                value = gain if gain >= SWAP_MIN_GAIN else -1.0
            elif kind == TILE_SWAP:
                value = self.best_tile_swap()[0]
            else:
                value = self.best_target(kind)[0]
            if QUICK[kind] and value < QUICK_MIN_GAIN:
                value = min(value, -1.0)  # not worth playing now
            options.append((value, -action))  # ties: the lowest action
        best_value, best_action = max(options)
        if END_TURN in legal and best_value <= 0:
            return END_TURN
        return -best_action
