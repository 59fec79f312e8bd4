"""The engine protocol every game implements, and the helpers they share.

A game is two objects, after OpenSpiel: a :class:`Game` holds the fixed
configuration (players, variants) and makes states; a :class:`GameState` is
one position with the few methods that search agents, batch simulation and
the AEC adapter need. Engines are pure Python plus numpy: no PettingZoo or
Gymnasium import, so they stay fast and usable on their own.

All randomness is drawn when a state is created (the bag or piles shuffled
once from one generator), so the draws never depend on the actions.
"""

from __future__ import annotations

import math
import reprlib
import warnings
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Protocol

import numpy as np


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this position (state unchanged)."""


_REPR = reprlib.Repr()  # Python 3.11's Repr takes no keyword arguments
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for error messages: a rejected
    200,000-item list must not become a 5 MB message."""
    if isinstance(value, int) and value.bit_length() > 128:  # repr of a huge int is slow, or refused
        return f"<an integer of {value.bit_length()} bits>"
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...>"


def check_choice(name: str, value: Any, allowed: tuple | list) -> None:
    """Raise a ValueError naming ``name`` and the allowed values unless ``value`` is one, of the same
    type: ``2.0``, ``True`` and ``numpy.int64(2)`` equal ``2`` but are not the int 2."""
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}, got {shown(value)}")


def check_bool(name: str, value: Any) -> None:
    """Raise a ValueError unless ``value`` is a real bool (not 0/1 or a string)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {shown(value)}")


def check_keys(name: str, d: Any, allowed: set[str], required: set[str] = frozenset()) -> None:
    """Validate a dict argument: it must be a dict with only known and all required keys."""
    if not isinstance(d, dict):
        raise ValueError(f"{name} must be a dict, got {type(d).__name__}")
    unknown = set(d) - allowed
    if unknown:  # keys of any type (a Python caller's dict): sorted by their repr, the list quoted cut
        raise ValueError(f"{name} has unknown keys {shown(sorted(unknown, key=repr))}; allowed: {sorted(allowed)}")
    missing = required - set(d)
    if missing:
        raise ValueError(f"{name} is missing keys {sorted(missing)}")


def check_options(options: Any, known: set[str]) -> dict[str, Any]:
    """Validate ``reset(options=...)``: a dict or None. Unknown keys are ignored
    with a warning, not an error, because PettingZoo's ``api_test`` requires
    that ``reset`` accepts options an environment does not know."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - known, key=str)
    if unknown:
        warnings.warn(f"reset options {shown(unknown)} are not used by this game; known: {sorted(known)}", stacklevel=4)
    return options


def check_permutation(name: str, given: Any, expected: list[str]) -> list[str]:
    """Check that ``given`` is a list holding exactly the multiset ``expected``.

    Returns it as a list of str; the error names what is missing or extra.
    """
    if not isinstance(given, (list, tuple)) or not all(isinstance(x, str) for x in given):
        raise ValueError(f"{name} must be a list of names, got {shown(given)}")
    unknown = sorted(set(given) - set(expected))
    if unknown:
        raise ValueError(f"{name} holds unknown names {shown(unknown)}; allowed: {sorted(set(expected))}")
    if sorted(given) != sorted(expected):
        from collections import Counter

        have, want = Counter(given), Counter(expected)
        extra = dict(have - want)
        missing = dict(want - have)
        raise ValueError(
            f"{name} is not a permutation of the game's {len(expected)} items: "
            f"extra {shown(extra) if extra else 'none'}, missing {shown(missing) if missing else 'none'}"
        )
    return list(given)


def is_int(value: Any) -> bool:
    """A real int (not a bool), as state data must hold."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A real, finite number (not a bool): a budget of ``nan`` or ``inf`` seconds would never end."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_action(value: Any, num_actions: int) -> bool:
    """Whether ``value`` names an action: an int or a numpy integer (what a mask samples), not a bool,
    in ``0..num_actions - 1``."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < num_actions


def check_perspective(num_players: int, perspective: Any) -> None:
    """``render_text``'s perspective: None or a seat."""
    if perspective is not None and not (is_int(perspective) and 0 <= perspective < num_players):
        raise ValueError(f"perspective must be None or a seat in 0..{num_players - 1}, got {shown(perspective)}")


def win_rewards(num_players: int, winners: list[int]) -> list[float]:
    """+1 for each winner, -1 for each other player; all 0 when everyone shares the win."""
    if len(winners) == num_players:
        return [0.0] * num_players
    return [1.0 if p in winners else -1.0 for p in range(num_players)]


def score_rewards(scores: list[float]) -> list[float]:
    """Own score minus the mean of the other players' scores (zero-sum)."""
    n, total = len(scores), sum(scores)
    return [float(s - (total - s) / (n - 1)) for s in scores]


