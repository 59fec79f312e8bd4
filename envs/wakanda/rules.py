"""Wakanda rules engine (``docs/rules/wakanda.md``): totems built together, claimed with headdresses.

Two players draw pieces from one bag into their own supplies and, each
turn, either build a piece onto any available unclaimed village or finish
a totem there with a headdress, claiming the village. Each owned village
scores over all of its owner's totems.

The state is plain game data: pieces and villages are small ints
(``components.py``), actions come from ``actions.py``. What a player sees of
it is the observer's business (``observation.py``), as are the serializer
and the pictures; the game (``game.py``) wires them together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.engine import GameState, is_action, shown
from envs.wakanda.actions import BUILDS, DECODED, FINISHES, NUM_ACTIONS
from envs.wakanda.components import (
    FIRST_AVAILABLE,
    FIRST_PLAYER,
    HEADDRESSES,
    HEIGHT,
    HEIGHT_POINTS,
    NUM_PIECE_KINDS,
    NUM_PLAYERS,
    NUM_SLOTS,
    PIECES,
    POINTS_PER_PIECE,
    SUN,
    SUN_PENALTY,
    VARIETY,
    VARIETY_POINTS,
    VILLAGES,
)

if TYPE_CHECKING:
    from envs.core.engine import Game

_KINDS = range(NUM_PIECE_KINDS)
#: The hidden orders (``hidden_orders``): the bag, then (advanced game) the villages no one has seen.
BAG, FACE_DOWN = 0, 1


class WakandaState(GameState):
    """One position: the village line, the totems, supplies, headdresses and the bag.

    ``revealed`` (villages available so far, in line order) and ``finished``
    (totems claimed) follow from ``owner``; they are kept as fields because
    every turn reads them.
    """

    def __init__(self, game: Game, villages: list[int], removed: list[int], bag: list[int]):
        """The opening position of a deal: ``villages`` (six kinds in line order), ``removed``
        (the two in the box) and ``bag`` (the draw order). The first player has drawn."""
        self.game = game
        self.villages = list(villages)  # village kind per slot, line order
        self.removed = list(removed)  # the two kinds back in the box
        self.bag = list(bag)  # pieces left, next draw first
        self.revealed = FIRST_AVAILABLE  # slots 0..revealed-1 are available (and face up)
        self.finished = 0
        self.owner: list[int | None] = [None] * NUM_SLOTS
        self.totems: list[list[int]] = [[] for _ in range(NUM_SLOTS)]  # piece kinds, bottom to top
        self.supplies = [[0] * NUM_PIECE_KINDS for _ in range(NUM_PLAYERS)]  # counts by kind
        self.headdresses = [HEADDRESSES] * NUM_PLAYERS
        self.third_headdress_first: int | None = None
        self.current_player: int | None = FIRST_PLAYER
        self._legal = None
        self._draw(FIRST_PLAYER)

    # --- turn structure ------------------------------------------------------
    def _draw(self, player: int) -> None:
        """Turn, step 1: draw a piece into ``player``'s supply (nothing once the bag is empty)."""
        if self.bag:
            self.supplies[player][self.bag.pop(0)] += 1

    def open_slots(self) -> list[int]:
        """Available, unclaimed villages: where pieces may go."""
        owner = self.owner
        return [v for v in range(self.revealed) if owner[v] is None]

    def _legal_for(self, player: int) -> tuple[int, ...]:
        """Turn, step 2: build any supply piece on any open village, or finish any open totem
        that holds a piece (while a headdress is left)."""
        slots = self.open_slots()
        supply = self.supplies[player]
        legal = [BUILDS[kind][v] for kind in _KINDS if supply[kind] for v in slots]
        if self.headdresses[player]:
            totems = self.totems
            legal += [FINISHES[v] for v in slots if totems[v]]  # an empty totem cannot be finished
        return tuple(legal)

    def _compute_legal(self) -> tuple[int, ...]:
        return () if self.current_player is None else self._legal_for(self.current_player)

    def can_act(self, player: int) -> bool:
        """Whether ``player`` would have a legal action now (without drawing)."""
        return bool(self._legal_for(player))

    def illegal_message(self, action: int) -> str:
        """Names the rule that forbids ``action``."""
        player, (kind, slot) = self.current_player, DECODED[action]
        if slot >= self.revealed:
            why = f"village {slot} is tilted, not yet available"
        elif self.owner[slot] is not None:
            why = f"village {slot} is already claimed by player {self.owner[slot]}"
        elif kind is not None:
            why = f"player {player} has no {PIECES[kind]} in their supply"
        elif not self.headdresses[player]:
            why = f"player {player} has no headdress left"
        else:
            why = f"the totem on village {slot} is empty, and an empty totem cannot be finished"
        return f"action {action} ({self.describe_action(action)}) is not legal: {why}"

    def _play(self, action: int) -> None:
        player = self.current_player
        kind, slot = DECODED[action]
        if kind is None:
            self._finish(player, slot)
        else:
            self._build(player, kind, slot)
        self._next_turn(player)

    def _build(self, player: int, kind: int, slot: int) -> None:
        """Build: a piece from the supply on top of the totem there (or starting it)."""
        self.supplies[player][kind] -= 1
        self.totems[slot].append(kind)

    def _finish(self, player: int, slot: int) -> None:
        """Finish: a headdress claims the totem and its village; the next tilted village becomes available."""
        self.owner[slot] = player
        self.headdresses[player] -= 1
        self.finished += 1
        if self.headdresses[player] == 0 and self.third_headdress_first is None:
            self.third_headdress_first = player
        if self.revealed < NUM_SLOTS:
            self.revealed += 1

    def _next_turn(self, player: int) -> None:
        """The other player's turn (they draw first), or back to ``player`` (who draws) if the other
        cannot act; the end when all six totems are finished or neither player can act."""
        if self.finished < NUM_SLOTS:
            for candidate in (1 - player, player):
                self._draw(candidate)
                legal = self._legal_for(candidate)
                if legal:
                    self.current_player, self._legal = candidate, legal
                    return
        self.current_player, self._legal = None, ()

    # --- scoring ---------------------------------------------------------------
    def player_score(self, player: int) -> int:
        """Each owned village scores over all the owner's totems; then the sun penalty."""
        counts = [0] * NUM_PIECE_KINDS
        tallest = 0
        owned = []
        for slot in range(NUM_SLOTS):
            if self.owner[slot] == player:
                owned.append(self.villages[slot])
                totem = self.totems[slot]
                tallest = max(tallest, len(totem))
                for piece in totem:
                    counts[piece] += 1
        score = 0
        for village in owned:
            if village == VARIETY:
                score += VARIETY_POINTS * sum(1 for c in counts if c)
            elif village == HEIGHT:
                score += HEIGHT_POINTS * tallest
            else:
                score += POINTS_PER_PIECE[village] * counts[village]
        if SUN not in owned:  # also when the sun village is not in the game
            score -= SUN_PENALTY * counts[SUN]
        return score

    def int_scores(self) -> list[int]:
        """Both scores, the final scoring applied to the current position."""
        return [self.player_score(p) for p in range(NUM_PLAYERS)]

    def scores(self) -> list[float]:
        return [float(s) for s in self.int_scores()]

    def winners(self) -> list[int]:
        """Highest score; on a tie the player who placed their third headdress first; else both (a draw)."""
        if self.current_player is not None:
            return []
        scores = self.int_scores()
        if scores[0] != scores[1]:
            return [0 if scores[0] > scores[1] else 1]
        if self.third_headdress_first is not None:
            return [self.third_headdress_first]
        return [0, 1]

    def winner(self) -> int | None:
        """The single winner, or None for a draw or while playing."""
        winners = self.winners()
        return winners[0] if len(winners) == 1 else None

    # --- information -------------------------------------------------------------
    def face_up(self, slot: int) -> bool:
        """Basic game: every village is face up. Advanced: the tilted ones lie face down."""
        return not self.game.advanced or slot < self.revealed

    def village_label(self, slot: int) -> str:
        return VILLAGES[self.villages[slot]] if self.face_up(slot) else "face down"

    def describe_action(self, action: int) -> str:
        if not is_action(action, NUM_ACTIONS):
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {shown(action)}")
        kind, slot = DECODED[action]
        if kind is None:
            return f"finish the totem on village {slot} ({self.village_label(slot)})"
        return f"build a {PIECES[kind]} on village {slot} ({self.village_label(slot)})"

    # --- chance: the bag, and the face-down villages (envs/core/chance.py) ---------------------
    def hidden_orders(self) -> list[list[int]]:
        """The bag (the next player draws after every move while it lasts) and, in the advanced game, the
        villages no one has seen: the face-down ones in line order, each revealed when a totem is finished,
        then the two in the box (never revealed)."""
        if not self.game.advanced:
            return [self.bag[:]]
        return [self.bag[:], self.villages[self.revealed :] + self.removed]

    def set_hidden_orders(self, orders: list[list[int]]) -> None:
        self.bag = list(orders[0])
        if self.game.advanced:
            face_down = NUM_SLOTS - self.revealed
            self.villages[self.revealed :], self.removed = orders[1][:face_down], orders[1][face_down:]

    def drawer(self, order: int) -> int | None:
        return 1 - self.current_player if order == BAG else None  # the other player draws; a village is revealed

    def describe_draw(self, order: int, items: tuple[int, ...]) -> str:
        if order == BAG:
            return "drew " + ", ".join(f"a {PIECES[piece]}" for piece in items)
        return "revealed the village " + ", ".join(VILLAGES[village] for village in items)

    def clone(self) -> WakandaState:
        other = object.__new__(WakandaState)
        other.game = self.game
        other.villages = self.villages[:]
        other.removed = self.removed[:]
        other.bag = self.bag[:]
        other.revealed = self.revealed
        other.finished = self.finished
        other.owner = self.owner[:]
        other.totems = [totem[:] for totem in self.totems]
        other.supplies = [supply[:] for supply in self.supplies]
        other.headdresses = self.headdresses[:]
        other.third_headdress_first = self.third_headdress_first
        other.current_player = self.current_player
        other._legal = self._legal  # a tuple: shared, never changed
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> WakandaState:
        """Re-sample what nobody sees: the bag's order and, in the advanced game, which
        village kinds lie face down and which two are in the box."""
        other = self.clone()
        pool = sorted(other.bag)  # sorted first: the result depends only on public facts and rng
        other.bag = [pool[i] for i in rng.permutation(len(pool)).tolist()]
        if self.game.advanced:
            hidden_slots = [v for v in range(NUM_SLOTS) if not self.face_up(v)]
            hidden = sorted([self.villages[v] for v in hidden_slots] + self.removed)
            hidden = [hidden[i] for i in rng.permutation(len(hidden)).tolist()]
            for slot, kind in zip(hidden_slots, hidden):
                other.villages[slot] = kind
            other.removed = hidden[len(hidden_slots) :]
        return other
