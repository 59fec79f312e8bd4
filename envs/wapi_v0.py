"""Wapi as a PettingZoo AEC environment (``drawluck/wapi-v0``).

Reiner Knizia's Wapi (Tactic 2003): players draw tiles from a common bag and
put silver coins into six mines and totem poles onto the mines' masks; each
pole scores its mine's silver. Rules, as this environment plays them (with
every decision where the published rules are silent): ``docs/rules/wapi.md``.

Creation
    ``env(num_players=4, scoring="full", coins=None, reward="win", render_mode=None)``
    gives the environment under PettingZoo's classic wrapper behaviour (order
    enforcing, out-of-bounds assertion, an illegal move ends the game with -1
    for the offender); ``raw_env(...)`` takes the same arguments and raises a
    ValueError on an illegal or out-of-range action instead. After
    ``import envs``: ``pettingzoo.make("aec", "drawluck/wapi-v0", num_players=3)``.

    - ``num_players``: 3, 4 or 5 (official); 2 is an unofficial variant.
    - ``scoring``: ``"full"`` (each pole scores its mine's whole value) or
      ``"shared"`` (a mine's value is split between its poles; exact fractions).
    - ``coins``: the silver coin distribution ``{value: count}`` over values
      0, 1, 2, 3, 5; default ``{0: 8, 1: 12, 2: 12, 3: 8, 5: 8}`` (48 coins,
      total 100: our assumption, no source gives the split); 30 to 1,000
      coins, each count a plain int.
    - ``reward``: ``"win"`` or ``"score"`` (see Rewards).
    - ``render_mode``: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.

Agents
    ``player_0`` .. ``player_{n-1}``; ``player_0`` moves first, then clockwise.

Action space: ``Discrete(8)``
    ====== ==================================================
    0 .. 5 put the drawn silver coin in mine k
    6      put one of your totem poles on the mask just drawn
    7      decline (no totem)
    ====== ==================================================
    Every draw is a decision, even when only one action is legal. A coin
    must go to a mine holding a totem when one has a free silver field.

Observation space
    ``{"observation": Box(0, 1, (92,), float32), "action_mask": Box(0, 1, (8,), int8)}``;
    the mask is all zeros for an agent that is not to act. The observation
    is everything public, seats relative to the observer; layout in
    ``envs/wapi/observation.py`` (mines with coins, silver total, masks and
    totems per seat; the drawn tile; totems left; the bag's remaining
    contents as counts, never its order; scoring mode; current scores).

Rewards (only when the game ends)
    ``"win"``: +1 for each winner, -1 for each other player, 0 for all if
    all tie. ``"score"``: own final score minus the mean of the others'.
    ``infos[agent]["score"]`` then holds the agent's own final score (0.0 from
    ``reset`` until the end, so that the keys are known from the start).

Seeding and options
    ``reset(seed=s)`` shuffles the bag once; the draw order never depends on
    the actions. ``reset(options={"bag": ["M3", "S5", ...]})`` sets the exact
    draw order (codes ``S0 S1 S2 S3 S5`` and ``M0`` .. ``M5``); it must be a
    permutation of the configured tiles. ``env.unwrapped.state_dict()`` and
    ``load_state_dict(d)`` save and restore a game exactly (keys: ``game``,
    ``num_players``, ``scoring``, ``current_player``, ``drawn``, ``mines``,
    ``totems_left``, ``bag``, ``scores``, ``terminal``).

Decisions (ours, where the sources are silent; all in ``docs/rules/wapi.md``)
    - The coin distribution above (configurable).
    - ``player_0`` starts (the published rules let the youngest begin).
    - The game ends at once when the 30th silver field is filled; tiles left
      in the bag are unused.
    - Two players is allowed as an unofficial variant.
    - A drawn mask is placed on its mine when its decision (6 or 7) is made;
      until then it is the ``drawn`` tile.

Version history
    v0: first release. Later within v0, same games and observations: ``coins`` and
    ``load_state_dict`` check types strictly (a float, bool or numpy value is refused);
    ``infos`` hold their keys from ``reset`` on.
"""

from __future__ import annotations

from envs.core import GameEnv, make_env
from envs.core.vector import GameVectorEnv, make_vector_env
from envs.wapi import WapiGame

__all__ = ["env", "raw_env", "sb3_vec_env", "vector_env"]


def raw_env(num_players=4, scoring="full", coins=None, reward="win", render_mode=None) -> GameEnv:
    return GameEnv(WapiGame(num_players, scoring, coins), reward=reward, render_mode=render_mode)


def env(num_players=4, scoring="full", coins=None, reward="win", render_mode=None):
    return make_env(WapiGame(num_players, scoring, coins), reward=reward, render_mode=render_mode)


def vector_env(num_envs: int, **options) -> GameVectorEnv:
    """``num_envs`` games as a Gymnasium VectorEnv of one learner's seat (``docs/batch.md``); ``options``: those of
    ``envs.core.vector.GameVectorEnv`` (opponents, seed, reward, seat, autoreset_mode, render_mode) and of ``env()``
    (the game's configuration)."""
    return make_vector_env("wapi", num_envs, **options)


def sb3_vec_env(num_envs: int, **options):
    """The vector env as a Stable-Baselines3 ``VecEnv`` with sb3-contrib's action masks (``envs/core/sb3.py``;
    SB3 imported only here); ``options`` as :func:`vector_env`'s, but for ``autoreset_mode``."""
    from envs.core.sb3 import sb3_vec_env as make

    return make("wapi", num_envs, **options)
