"""The Samurai heuristic (``samurai.py``) over a batch of games (``envs/samurai/batch.py``): the same
choice in every game, to the last tie.

The per-game strategy has no randomness of its own (``choose`` draws only the determinization it
reads), so its batch form is a pure function of each game's position. Every float is computed with
the operations, in the order, of ``samurai._Planner``: a hex's gain adds its figures' differences
settlement by settlement and type by type (an absent figure adds an exact 0.0), the figure swap's
gain is ``after - before`` with the same sums, and every "first of the best" is numpy's argmax over
the candidates in the order the loops visit them (``tests/test_samurai_batch.py`` checks the two
forms against each other on many games and positions). Two shortcuts keep every choice: figure values
are read from a table of the heuristic's own ``chance`` (the very floats), and the figure swap's exact
search runs only where a cheap bound (within 1e-14 of it) says that its gain can reach SWAP_MIN_GAIN.
"""

from __future__ import annotations

import numpy as np

from agents.heuristic.samurai_values import QUICK_MIN_GAIN, STRENGTH, SWAP_MIN_GAIN, TILE_COST, chance
from envs.samurai.actions import END_TURN, FIGURE, HEX
from envs.samurai.batch import SamuraiBatch
from envs.samurai.batch_tables import CHOOSE_HAND, DUMMY, INFLUENCE_OF, MOVABLE_OF, PLAY, QUICK_OF
from envs.samurai.components import FIGURE_SWAP, NUM_KINDS, SHIPS, TILE_SWAP
from envs.samurai.rules import SamuraiState

STRENGTH_OF = np.array(STRENGTH)
IS_SHIP = np.isin(np.arange(NUM_KINDS), SHIPS)
#: Rows of the figure swap's search at once (its table is rows x (34 x 3)^2 floats).
SWAP_CHUNK = 256
TYPE_PAIRS = [(t1, t2) for t1 in range(3) for t2 in range(3) if t1 != t2]
#: Per kind: TILE_COST times its total influence, as ``place_gain`` subtracts it.
COST_OF = np.array([TILE_COST * int(INFLUENCE_OF[k].sum()) for k in range(NUM_KINDS)])


def batch_policy(batch: SamuraiBatch) -> np.ndarray:
    """``policy(state)`` of every game of ``batch``: ``(N,)`` int64, -1 where a game is over."""
    mask = batch.legal_mask()
    moves = np.where(batch.player >= 0, mask.argmax(axis=1), -1)  # the first legal action
    rows = np.flatnonzero((batch.player >= 0) & (mask.sum(axis=1) > 1))
    phase = batch.phase[rows]
    choose = rows[phase == CHOOSE_HAND]
    if choose.size:  # the strongest tile, the lowest kind among equals
        moves[choose] = np.where(mask[choose, :NUM_KINDS], STRENGTH_OF, -1).argmax(axis=1)
    play = rows[phase == PLAY]
    if play.size:
        moves[play] = _Planner(batch, play, mask[play]).moves()
    return moves


