"""Wakanda rules engine (``shared/rules/wakanda.md``): totems built together, claimed with headdresses.

Two players draw pieces from one bag into their own supplies and, each
turn, either build a piece onto any available unclaimed village or finish
a totem there with a headdress, claiming the village. Each owned village
scores over all of its owner's totems.

Pieces and villages are small ints (``components.py``); names appear only
at the edges.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import (
    Game,
    GameState,
    IllegalActionError,
    check_bool,
    check_options,
    check_permutation,
    check_perspective,
)
from envs.wakanda.components import (
    ALL_PIECES,
    FINISH,
    FIRST_AVAILABLE,
    HEADDRESSES,
    HEIGHT,
    HEIGHT_POINTS,
    NUM_ACTIONS,
    NUM_PIECE_KINDS,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_OF_NAME,
    PIECES,
    POINTS_PER_PIECE,
    SUN,
    SUN_PENALTY,
    VARIETY,
    VARIETY_POINTS,
    VILLAGE_OF_NAME,
    VILLAGES,
)
from envs.wakanda.observation import OBSERVATION_SIZE, encode, refresh

#: Decoded actions, built once: action -> (piece kind or None for finish, slot).
ACTIONS = tuple((a // NUM_SLOTS, a % NUM_SLOTS) if a < FINISH else (None, a - FINISH) for a in range(NUM_ACTIONS))


def validate_villages(villages: Any) -> list[int]:
    """``options["villages"]``: six distinct village names, in line order."""
    if not isinstance(villages, (list, tuple)) or not all(isinstance(v, str) for v in villages):
        raise ValueError(f"options['villages'] must be a list of {NUM_SLOTS} village names from {list(VILLAGES)}, "
                         f"got {villages!r}")
    unknown = [v for v in villages if v not in VILLAGE_OF_NAME]
    if unknown:
        raise ValueError(f"options['villages'] holds unknown names {unknown}; allowed: {list(VILLAGES)}")
    if len(villages) != NUM_SLOTS or len(set(villages)) != NUM_SLOTS:
        raise ValueError(f"options['villages'] must name {NUM_SLOTS} distinct villages from {list(VILLAGES)}, "
                         f"got {list(villages)}")
    return [VILLAGE_OF_NAME[v] for v in villages]


class WakandaGame(Game):
    """A Wakanda table for two players, basic or advanced rules."""

    name = "wakanda"
    num_actions = NUM_ACTIONS
    max_players = NUM_PLAYERS
    num_players = NUM_PLAYERS
    observation_size = OBSERVATION_SIZE

    def __init__(self, advanced: bool = False):
        check_bool("advanced", advanced)
        self.advanced = advanced

    def config(self) -> dict[str, Any]:
        return {"advanced": self.advanced}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> WakandaState:
        """Both orders are always drawn from ``rng`` (bag first, then villages), so injecting
        one of them leaves the other as the seed would have dealt it."""
        options = check_options(options, {"bag", "villages"})
        bag = [ALL_PIECES[i] for i in rng.permutation(len(ALL_PIECES))]
        kinds = [int(k) for k in rng.permutation(NUM_VILLAGE_KINDS)]
        if "bag" in options:
            names = check_permutation("options['bag']", options["bag"], [PIECES[k] for k in ALL_PIECES])
            bag = [PIECE_OF_NAME[name] for name in names]
        villages, removed = kinds[:NUM_SLOTS], kinds[NUM_SLOTS:]
        if "villages" in options:
            villages = validate_villages(options["villages"])
            removed = [k for k in range(NUM_VILLAGE_KINDS) if k not in villages]
        state = WakandaState(self, villages, removed, bag)
        state.start_turn(0)
        return state

    def state_from_dict(self, data: dict[str, Any]) -> WakandaState:
        from envs.wakanda.serialize import state_from_dict

        return state_from_dict(self, data)


class WakandaState(GameState):
    """One position: the village line, the totems, supplies, headdresses and the bag."""

    def __init__(self, game: WakandaGame, villages: list[int], removed: list[int], bag: list[int]):
        self.game = game
        self.villages = villages  # village kind per slot, line order
        self.removed = removed  # the two kinds back in the box
        self.bag = bag  # pieces left, next draw first
        self.revealed = FIRST_AVAILABLE  # slots 0..revealed-1 are available (and face up)
        self.owner: list[int | None] = [None] * NUM_SLOTS
        self.totems: list[list[int]] = [[] for _ in range(NUM_SLOTS)]  # piece kinds, bottom to top
        self.supplies = [[0] * NUM_PIECE_KINDS for _ in range(NUM_PLAYERS)]  # counts by kind
        self.headdresses = [HEADDRESSES] * NUM_PLAYERS
        self.finished = 0
        self.third_headdress_first: int | None = None
        self.current_player: int | None = 0
        self._legal: list[int] = []
        self._scores: list[int] | None = None  # memo: changes only when a totem is finished
        self._slot_obs: list[tuple | None] = [None] * NUM_SLOTS  # memo of observation.slot_block
        self.public: list[float] | None = None  # observation.py's player-0 view, built on first use

    # --- turn structure ------------------------------------------------------
    def start_turn(self, player: int) -> bool:
        """``player``'s turn begins: draw a piece if the bag has one. Returns whether they can act."""
        if self.bag:
            self.supplies[player][self.bag.pop(0)] += 1
        self.current_player = player
        self._legal = self._compute_legal(player)
        return bool(self._legal)

    def open_slots(self) -> list[int]:
        """Available, unclaimed villages: where pieces may go."""
        owner = self.owner
        return [v for v in range(self.revealed) if owner[v] is None]

    def _compute_legal(self, player: int) -> list[int]:
        """Build any supply piece on any open village; finish any open totem with a piece."""
        slots = self.open_slots()
        supply = self.supplies[player]
        legal = [k * NUM_SLOTS + v for k in range(NUM_PIECE_KINDS) if supply[k] for v in slots]
        if self.headdresses[player]:
            totems = self.totems
            legal += [FINISH + v for v in slots if totems[v]]  # an empty totem cannot be finished
        return legal

    def can_act(self, player: int) -> bool:
        """Whether ``player`` would have a legal action now (without drawing)."""
        return bool(self._compute_legal(player))

    def legal_actions(self) -> list[int]:
        return self._legal

    def legal_mask(self) -> np.ndarray:
        mask = bytearray(NUM_ACTIONS)  # (cheaper than numpy fancy indexing for a few actions)
        for action in self._legal:
            mask[action] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def check_action(self, action: int) -> None:
        """Raise IllegalActionError naming the rule that forbids ``action``, unless it is legal."""
        if action in self._legal:
            return
        if self.current_player is None:
            raise IllegalActionError("the game is over: no action is legal")
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
        player, (kind, slot) = self.current_player, ACTIONS[int(action)]
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
        raise IllegalActionError(f"action {action} ({self.describe_action(action)}) is not legal: {why}")

    def apply(self, action: int) -> None:
        if action not in self._legal:
            self.check_action(action)
            raise IllegalActionError(f"action {action} is not legal now")  # unreachable: check_action raised
        player = self.current_player
        kind, slot = ACTIONS[int(action)]
        changed: tuple[int, ...] = (slot,)
        if kind is not None:  # build
            self.supplies[player][kind] -= 1
            self.totems[slot].append(kind)
            self._slot_obs[slot] = None
        else:  # finish: claim the village; the next tilted village becomes available
            self.owner[slot] = player
            self.headdresses[player] -= 1
            self.finished += 1
            if self.headdresses[player] == 0 and self.third_headdress_first is None:
                self.third_headdress_first = player
            self._scores = None
            if self.revealed < NUM_SLOTS:
                self._slot_obs[self.revealed] = None
                changed = (slot, self.revealed)
                self.revealed += 1
        self._next_turn(player)
        if self.public is not None:
            refresh(self, changed, finished=kind is None)

    def _next_turn(self, player: int) -> None:
        """The other player's turn, or back to ``player`` if the other cannot act; the end
        when all six totems are finished or neither player can act."""
        if self.finished < NUM_SLOTS:
            if self.start_turn(1 - player) or self.start_turn(player):
                return
        self.current_player = None
        self._legal = []

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
        """Both scores (memoised: builds go only on unclaimed villages, so only a finish changes them)."""
        if self._scores is None:
            self._scores = [self.player_score(p) for p in range(NUM_PLAYERS)]
        return self._scores[:]

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

    # --- views -----------------------------------------------------------------
    def face_up(self, slot: int) -> bool:
        """Basic game: every village is face up. Advanced: the tilted ones lie face down."""
        return not self.game.advanced or slot < self.revealed

    def observation(self, player: int) -> np.ndarray:
        return encode(self, player)

    def clone(self) -> WakandaState:
        other = object.__new__(WakandaState)
        other.__dict__.update(self.__dict__)
        other.villages = self.villages[:]
        other.removed = self.removed[:]
        other.bag = self.bag[:]
        other.owner = self.owner[:]
        other.totems = [t[:] for t in self.totems]
        other.supplies = [s[:] for s in self.supplies]
        other.headdresses = self.headdresses[:]
        other._legal = self._legal[:]
        other._slot_obs = self._slot_obs[:]
        if self.public is not None:
            other.public = self.public[:]
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> WakandaState:
        """Re-sample what nobody sees: the bag's order and, in the advanced game, which
        village kinds lie face down and which two are in the box."""
        other = self.clone()
        pool = sorted(other.bag)  # sorted first: the result depends only on public facts and rng
        other.bag = [pool[i] for i in rng.permutation(len(pool))]
        if self.game.advanced:
            hidden_slots = [v for v in range(NUM_SLOTS) if not self.face_up(v)]
            hidden = sorted([self.villages[v] for v in hidden_slots] + self.removed)
            hidden = [hidden[i] for i in rng.permutation(len(hidden))]
            for slot, kind in zip(hidden_slots, hidden):
                other.villages[slot] = kind
            other.removed = hidden[len(hidden_slots):]
            other._slot_obs = [None] * NUM_SLOTS
            other.public = None
        return other

    def to_dict(self) -> dict[str, Any]:
        from envs.wakanda.serialize import state_to_dict

        return state_to_dict(self)

    def village_label(self, slot: int) -> str:
        return VILLAGES[self.villages[slot]] if self.face_up(slot) else "face down"

    def describe_action(self, action: int) -> str:
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
        kind, slot = ACTIONS[int(action)]
        if kind is None:
            return f"finish the totem on village {slot} ({self.village_label(slot)})"
        return f"build a {PIECES[kind]} on village {slot} ({self.village_label(slot)})"

    def render_text(self, perspective: int | None = None) -> str:
        from envs.wakanda.render import render_text

        check_perspective(self.game.num_players, perspective)  # everything shown is public
        return render_text(self)

    def render_image(self) -> np.ndarray:
        from envs.wakanda.render import render_image

        return render_image(self)
