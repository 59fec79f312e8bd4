"""A trained MaskablePPO model (sb3-contrib) as an agent: ``make_agent("ppo:PATH", game=...)``.

The model sees the player's observation vector and acts with the legal mask
(deterministically by default). Everything is checked before torch runs, so
a wrong file gives a clear ValueError, not a shape error deep in a network:

- ``PATH`` must exist (SB3's ``.zip`` suffix may be left out);
- the sidecar ``PATH.json`` (also looked for without ``.zip``), written by
  the training script as ``{"game": name, "config": game.config(),
  "observation_size": n}``, must name this game and configuration when it
  is there; without it only the shapes are checked;
- ``model.observation_space`` must be a ``Box`` of shape
  ``(game.observation_size,)`` (or a Dict whose ``"observation"`` is), and
  ``model.action_space`` must be ``Discrete(game.num_actions)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.protocol import Agent, PlayerView
from envs.core.engine import Game


def _find_model(path: str) -> Path:
    candidates = [Path(path)] if path.endswith(".zip") else [Path(path), Path(path + ".zip")]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(f"ppo model file not found: {path!r} (looked for {', '.join(map(str, candidates))})")


def _sidecar(path: str, model_file: Path) -> dict[str, Any] | None:
    names = {path + ".json", str(model_file) + ".json"}
    if str(model_file).endswith(".zip"):
        names.add(str(model_file)[: -len(".zip")] + ".json")
    for name in sorted(names):
        if Path(name).is_file():
            try:
                return json.loads(Path(name).read_text())
            except (OSError, json.JSONDecodeError) as error:
                raise ValueError(f"the model's sidecar {name} is not valid JSON: {error}") from error
    return None


def check_sidecar(meta: dict[str, Any], game: Game, where: str) -> None:
    """The sidecar must describe ``game`` (name, configuration, observation size)."""
    if not isinstance(meta, dict):
        raise ValueError(f"the model's sidecar {where} must hold a JSON object")
    if meta.get("game") != game.name:
        raise ValueError(f"the model was trained for game {meta.get('game')!r}, not {game.name!r} ({where})")
    config = json.loads(json.dumps(game.config()))  # compare as JSON, as it was saved
    if "config" in meta and meta["config"] != config:
        raise ValueError(f"the model was trained for {game.name} configuration {meta['config']}, not {config} ({where})")
    if "observation_size" in meta and meta["observation_size"] != game.observation_size:
        raise ValueError(
            f"the model was trained on observations of size {meta['observation_size']}, "
            f"this game gives {game.observation_size} ({where})"
        )


def check_spaces(model: Any, game: Game, where: str) -> bool:
    """Check the model's spaces against the game; True when it wants a Dict observation."""
    from gymnasium import spaces

    obs_space, act_space = model.observation_space, model.action_space
    wants_dict = isinstance(obs_space, spaces.Dict)
    box = obs_space["observation"] if wants_dict and "observation" in obs_space.spaces else obs_space
    if not isinstance(box, spaces.Box) or box.shape != (game.observation_size,):
        raise ValueError(
            f"the model {where} expects observations {obs_space}, but {game.name} gives vectors of shape "
            f"({game.observation_size},): it was trained for another game or configuration"
        )
    if not isinstance(act_space, spaces.Discrete) or int(act_space.n) != game.num_actions:
        raise ValueError(f"the model {where} has action space {act_space}, {game.name} needs Discrete({game.num_actions})")
    return wants_dict


class PPOAgent(Agent):
    """Plays a saved ``sb3_contrib.MaskablePPO`` model with the legal-action mask."""

    name = "ppo"

    def __init__(self, path: str, game: Game | None = None, deterministic: bool = True, seed: int | None = None):
        if game is None:
            raise ValueError("the ppo agent needs game=... to check the model against")
        if not isinstance(path, str) or not path:
            raise ValueError(f"ppo path must be a non-empty str, got {path!r}")
        model_file = _find_model(path)
        meta = _sidecar(path, model_file)
        if meta is not None:
            check_sidecar(meta, game, f"{path}.json")
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as error:  # the train extra is not installed
            raise ValueError("the ppo agent needs sb3-contrib: pip install 'drawluck[train]'") from error
        try:
            model = MaskablePPO.load(str(model_file), device="cpu")
        except Exception as error:  # a corrupt or foreign file: say so plainly
            raise ValueError(f"could not load {model_file} as a MaskablePPO model: {error}") from error
        self._wants_dict = check_spaces(model, game, str(model_file))
        self.model = model
        self.deterministic = bool(deterministic)
        if seed is not None:
            model.set_random_seed(seed)
        self.name = f"ppo:{path}"

    def act(self, view: PlayerView) -> int:
        obs = view.observation
        mask = view.legal_mask.astype(bool)
        model_input: Any = {"observation": obs, "action_mask": view.legal_mask} if self._wants_dict else obs
        action, _ = self.model.predict(model_input, action_masks=mask, deterministic=self.deterministic)
        return int(np.asarray(action).item())
