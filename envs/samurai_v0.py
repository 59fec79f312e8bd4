"""Samurai as a PettingZoo AEC environment (``drawluck/samurai-v0``).

Reiner Knizia's Samurai (Hans im Glück 1998): players lay tiles around the
villages and cities of Japan; a surrounded settlement's figures (helmet,
buddha, rice) go to whoever has strictly the most influence on each.
Rules, as this engine plays them (every decision of ours marked):
``docs/rules/samurai.md``; board: ``envs/samurai/board.py``.

Creation
    ``env(num_players=2, choose_hand=False, figure_setup="random", reward="win", render_mode=None)``
    gives the environment under PettingZoo's classic wrapper behaviour (order
    enforcing, out-of-bounds assertion, an illegal move ends the game with -1
    for the offender); ``raw_env(...)`` takes the same arguments and raises a
    ValueError on an illegal or out-of-range action instead. After
    ``import envs``: ``pettingzoo.make("aec", "drawluck/samurai-v0", num_players=3)``.

    - ``num_players``: 2 (Honshu), 3 (+ Kyushu and Shikoku), 4 (+ Hokkaido).
    - ``choose_hand``: ``False`` (each hand is the top five of one's shuffled
      pile) or ``True`` (each player picks their five, a decision phase).
    - ``figure_setup``: ``"random"`` (drawn from the seed) or ``"draft"`` (Edo
      starts with one figure of each type; the players place the others, a
      decision phase).
    - ``reward``: ``"win"`` (the only mode).
    - ``render_mode``: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``. The env's
      render shows the hand of the player to act (a hot-seat table); for one seat's
      view, ``env.game_state.render_text(perspective=seat)`` shows that seat's hand only.

Agents
    ``player_0`` .. ``player_{n-1}``; ``player_0`` moves first, then clockwise.
    A turn is several steps by the same agent (PettingZoo allows an agent to
    act again): choose a tile, then its target(s); choose another tile or end
    the turn.

Action space: ``Discrete(294)``, the same for every player count
    =============  ==================================================================
    0 .. 16        choose a tile kind from the hand, in the order ``helmet2 helmet3
                   helmet4 buddha2 .. rice4 samurai1 samurai2 samurai3 ronin ship1
                   ship2 figure_swap tile_swap``; in the ``choose_hand`` phase: take
                   that kind into the starting hand
    17             end the turn (legal once a tile has been played)
    18 .. 191      hex id ``a - 18``: the chosen tile's hex; for the tile swap, first
                   the own tile to pick up (the swap tile takes its hex), then the
                   empty land hex it moves to
    192 .. 293     a figure: ``s, t = divmod(a - 192, 3)``, settlement index ``s``
                   (``envs.samurai.board.SETTLEMENTS[s]`` is its hex id; ascending
                   ids) and type ``t`` (0 helmet, 1 buddha, 2 rice): the figure
                   swap's first, then second figure; in the ``draft`` phase: put a
                   figure of type ``t`` on settlement ``s``
    =============  ==================================================================
    Hexes and settlements not on the board are never legal. A tile is offered
    only when all its steps can be completed, so a chosen tile is always
    played. When ending the turn is the only legal action left, the turn ends
    by itself; forced passes, refills and the end of the game happen inside a
    step too.

Observation space
    ``{"observation": Box(0, 1, (3807,), float32), "action_mask": Box(0, 1, (294,), int8)}``;
    the mask is all zeros for an agent that is not to act. Everything public,
    seats relative to the observer; layout in ``envs/samurai/observation.py``:
    per hex (kind, figures, tile owner/influence/class, sub-step selection),
    per seat (captured figures, hand and pile sizes, unplayed tiles as a
    multiset), figures set aside / on the board / in the supply, the
    observer's own hand, the phase and the sub-step of the turn. Never
    another player's hand or any pile's order.

Rewards (only when the game ends)
    ``"win"``: +1 for each winner, -1 for each other player, 0 for all if
    all share the win. ``infos[agent]`` then holds numbers and fixed-length
    lists only, the same shape for every outcome (batching libraries stack
    infos into tensors), with zeros from ``reset`` until the end: ``score``
    (the agent's figures captured, information only: majorities decide),
    ``captured`` (per player, the figures captured per type: helmet, buddha, rice),
    ``set_aside`` (per type), ``winners`` (per player 1 if they won, else 0;
    several 1s on a shared win) and ``won`` (bool: this agent is among the
    winners).

Seeding and options
    ``reset(seed=s)`` shuffles every player's pile (player 0 first), then
    places the figures (random set-up); nothing depends on the actions.
    ``reset(options={"piles": [[tile names] per player], "figures":
    {settlement_id: [types]}})`` injects them: each pile a permutation of the
    20 tiles (the first five are the starting hand; under ``choose_hand`` the
    whole pile to choose from, the rest keeping its order), the figures for
    every settlement on the board (not with ``figure_setup="draft"``).
    ``env.unwrapped.state_dict()`` and ``load_state_dict(d)`` save and restore
    a game exactly, mid-turn too (keys: ``game``, ``num_players``,
    ``current_player``, ``board``, ``figures``, ``captured``, ``set_aside``,
    ``hands``, ``piles``, ``turn``, ``terminal``, ``winners``).

Decisions (ours, where the sources are silent)
    - Random figure set-up: Edo one of each type, each city two different
      types at random, the rest of the supply shuffled over the villages.
    - Set-up order: hands first (dealt, or chosen player by player), then
      the figure draft (Edo already full; player 0 first, one figure each in
      turn, cities before villages), then player 0's first turn.
    - A forced pass counts as a turn (``turn.number``); so the player to act
      is always ``turn.number % num_players``.
    - Winner fallbacks: contenders still tied on their other two types: most
      figures in total, then a shared win; nobody with any majority: most
      figures in total, ties shared. If every player would pass in turn, the
      game ends at once with the winner procedure.
    - The chosen tile's kind is public (it is being put down); which tiles
      are in a hand is not.
    - A loaded position in which the player to act cannot play is settled
      at once (forced passes, automatic turn end, or the end of the game).
    - Because a turn ends by itself when nothing more is playable, that the
      player to act is still acting is public; ``determinize`` (search) only
      re-deals hands that keep it so.
    - A figure swap counts as a played tile (``turn.played``) and is then
      discarded; the game can end in the middle of a turn, right after the
      placement that causes it (no refill then).

Version history
    v0: first release.
    v0, revised with issues 11 and 12: the figure draft starts with Edo's three
    figures (as in the original game) and drafts the other cities and the
    villages; ``infos[agent]["winners"]`` became a 0/1 flag per player (it was
    the list of winners, whose length changed with shared wins), ``won`` was
    added, ``captured`` and ``set_aside`` became lists of counts per type (they
    were dicts keyed by type), and the infos hold their keys from ``reset`` on.
    Every other observation, mask and reward is unchanged (recorded games
    replay exactly: ``tests/test_samurai_replay.py``).
"""

