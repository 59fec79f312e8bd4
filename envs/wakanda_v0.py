"""Wakanda as a PettingZoo AEC environment (``drawluck/wakanda-v0``).

Charles Chevallier's Wakanda (Blue Orange 2014), two players: both draw
pieces from one bag and build them onto the totems of a line of villages;
a headdress on a totem claims it, and each claimed village scores over all
of its owner's totems. Rules: ``docs/rules/wakanda.md``.

Creation
    ``env(advanced=False, reward="win", render_mode=None)`` gives the
    environment under PettingZoo's classic wrapper behaviour (order
    enforcing, out-of-bounds assertion, an illegal move ends the game with -1
    for the offender); ``raw_env(...)`` takes the same arguments and raises a
    ValueError on an illegal or out-of-range action instead, changing nothing.
    After ``import envs``: ``pettingzoo.make("aec", "drawluck/wakanda-v0", advanced=True)``.

    - ``advanced``: ``False`` (basic: all six villages face up) or ``True``
      (the three tilted villages lie face down until they become available).
    - ``reward``: ``"win"`` or ``"score"`` (see Rewards).
    - ``render_mode``: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.

Agents
    ``player_0`` (moves first) and ``player_1``. A player who cannot act is
    skipped, so the same agent may act several turns running near the end.

Action space: ``Discrete(42)``
    ============ ================================================================
    ``k*6 + v``  build a piece of kind k from your supply on village slot v
    ``36 + v``   finish the totem on village slot v with one of your headdresses
    ============ ================================================================
    (helpers in ``envs/wakanda/actions.py``). Piece kinds k: 0 eagle, 1 chief, 2 tomahawk, 3 skin, 4 tipi, 5 sun.
    Village slots v = 0..5 in line order. The draw happens automatically at
    the start of a turn, before the player observes. Passing is not an action.

Observation space
    ``{"observation": Box(0, 1, (150,), float32), "action_mask": Box(0, 1, (42,), int8)}``;
    the mask is all zeros for an agent that is not to act. Seats are relative
    (observer first); layout in ``envs/wakanda/observation.py``: per village
    slot its kind if visible, face up, available, owner, pieces on its totem
    by kind and its height; both supplies; headdresses left; the bag's
    remaining contents as counts (never its order); who placed a third
    headdress first; the candidate village kinds (those not visible); the
    current scores; who is to act; the rules variant. In the advanced game the
    identity of face-down villages (and of the two boxed ones) is in no entry.

Rewards (only when the game ends)
    ``"win"``: +1 for the winner, -1 for the loser, 0 each for a draw.
    ``"score"``: own final score minus the opponent's.
    ``infos[agent]["score"]`` then holds the agent's own final score (0.0 from
    ``reset`` until the end, so that the keys are known from the start).

Seeding and options
    ``reset(seed=s)`` shuffles the bag and the villages once (the bag is drawn
    first, then the villages, always both); the draw order never depends on
    the actions. ``reset(options={"bag": [...], "villages": [...]})`` sets
    either or both: ``bag`` is the draw order, a permutation of the 21 pieces
    (``"eagle"`` x1, ``"chief"`` x2, ``"tomahawk"`` x3, ``"skin"`` x4,
    ``"tipi"`` x5, ``"sun"`` x6); ``villages`` names the six villages in line
    order (distinct, from the piece names plus ``"variety"`` and ``"height"``),
    the other two are the ones in the box. ``env.unwrapped.state_dict()`` and
    ``load_state_dict(d)`` save and restore a game exactly (keys: ``game``,
    ``advanced``, ``current_player``, ``villages``, ``removed_villages``,
    ``supplies``, ``headdresses_left``, ``bag``, ``scores``,
    ``third_headdress_first``, ``terminal``, ``winner``).

Decisions (ours, where the sources are silent)
    - Supplies are public: pieces come out of the bag in front of both players.
    - In the basic game all six villages are face up from the start.
    - A totem must hold at least one piece to be finished.
    - Tie: the player who placed their third headdress first wins; if nobody
      has (the game can end with villages unowned), a draw.
    - A player who cannot act (no piece to build and no totem they may
      finish) is skipped; when neither can act the game ends there. A skip
      can only happen once the bag is empty, so it never costs a draw.
    - Scores during play apply the final scoring to the current position
      (the sun penalty included), for the observation and ``state_dict``.
    - In the advanced game the observation and renders show face-down
      villages as face down; ``state_dict`` (not for agents) holds them all.

Version history
    v0: first release. Since then, with the same games, observations and rewards:
    ``load_state_dict`` checks every field's type and range (``1.0``, ``True`` and
    numpy scalars are refused), a refused ``reset(options=...)`` draws nothing, and
    ``infos`` hold their keys from ``reset`` on.
"""

from __future__ import annotations

from envs.core import ClassicWrapper, GameEnv, make_env
from envs.core.vector import GameVectorEnv, make_vector_env
from envs.wakanda import WakandaGame

__all__ = ["env", "raw_env", "sb3_vec_env", "vector_env"]


def raw_env(advanced: bool = False, reward: str = "win", render_mode: str | None = None) -> GameEnv:
    return GameEnv(WakandaGame(advanced), reward=reward, render_mode=render_mode)


def env(advanced: bool = False, reward: str = "win", render_mode: str | None = None) -> ClassicWrapper:
    return make_env(WakandaGame(advanced), reward=reward, render_mode=render_mode)


def vector_env(num_envs: int, **options) -> GameVectorEnv:
    """``num_envs`` games as a Gymnasium VectorEnv of one learner's seat (``docs/batch.md``); ``options``: those of
    ``envs.core.vector.GameVectorEnv`` (opponents, seed, reward, seat, autoreset_mode, render_mode) and of ``env()``
    (the game's configuration)."""
    return make_vector_env("wakanda", num_envs, **options)


def sb3_vec_env(num_envs: int, **options):
    """The vector env as a Stable-Baselines3 ``VecEnv`` with sb3-contrib's action masks (``envs/core/sb3.py``;
    SB3 imported only here); ``options`` as :func:`vector_env`'s, but for ``autoreset_mode``."""
    from envs.core.sb3 import sb3_vec_env as make

    return make("wakanda", num_envs, **options)
