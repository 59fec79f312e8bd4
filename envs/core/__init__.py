"""What every game shares: the engine protocol, the one AEC adapter, the classic wrapper layer."""

from envs.core.aec import GameEnv
from envs.core.classic import ClassicWrapper
from envs.core.engine import Game, GameState, IllegalActionError

__all__ = ["ClassicWrapper", "Game", "GameEnv", "GameState", "IllegalActionError", "make_env"]


def make_env(game: Game, reward: str = "win", render_mode: str | None = None) -> ClassicWrapper:
    """The standard-stack environment (what each game's ``env()`` returns)."""
    return ClassicWrapper(GameEnv(game, reward=reward, render_mode=render_mode))