def play_out(states: list[SamuraiState], first_moves: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every state after each of ``first_moves`` (legal in all of them), then played to the end with the
    heuristic in every seat, all at once: ISMCTS's paired rollouts. Returns the final scores and the winners
    (bool), both ``games x players``; game ``i * len(first_moves) + j`` is ``states[i]`` after ``first_moves[j]``."""
    batch = SamuraiBatch.from_states(states).take(np.repeat(np.arange(len(states)), len(first_moves)))
    batch.step(np.tile(np.asarray(first_moves, dtype=np.int64), len(states)))
    scores = np.zeros((len(batch), batch.game.num_players))
    winners = np.zeros(scores.shape, dtype=bool)
    index = np.arange(len(batch))
    while True:
        over = batch.player < 0
        if over.all() or over.mean() > 0.5:  # set the finished games aside: the rest step faster
            done = np.flatnonzero(over)
            scores[index[done]], winners[index[done]] = batch.scores()[done], batch.winners()[done]
            going = np.flatnonzero(~over)
            if not going.size:
                return scores, winners
            batch, index = batch.take(going), index[going]
        batch.step(batch_policy(batch))


def _resolved(lead: int) -> float:
    """What a figure resolved now is worth, unweighted: captured, set aside, or given to a rival."""
    return 1.0 if lead > 0 else (0.0 if lead == 0 else -0.5)


#: Leads and open land hexes the table covers: |lead| <= 6 hexes x 4 influence, plus 4 for the tile.
LEAD_OFFSET, MOST_OPEN = 32, 6
#: ``figure_value`` unweighted, ``[lead + LEAD_OFFSET, open_land + 1]``: the heuristic's own ``chance``
#: (or the resolved value where no land is open), so that every entry is its float exactly.
VALUE_TABLE = np.array(
    [
        [_resolved(lead) if open_land <= 0 else chance(lead, open_land) for open_land in range(-1, MOST_OPEN + 1)]
        for lead in range(-LEAD_OFFSET, LEAD_OFFSET)
    ]
)


def figure_value(lead: np.ndarray, open_land: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``_Planner.figure_value`` elementwise: the weight times the resolved value or ``chance``."""
    return weight * VALUE_TABLE.take((lead + LEAD_OFFSET) * VALUE_TABLE.shape[1] + (open_land + 1))


class _Planner:
    """``samurai._Planner`` for the games at ``rows`` (all in play, each with several legal moves)."""

    def __init__(self, batch: SamuraiBatch, rows: np.ndarray, mask: np.ndarray):
        self.batch, self.rows, self.mask = batch, rows, mask
        self.m = np.arange(len(rows))
        me = batch.player[rows]
        seats = np.arange(batch.game.num_players)
        captured = batch.captured[rows]
        mine = captured[self.m, me]
        rival = np.where((seats == me[:, None])[:, :, None], -1, captured).max(axis=1)
        self.weights = np.where(np.abs(mine - rival) <= batch.on_board[rows], 1.5, 0.6)  # (m, 3)
        # Settlement axes hold the settlements on this board, then the spare column (no settlement).
        tables = batch.tables
        self.columns = np.append(tables.settlements, DUMMY)
        local = np.full(DUMMY + 1, len(self.columns) - 1)
        local[self.columns] = np.arange(len(self.columns))
        self.near = local[tables.near]  # (hexes, 2): the settlements next to each hex, in these columns
        influence = batch.influence[rows[:, None], self.columns]  # (m, S, P, 3)
        others = np.where((seats == me[:, None])[:, None, :, None], np.iinfo(np.int64).min, influence)
        self.lead = influence[self.m, :, me] - others.max(axis=2)  # (m, S, 3)
        self.need = batch.need[rows[:, None], self.columns]
        self.figures = batch.figures[rows[:, None], self.columns]
        self.now = figure_value(self.lead, self.need[:, :, None], self.weights[:, None, :])  # value left as it is
        self.target_value = np.full((len(rows), NUM_KINDS), -np.inf)
        self.target_hex = np.full((len(rows), NUM_KINDS), -1)
        self.known = np.zeros((len(rows), NUM_KINDS), dtype=bool)  # where target_value / target_hex are set

    # --- valuation --------------------------------------------------------
    def best_targets(self, wanted: np.ndarray) -> None:
        """``best_target(kind)`` wherever ``wanted[row, kind]`` (kept in target_value / target_hex): all the
        (row, kind) pairs of the land tiles in one go, then those of the ships."""
        wanted = wanted & ~self.known
        self.known |= wanted
        for ship in (False, True):
            sub, kinds = np.nonzero(wanted & (IS_SHIP if ship else ~IS_SHIP))
            if sub.size:
                self.target_value[sub, kinds], self.target_hex[sub, kinds] = self._best_target(sub, kinds, ship)

    def _best_target(self, sub: np.ndarray, kinds: np.ndarray, ship: bool) -> tuple[np.ndarray, np.ndarray]:
        """``best_target(kinds[i])`` in row ``sub[i]``: the best hex's gain and the hex (the first of equals)."""
        tables = self.batch.tables
        hexes = tables.sea_near if ship else tables.land_hexes  # the empty ones near a settlement are candidates
        lead = self.lead[sub] + INFLUENCE_OF[kinds][:, None, :]  # (pairs, S, 3)
        open_land = self.need[sub] - (0 if ship else 1)  # a tile on land leaves one fewer open hex
        after = figure_value(lead, open_land[:, :, None], self.weights[sub][:, None, :])
        diff = np.where(self.figures[sub], after - self.now[sub], 0.0)
        gain = np.zeros((len(sub), len(hexes)))
        for j in range(self.near.shape[1]):  # settlement by settlement, type by type, as place_gain adds
            per_type = diff[:, self.near[hexes, j]]  # (pairs, hexes, 3)
            for t in range(3):
                gain = gain + per_type[:, :, t]
        cost = COST_OF[kinds]
        gain = gain - cost[:, None]
        tiles = self.batch.tile[self.rows[sub]]
        gain[tiles[:, hexes] >= 0] = -np.inf
        best = gain.argmax(axis=1)
        value, where = gain[np.arange(len(sub)), best], hexes[best]
        nowhere = value == -np.inf  # nothing near a settlement: the first empty hex, at the tile's cost
        if nowhere.any():
            every = tables.sea_hexes if ship else tables.land_hexes
            empty = tiles[nowhere][:, every] < 0
            value[nowhere] = np.where(empty.any(axis=1), -cost[nowhere], -np.inf)
            where[nowhere] = np.where(empty.any(axis=1), every[empty.argmax(axis=1)], -1)
        return value, where

    def best_swap(self, sub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``best_swap`` of the rows ``sub``: the gain (0.0 when none gains) and ``(s1, t1, s2, t2)``, -1 if none."""
        gain = np.zeros(len(sub))
        swap = np.full((len(sub), 4), -1)
        for start in range(0, len(sub), SWAP_CHUNK):
            part = slice(start, start + SWAP_CHUNK)
            gain[part], swap[part] = self._best_swap(sub[part])
        return gain, swap

    def _kept(self, sub: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The figures, their values now, and ``value[(s, t)] * weights[t]`` as best_swap computes it."""
        weights = self.weights[sub, None, :]
        now = self.now[sub, :-1]
        return self.figures[sub, :-1], now, now / weights * weights

    def swap_bound(self, sub: np.ndarray) -> np.ndarray:
        """The best figure exchange's gain to within 1e-14 (-inf without one), cheaply: for each ordered pair
        of types the two settlements' parts of the gain add up, and the best of each part can be taken apart
        (a pair (a, b) with a > b is the exchange (b, a) with the types swapped, so no order is lost)."""
        figures, now, kept = self._kept(sub)
        best = np.full(len(sub), -np.inf)
        for t1, t2 in TYPE_PAIRS:
            gives = figures[:, :, t1] & ~figures[:, :, t2]  # s1: holds t1, not t2
            takes = figures[:, :, t2] & ~figures[:, :, t1]  # s2: holds t2, not t1
            first = np.where(gives, now[:, :, t2] - kept[:, :, t1], -np.inf).max(axis=1)
            second = np.where(takes, now[:, :, t1] - kept[:, :, t2], -np.inf).max(axis=1)
            best = np.maximum(best, first + second)
        return best

    def _best_swap(self, sub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        figures, now, kept = self._kept(sub)
        settlements = np.flatnonzero(figures.any(axis=(0, 2)))  # only settlements with figures take part
        figures, now, kept = figures[:, settlements], now[:, settlements], kept[:, settlements]
        count = len(settlements)
        in_order = np.triu(np.ones((count, count), dtype=bool), 1)  # s1 before s2
        gain = np.full((len(sub), count, 3, count, 3), -np.inf)  # [m, s1, t1, s2, t2], the loops' order
        for t1, t2 in TYPE_PAIRS:
            gives = figures[:, :, t1] & ~figures[:, :, t2]
            takes = figures[:, :, t2] & ~figures[:, :, t1]
            valid = gives[:, :, None] & takes[:, None, :] & in_order
            after = now[:, None, :, t1] + now[:, :, None, t2]
            before = kept[:, :, None, t1] + kept[:, None, :, t2]
            gain[:, :, t1, :, t2] = np.where(valid, after - before, -np.inf)
        gain = gain.reshape(len(sub), -1)
        best = gain.argmax(axis=1)
        value = gain[np.arange(len(sub)), best]
        found = value > 0.0
        a, t1, b, t2 = np.unravel_index(best, (count, 3, count, 3))
        settlements = self.columns[settlements]  # hex order = column order: the loops' order is kept
        swap = np.stack([settlements[a], t1, settlements[b], t2], axis=1)
        swap[~found] = -1
        return np.where(found, value, 0.0), swap

    def best_tile_swap(self, sub: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``best_tile_swap`` of the rows ``sub``: (gain, from hex, to hex); (-inf, -1, -1) without a candidate."""
        hexes, near = self.batch.tables.land_hexes, self.near
        rows = self.rows[sub]
        tiles = self.batch.tile[rows][:, hexes]
        mine = self.batch.owner[rows][:, hexes] == self.batch.player[rows, None]
        figures = self.figures[sub].any(axis=2)  # (m, S+1)
        working = figures[:, near[hexes, 0]] | figures[:, near[hexes, 1]]
        candidate = mine & MOVABLE_OF[tiles] & ~working
        wanted = np.zeros((len(self.rows), NUM_KINDS), dtype=bool)
        kinds = np.zeros((len(sub), NUM_KINDS + 1), dtype=bool)
        kinds[np.arange(len(sub))[:, None], np.where(candidate, tiles, -1)] = True
        wanted[sub] = kinds[:, :NUM_KINDS]
        self.best_targets(wanted)
        value = np.where(candidate, np.take_along_axis(self.target_value[sub], np.maximum(tiles, 0), axis=1), -np.inf)
        best = value.argmax(axis=1)
        m = np.arange(len(sub))
        gain = value[m, best]
        none = gain == -np.inf
        source = np.where(none, -1, hexes[best])
        target = np.where(none, -1, self.target_hex[sub, np.maximum(tiles[m, best], 0)])
        return gain, source, target

    # --- the move ---------------------------------------------------------
    def moves(self) -> np.ndarray:
        batch, rows, mask = self.batch, self.rows, self.mask
        out = mask.argmax(axis=1)  # legal[0], where nothing better is found
        pending = batch.pending[rows]
        choosing = np.flatnonzero(pending < 0)
        if choosing.size:
            out[choosing] = self._choose_tile(choosing)
        sub = np.flatnonzero(pending == FIGURE_SWAP)
        if sub.size:
            _, swap = self.best_swap(sub)
            first = batch.first_s[rows[sub]] < 0
            action = np.where(first, FIGURE + 3 * swap[:, 0] + swap[:, 1], FIGURE + 3 * swap[:, 2] + swap[:, 3])
            self._take(out, sub, np.where(swap[:, 0] >= 0, action, -1))
        sub = np.flatnonzero((pending == TILE_SWAP) & (batch.swap_from[rows] < 0))
        if sub.size:
            _, source, _ = self.best_tile_swap(sub)
            self._take(out, sub, np.where(source >= 0, HEX + source, -1))
        moving = (pending == TILE_SWAP) & (batch.swap_from[rows] >= 0)
        kinds = np.where(moving, batch.tile[rows, np.maximum(batch.swap_from[rows], 0)], pending)
        sub = np.flatnonzero((pending >= 0) & (pending != FIGURE_SWAP) & ((pending != TILE_SWAP) | moving))
        if sub.size:
            wanted = np.zeros((len(rows), NUM_KINDS), dtype=bool)
            wanted[sub, kinds[sub]] = True
            self.best_targets(wanted)
            hexes = self.target_hex[sub, kinds[sub]]
            self._take(out, sub, np.where(hexes >= 0, HEX + hexes, -1))
        return out

    def _take(self, out: np.ndarray, sub: np.ndarray, actions: np.ndarray) -> None:
        """``out[sub] = actions`` where an action is given (>= 0) and legal; the rest keep legal[0]."""
        ok = actions >= 0
        ok[ok] = self.mask[sub[ok], actions[ok]]
        out[sub[ok]] = actions[ok]

    def _choose_tile(self, sub: np.ndarray) -> np.ndarray:
        legal = self.mask[sub, :NUM_KINDS]
        values = np.full(legal.shape, -np.inf)
        wanted = np.zeros((len(self.rows), NUM_KINDS), dtype=bool)
        wanted[sub] = legal
        wanted[:, [FIGURE_SWAP, TILE_SWAP]] = False
        self.best_targets(wanted)
        values[legal] = self.target_value[sub][legal]
        at = np.flatnonzero(legal[:, FIGURE_SWAP])
        if at.size:  # below the threshold the exact gain does not matter: it counts -1
            values[at, FIGURE_SWAP] = -1.0
            at = at[self.swap_bound(sub[at]) >= SWAP_MIN_GAIN - 1e-9]
        if at.size:
            gain, _ = self.best_swap(sub[at])
            values[at, FIGURE_SWAP] = np.where(gain >= SWAP_MIN_GAIN, gain, -1.0)
        at = np.flatnonzero(legal[:, TILE_SWAP])
        if at.size:
            values[at, TILE_SWAP] = self.best_tile_swap(sub[at])[0]
        quick = legal & QUICK_OF & (values < QUICK_MIN_GAIN)
        values[quick] = np.minimum(values[quick], -1.0)  # not worth playing now
        best = np.where(legal, values, -np.inf).max(axis=1)
        kind = (legal & (values == best[:, None])).argmax(axis=1)  # ties: the lowest action
        end = self.mask[sub, END_TURN] & (best <= 0)
        return np.where(end, END_TURN, kind)