class GameState(ABC):
    """One position of a game. Subclasses read like their rules document.

    The protocol is deliberately small (OpenSpiel's MCTS needs about nine
    methods; so do ours): whose turn, which actions are legal, apply one,
    is it over, who won, what may a player see, copy, serialise, and
    re-sample what a player cannot see.
    """

    game: Game
    #: Index of the player to act, or None once the game is over.
    current_player: int | None

    #: The legal actions of this position, computed on first use. Every engine caches them
    #: the same way: ``apply`` (and anything else that changes the position) sets it to None.
    _legal: tuple[int, ...] | None = None

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, ascending (empty when over): a fresh list."""
        return list(self.legal_tuple())

    def legal_tuple(self) -> tuple[int, ...]:
        """The same actions as the cached tuple, for hot paths (masks, search): never copied."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    @abstractmethod
    def _compute_legal(self) -> tuple[int, ...]:
        """The legal actions of the player to act, ascending (empty when over)."""

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a fresh int8 vector of length ``game.num_actions``.

        Built in a bytearray: for the few to few dozen legal actions of a turn this is about twice
        as fast as numpy's fancy indexing, and the env builds one mask every turn."""
        mask = bytearray(self.game.num_actions)
        for action in self.legal_tuple():
            mask[action] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def apply(self, action: int) -> None:
        """Play ``action`` for the current player, or raise IllegalActionError and change nothing.

        The legality check is here once for every game: an action is an int (or a numpy integer, as
        sampled from a mask; a bool or a float is refused even where it equals a legal action) that
        names a legal action now. Each game's rules then play it in :meth:`_play`."""
        if type(action) is not int or action not in self.legal_tuple():
            self.check_action(action)  # raises, unless a numpy integer names a legal action
            action = int(action)  # a numpy integer becomes the int it names: the state stays JSON-safe
        self._legal = None
        self._play(action)

    @abstractmethod
    def _play(self, action: int) -> None:
        """The rules of one action: play the legal ``action`` (an int, already checked)."""

    def check_action(self, action: Any) -> None:
        """Raise IllegalActionError with a readable message unless ``action`` is legal now."""
        if self.current_player is None:
            raise IllegalActionError("the game is over: no action is legal")
        if not is_action(action, self.game.num_actions):
            raise IllegalActionError(f"action must be an int in 0..{self.game.num_actions - 1}, got {shown(action)}")
        if int(action) not in self.legal_tuple():
            raise IllegalActionError(self.illegal_message(int(action)))

    def illegal_message(self, action: int) -> str:
        """Why ``action`` (in range) is not legal now; by default, the legal actions listed."""
        legal = ", ".join(f"{a} ({self.describe_action(a)})" for a in self.legal_tuple())
        return f"action {action} is not legal now; legal actions: {legal}"

    def is_terminal(self) -> bool:
        return self.current_player is None

    @abstractmethod
    def scores(self) -> list[float]:
        """Each player's score under the game's scoring rules (final once terminal)."""

    @abstractmethod
    def winners(self) -> list[int]:
        """The winning players (several on a shared win); empty while playing."""

    def rewards(self, mode: str) -> list[float]:
        """Final rewards per player under a reward mode of ``game.reward_modes``."""
        if mode == "win":
            return win_rewards(self.game.num_players, self.winners())
        return score_rewards(self.scores())

    def final_info(self, player: int) -> dict[str, Any]:
        """What ``infos[agent]`` holds once the game is over."""
        return {"score": float(self.scores()[player])}

    def observation(self, player: int) -> np.ndarray:
        """Everything ``player`` may see, seats relative to them, as float32 (fresh array).

        A convenience that encodes from scratch with a fresh observer; code that
        follows a game move by move (the AEC adapter) keeps its own :class:`Observer`."""
        return self.game.observer().observe(self, player)

    @abstractmethod
    def clone(self) -> GameState:
        """An independent copy."""

    @abstractmethod
    def determinize(self, player: int, rng: np.random.Generator) -> GameState:
        """A copy in which everything hidden from ``player`` is re-sampled consistently."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data restoring this exact state through ``game.state_from_dict``."""
        return self.game.state_to_dict(self)

    @abstractmethod
    def describe_action(self, action: int) -> str:
        """A short human-readable description of ``action`` in this position."""

    # --- chance: the hidden orders (``envs/core/chance.py`` derives a review's outcomes from them) ---
    def hidden_orders(self) -> list[list[int]]:
        """Every order of items that no player has seen, next draw first (fresh lists): each chance event
        of the game is a draw from the front of one of them."""
        raise NotImplementedError(f"{type(self).__name__} does not name its hidden orders (envs/core/chance.py)")

    def set_hidden_orders(self, orders: list[list[int]]) -> None:
        """Put back the items of :meth:`hidden_orders`, each order rearranged (shuffled, or an outcome first)."""
        raise NotImplementedError(f"{type(self).__name__} does not name its hidden orders (envs/core/chance.py)")

    def chance_draws(self, action: int) -> list[tuple[int, int]]:
        """``(order, count)`` of each draw that playing ``action`` now makes, seen by playing it on a copy: every
        item a move takes from a hidden order is drawn from its front (a game whose choices take from one too
        says so in an override of its own)."""
        after = self.clone()
        after.apply(action)
        pairs = enumerate(zip(self.hidden_orders(), after.hidden_orders()))
        return [(k, len(old) - len(new)) for k, (old, new) in pairs if len(old) != len(new)]

    def drawer(self, order: int) -> int | None:
        """The player who draws from ``order`` when the player to act moves now; None for a reveal."""
        raise NotImplementedError(f"{type(self).__name__} does not name its hidden orders (envs/core/chance.py)")

    def describe_draw(self, order: int, items: tuple[int, ...]) -> str:
        """``items`` drawn from ``order``, in words (``"drew S3"``)."""
        raise NotImplementedError(f"{type(self).__name__} does not name its hidden orders (envs/core/chance.py)")

    def render_text(self, perspective: int | None = None) -> str:
        """A readable text picture of the position. ``perspective`` is the seat whose private
        information (a hand) it may show; None shows the hand of the player to act, as at a
        hot-seat table. Games without private information check it and draw the same picture."""
        return self.game.render_text(self, perspective)

    def render_image(self) -> np.ndarray:
        """An H x W x 3 uint8 picture of the position."""
        return self.game.render_image(self)


