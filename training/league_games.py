"""``train.py``'s games: the public SB3 vector env of the game, each game's opponent dealt from the league.

Why the public env (``envs.<game>_v0.sb3_vec_env``, :mod:`envs.core.sb3`): one batched path serves the
library and the script. The league (:mod:`training.league`) reaches it as the vector env's ``deal``: at
every game's deal, :class:`LeagueDealer` draws its opponent with the league's probabilities (the env's
generator: a seeded run deals the same); the learner's seat and the deal's seed are the vector env's
(game ``i`` of seed ``s`` is the per-game deal of seed ``s + i``, the seat its seed modulo the players).
:class:`LeagueGames` records every finished game in the league and gives SB3 its episode statistics.
"""

from __future__ import annotations

import time
import weakref

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper, VecMonitor

from envs.core.engine import Game
from envs.core.sb3 import GameSB3VecEnv
from envs.core.vector import GameVectorEnv
from training.league import League
from training.members import build_member
from training.win_rates import win_points


class LeagueDealer:
    """The vector env's ``deal(games, rng)``: each new game's opponent drawn from ``league`` (members built as
    they join; one that leaves plays out the games it was dealt)."""

    def __init__(self, league: League, game: Game, seed: int):
        self.league, self.game, self.seed = league, game, seed
        self.members: dict[int, object] = {}
        self.ids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a dealt opponent's member id
        self._version = -1

    def __call__(self, games: np.ndarray, rng: np.random.Generator) -> list:
        self._follow_league()
        ids, probabilities = list(self.league.probabilities), list(self.league.probabilities.values())
        if not ids:
            raise ValueError("no opponents to deal: the league has no members yet (a 'self' league needs a snapshot)")
        drawn = rng.choice(len(ids), size=len(games), p=np.array(probabilities) / sum(probabilities))
        for k in np.unique(drawn).tolist():
            self.members[ids[k]].new_game(games[drawn == k])
        return [self.members[ids[k]] for k in drawn.tolist()]

    def member_id(self, opponent) -> int | None:
        """The league's id of a dealt opponent (None for one the dealer never dealt)."""
        return self.ids.get(opponent)

    def _follow_league(self) -> None:
        if self.league.version == self._version:
            return
        self._version, specs = self.league.version, self.league.specs()
        for member_id, spec in specs.items():
            if member_id not in self.members:
                member = build_member(spec, self.game, seed=self.seed * 1000 + member_id)
                self.members[member_id], self.ids[member] = member, member_id
        for member_id in [i for i in self.members if i not in specs]:
            del self.members[member_id]


class LeagueGames(VecEnvWrapper):
    """The vector env whose finished games the league records (with the learner's win points: a k-way shared
    win counts 1/k); ``game_seconds``: the wall time of stepping the games, opponents' moves included."""

    def __init__(self, venv: GameSB3VecEnv, league: League, dealer: LeagueDealer):
        self.league, self.dealer, self.game_seconds = league, dealer, 0.0
        super().__init__(venv)

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self):
        started = time.perf_counter()
        obs, rewards, dones, infos = self.venv.step_wait()
        self.game_seconds += time.perf_counter() - started
        for i in np.flatnonzero(dones).tolist():
            winners, seat = infos[i]["winners"], infos[i]["seat"]
            points = win_points(winners, seat)
            infos[i]["is_success"] = points == 1.0
            member = self.dealer.member_id(infos[i]["opponent"])
            if member is not None:
                self.league.record(member, points)
        return obs, rewards, dones, infos


def league_games(game: Game, num_envs: int, league: League, seed: int, reward: str) -> VecMonitor:
    """``num_envs`` games of ``game`` against the league's opponents, as SB3 trains on them (``VecMonitor``'s
    episode statistics); ``.venv.game_seconds`` is the time spent in the games."""
    dealer = LeagueDealer(league, game, seed)
    venv = GameSB3VecEnv(GameVectorEnv(game, num_envs, deal=dealer, seed=seed, reward=reward))
    return VecMonitor(LeagueGames(venv, league, dealer))
