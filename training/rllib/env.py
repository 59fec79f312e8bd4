"""A drawluck game as an RLlib ``MultiAgentEnv``: the key renaming and the action masking, in one place.

RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``) reads
``{"observations": ..., "action_mask": float}``, where PettingZoo writes
``{"observation": ..., "action_mask": int8}``; its env checker also sends
unmasked random actions. This wrapper renames the key, gives the mask as
float32 (the module takes its logarithm), and is turn-based: each step's
observation dict holds only the learner seat that is to act, so no action is
ever asked of a seat that cannot move.

It wraps the project's raw AEC environment (``envs.<game>_v0.raw_env``).
Seats the learner does not hold are played inside the environment by the
league's opponents (:mod:`training.rllib.league`): baseline agents through the
agent protocol (a :class:`~agents.protocol.PlayerView`, never the true hidden
state) and frozen snapshots of the learner (:class:`~agents.models.rllib_policy.MaskedPolicy`).
Without a league every seat is a learner seat (one shared policy plays them all).

Rewards come when the game ends: every learner seat that has acted gets its
final observation, its reward (the game's reward mode) and ``terminated``.
An illegal action (never sent by a masked module) ends the game, -1 for the
offender, as PettingZoo's classic wrapper does.

The env ``config`` (RLlib's ``env_config``): ``game`` (a name), ``config``
(the game's options), ``reward`` (a reward mode) and ``league`` (a
:class:`~training.rllib.league.LeagueState`, or None). :meth:`set_league`
replaces the league between games; :meth:`pop_results` hands the learner's
results against each opponent seat's league member back to the trainer.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import envs
from agents.models.rllib_policy import MaskedPolicy
from agents.protocol import PlayerView
from agents.rllib_agent import RLlibAgent
from envs.core.engine import shown
from training.rllib.league import SELF, LeagueState, Seats, draw_seats, points_against

#: What an illegal action costs its player (PettingZoo classic: the offender loses).
ILLEGAL_ACTION_REWARD = -1.0
#: Opponents that play a model file: loaded once per environment.
FILE_AGENT_PREFIXES = ("ppo:", "rllib:")


def masked_observation_space(game) -> spaces.Dict:
    """The observation space RLlib's action-masking module expects, for one seat of ``game``."""
    return spaces.Dict(
        {
            "observations": spaces.Box(0.0, 1.0, (game.observation_size,), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
        }
    )


class RLlibGameEnv(MultiAgentEnv):
    """A turn-based, masked multi-agent view of one drawluck game (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        description = envs.describe(config.get("game", "wakanda"))
        raw_env = importlib.import_module(description.env_module).raw_env
        self.aec = raw_env(**dict(config.get("config") or {}), reward=config.get("reward", "win"))
        self.game = self.aec.game
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        space = masked_observation_space(self.game)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(self.game.num_actions))
        self._all_moves = np.ones(self.game.num_actions, dtype=np.float32)
        self.league: LeagueState | None = config.get("league")
        self._shared: dict[tuple[str, int], Any] = {}  # model players by (kind, member id), loaded once
        self.seats = Seats(tuple(range(self.game.num_players)))
        self.seat_players: dict[int, Any] = {}
        self.acted: set[int] = set()
        self.results: list[tuple[int, float]] = []

    # --- the trainer's side ---------------------------------------------------
    def set_league(self, league: LeagueState | None) -> None:
        """Seat opponents from ``league`` from the next game on (None: every seat is a learner seat). A state
        without snapshots keeps this environment's that are still members (a snapshot it never got, as in
        an environment restarted by RLlib meanwhile, leaves its seats to the learner)."""
        if league is not None and league.snapshots is None:
            held = (self.league.snapshots or {}) if self.league is not None else {}
            league = replace(league, snapshots={i: w for i, w in held.items() if i in league.members})
        self.league = league
        members = set(league.members) if league is not None else set()
        self._shared = {key: player for key, player in self._shared.items() if key[1] in members}

    def pop_results(self) -> list[tuple[int, float]]:
        """The learner's results since the last call: (opponent's league member id, points against that
        seat) per seat."""
        results, self.results = self.results, []
        return results

    # --- RLlib's MultiAgentEnv API ---------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.seats = (
            draw_seats(self.league, self.game.num_players, rng)
            if self.league is not None
            else Seats(tuple(range(self.game.num_players)))
        )
        self.seat_players = {seat: self._player(kind, member) for seat, (kind, member) in self.seats.opponents.items()}
        self.aec.reset(seed=int(rng.integers(2**63)), options=options)
        self.acted = set()
        self._play_opponents()
        if self.aec.game_state.is_terminal():  # over before the learner moved: nothing to learn, deal again
            return self.reset(options=options)
        return self._to_act(), {}

    def step(self, action_dict: dict[str, int]):
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(
                f"step() needs an action for {agent}, the seat to act; got actions for {shown(sorted(action_dict))}"
            )
        action = int(action_dict[agent])
        player = self.possible_agents.index(agent)
        self.acted.add(player)
        if action not in self.aec.game_state.legal_tuple():  # the game ends, the offender loses
            penalty = [ILLEGAL_ACTION_REWARD if p == player else 0.0 for p in range(self.game.num_players)]
            return self._end(penalty, {agent: {"illegal_action": action}})
        self.aec.step(action)
        self._play_opponents()
        if not self.aec.game_state.is_terminal():
            obs = self._to_act()
            # RLlib wants a reward with every observation of a seat that has acted before (none until the end)
            rewards = {a: 0.0 for a in obs if self.possible_agents.index(a) in self.acted}
            return obs, rewards, {"__all__": False}, {"__all__": False}, {}
        return self._game_over()

    # --- helpers -------------------------------------------------------------------
    def _observe(self, player: int, final: bool = False) -> dict[str, np.ndarray]:
        agent = self.possible_agents[player]
        obs = self.aec.observe(agent)
        mask = self._all_moves if final else obs["action_mask"].astype(np.float32)
        return {"observations": obs["observation"], "action_mask": mask}

    def _to_act(self) -> dict[str, dict[str, np.ndarray]]:
        player = self.aec.game_state.current_player
        return {self.possible_agents[player]: self._observe(player)}

    def _play_opponents(self) -> None:
        """Step the opponents' seats until a learner seat is to act or the game is over."""
        state = self.aec.game_state
        while state.current_player is not None and state.current_player not in self.seats.learner:
            player = state.current_player
            self.aec.step(int(self.seat_players[player].act(PlayerView(state, self.np_random))))

    def _player(self, kind: str, member: int):
        """A fresh agent for one seat of one game, seeded from this environment's generator, so that the same
        seed replays the same game. Models load once: trained models (``ppo:``, ``rllib:``) play
        deterministically, and a snapshot's network is shared by fresh samplers (one per seat and game)."""
        from agents import make_agent

        seed = int(self.np_random.integers(2**31))
        if kind == SELF:
            if (kind, member) not in self._shared:
                self._shared[kind, member] = MaskedPolicy.from_state_dict(self.league.snapshots[member], self.game)
            policy = self._shared[kind, member]
            return RLlibAgent.playing(policy, deterministic=False, seed=seed, name=f"snapshot {member}")
        if kind.startswith(FILE_AGENT_PREFIXES):
            if (kind, member) not in self._shared:
                self._shared[kind, member] = make_agent(kind, self.game)
            self._shared[kind, member].reset()
            return self._shared[kind, member]
        return make_agent(kind, self.game, seed=seed)

    def _game_over(self):
        """Record the learner's result against every opponent seat; every learner seat that acted gets its
        final observation and reward."""
        state = self.aec.game_state
        scores, winners = state.scores(), state.winners()
        for seat, (_, member) in self.seats.opponents.items():
            for learner in self.seats.learner:
                self.results.append((member, points_against(scores, winners, learner, seat)))
        return self._end(state.rewards(self.aec.reward_mode), {})

    def _end(self, rewards: list[float], infos: dict):
        ended = [p for p in self.seats.learner if p in self.acted]
        obs = {self.possible_agents[p]: self._observe(p, final=True) for p in ended}
        rew = {self.possible_agents[p]: float(rewards[p]) for p in ended}
        terminated = {**dict.fromkeys(obs, True), "__all__": True}
        return obs, rew, terminated, {**dict.fromkeys(obs, False), "__all__": False}, infos