class Observer(ABC):
    """Encodes what one player may see of a game's states: layer 2, apart from the rules.

    An observer reads states and never writes them; the state holds no cache of
    the observer's. To stay fast it may keep caches about the one state it
    *follows*, and whoever owns both (the AEC adapter, a training environment)
    tells it of every change explicitly:

    - :meth:`follow` when a game begins or is loaded (drop every cache);
    - :meth:`applied` right after each ``state.apply(action)`` of that state.

    :meth:`observe` on any state it does not follow encodes from scratch, so a
    fresh observer always gives the true observation (the no-leak tests use
    fresh observers on freshly built states). Caches never leave the observer.
    """

    def __init__(self, game: Game):
        self.game = game

    def follow(self, state: GameState) -> None:
        """Start following ``state`` (a new or loaded game); default: keep no cache."""

    def applied(self, state: GameState, action: int) -> None:
        """The followed ``state`` has just played ``action``; default: nothing to update."""

    @abstractmethod
    def observe(self, state: GameState, player: int) -> np.ndarray:
        """Everything ``player`` may see in ``state``, seats relative to them (a fresh float32 array)."""


class Serializer(Protocol):
    """A game's serializer module (``envs/<game>/serialize.py``): state as JSON-safe data and back."""

    def state_to_dict(self, state: Any) -> dict[str, Any]: ...

    def state_from_dict(self, game: Any, data: Any) -> Any: ...


class Renderer(Protocol):
    """A game's renderer module (``envs/<game>/render.py``): state as text and as a picture."""

    def render_text(self, state: Any, perspective: int | None = None) -> str: ...

    def render_image(self, state: Any) -> np.ndarray: ...


class Game(ABC):
    """A game's fixed configuration: it validates options and creates states.

    A game declares its layers as data (``observer_class``, ``serializer``, ``renderer``);
    the methods that reach them are written here once."""

    name: ClassVar[str]
    #: Size of the flat Discrete action space (the same for every configuration).
    num_actions: ClassVar[int]
    reward_modes: ClassVar[tuple[str, ...]] = ("win", "score")
    num_players: int
    #: Length of the flat observation vector.
    observation_size: int
    #: The game's observer (layer 2), built with the game.
    observer_class: ClassVar[type[Observer]]
    #: The module with ``state_to_dict(state)`` and ``state_from_dict(game, data)``.
    serializer: ClassVar[Serializer]
    #: The module with ``render_text(state, perspective)`` and ``render_image(state)``.
    renderer: ClassVar[Renderer]

    @abstractmethod
    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> GameState:
        """A fresh game: every hidden order drawn from ``rng`` or injected by ``options``."""

    def config(self) -> dict[str, Any]:
        """The constructor arguments, so that the same game can be built again (plain JSON-safe values)."""
        return {}

    def observer(self) -> Observer:
        """A new observer of this game's states (see :class:`Observer`)."""
        return self.observer_class(self)

    def state_to_dict(self, state: GameState) -> dict[str, Any]:
        """``state`` as JSON-safe data (``GameState.to_dict`` calls it)."""
        return self.serializer.state_to_dict(state)

    def state_from_dict(self, data: dict[str, Any]) -> GameState:
        """Rebuild a state from ``GameState.to_dict`` data, validating it (refused data changes nothing)."""
        return self.serializer.state_from_dict(self, data)

    def render_text(self, state: GameState, perspective: int | None = None) -> str:
        """``state`` as text (``GameState.render_text`` calls it); ``perspective`` is checked here."""
        check_perspective(self.num_players, perspective)
        return self.renderer.render_text(state, perspective)

    def render_image(self, state: GameState) -> np.ndarray:
        """``state`` as an H x W x 3 uint8 picture (``GameState.render_image`` calls it)."""
        return self.renderer.render_image(state)