from __future__ import annotations

from envs.core import GameEnv, make_env
from envs.core.vector import GameVectorEnv, make_vector_env
from envs.samurai import SamuraiGame

__all__ = ["env", "raw_env", "sb3_vec_env", "vector_env"]


def raw_env(num_players=2, choose_hand=False, figure_setup="random", reward="win", render_mode=None) -> GameEnv:
    return GameEnv(SamuraiGame(num_players, choose_hand, figure_setup), reward=reward, render_mode=render_mode)


def env(num_players=2, choose_hand=False, figure_setup="random", reward="win", render_mode=None):
    return make_env(SamuraiGame(num_players, choose_hand, figure_setup), reward=reward, render_mode=render_mode)


def vector_env(num_envs: int, **options) -> GameVectorEnv:
    """``num_envs`` games as a Gymnasium VectorEnv of one learner's seat (``docs/batch.md``); ``options``: those of
    ``envs.core.vector.GameVectorEnv`` (opponents, seed, reward, seat, autoreset_mode, render_mode) and of ``env()``
    (the game's configuration)."""
    return make_vector_env("samurai", num_envs, **options)


def sb3_vec_env(num_envs: int, **options):
    """The vector env as a Stable-Baselines3 ``VecEnv`` with sb3-contrib's action masks (``envs/core/sb3.py``;
    SB3 imported only here); ``options`` as :func:`vector_env`'s, but for ``autoreset_mode``."""
    from envs.core.sb3 import sb3_vec_env as make

    return make("samurai", num_envs, **options)
