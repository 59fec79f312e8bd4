"""An RLlib-trained policy in a safe form: its card, and the network read back (``make_agent("rllib:PATH", game)``
plays it through :class:`agents.rllib_agent.RLlibAgent`).

RLlib checkpoints hold pickles (the algorithm's config, connector states), and
unpickling runs code from the file. So the trainer exports the learning
module's policy itself into the checkpoint directory
(``training.rllib.policy.export_policy``), and only that is ever read back:

- ``drawluck_policy.json``, the card: format and version, the game and its
  configuration, observation size, number of actions, hidden layer sizes and
  activation;
- ``drawluck_policy.pt``, a torch state_dict of plain tensors, read with
  ``torch.load(..., weights_only=True)`` (which refuses anything but tensors
  and plain containers).

The card is checked against the game before torch reads anything, and every
tensor's shape against the card before the network is built: another game or
configuration is a clear ValueError, never a shape error deep in a forward
pass. Nothing here imports Ray, and torch only when a policy is built: a
trained policy plays wherever torch is.

The network is RLlib's default PPO policy path (``DefaultModelConfig``):
``fcnet_hiddens`` linear layers with the activation, then one linear layer to
the action logits (no ``head_fcnet_hiddens``); illegal actions are masked out
of the logits, as RLlib's action-masking module does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.engine import Game, shown

CARD_FILE = "drawluck_policy.json"
WEIGHTS_FILE = "drawluck_policy.pt"
FORMAT = "drawluck-rllib-policy"
VERSION = 1
ACTIVATIONS = ("tanh", "relu")


def game_card(game: Game, hidden: list[int], activation: str) -> dict[str, Any]:
    """What the card records: enough to check the game and to rebuild the network."""
    return json.loads(
        json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "game": game.name,
                "config": game.config(),
                "observation_size": game.observation_size,
                "num_actions": game.num_actions,
                "hidden": list(hidden),
                "activation": activation,
            }
        )
    )


def array(value: Any) -> np.ndarray:
    """A float32 copy of a tensor or array."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=np.float32)


def expected_shapes(card: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    sizes = [card["observation_size"], *card["hidden"], card["num_actions"]]
    shapes = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        shapes[f"layers.{i}.weight"] = (fan_out, fan_in)
        shapes[f"layers.{i}.bias"] = (fan_out,)
    return shapes


def check_shapes(card: dict[str, Any], shapes: dict[str, tuple[int, ...]], where: str) -> None:
    want = expected_shapes(card)
    if shapes != want:
        raise ValueError(
            f"{where} does not hold the network its card describes: tensors {shown(shapes, 200)}, "
            f"expected {shown(want, 200)}"
        )


def check_card(card: Any, game: Game, where: str) -> dict[str, Any]:
    """The card must be this format and describe ``game``'s name, configuration and sizes."""
    if not isinstance(card, dict) or card.get("format") != FORMAT:
        raise ValueError(f"{where} is not a drawluck RLlib policy card (format {FORMAT!r})")
    if card.get("version") != VERSION:
        raise ValueError(f"{where} has card version {shown(card.get('version'))}; this drawluck reads {VERSION}")
    if card.get("game") != game.name:
        raise ValueError(f"the policy in {where} was trained for game {shown(card.get('game'))}, not {game.name!r}")
    config = json.loads(json.dumps(game.config()))
    if card.get("config") != config:
        raise ValueError(
            f"the policy in {where} was trained for {game.name} configuration {shown(card.get('config'))}, not {config}"
        )
    for key, value in (("observation_size", game.observation_size), ("num_actions", game.num_actions)):
        if card.get(key) != value:
            raise ValueError(f"the policy in {where} has {key} {shown(card.get(key))}, {game.name} has {value}")
    hidden = card.get("hidden")
    if not isinstance(hidden, list) or not all(type(h) is int and h > 0 for h in hidden):
        raise ValueError(f"{where}: 'hidden' must be a list of positive ints, got {shown(hidden)}")
    if card.get("activation") not in ACTIVATIONS:
        raise ValueError(
            f"{where}: 'activation' must be one of {list(ACTIVATIONS)}, got {shown(card.get('activation'))}"
        )
    return card


def read_card(directory: Path) -> dict[str, Any]:
    path = directory / CARD_FILE
    if not path.is_file():
        raise ValueError(f"{directory} holds no {CARD_FILE}: not a checkpoint written by train.py --backend rllib")
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not valid JSON: {error}") from error


class MaskedPolicy:
    """The exported policy network: logits from an observation, illegal actions masked out.

    ``policy(observations, masks)`` is the policy half of :class:`agents.models.network.PolicyValueNet`'s
    interface, so the project's evaluation (``training.win_rates.evaluate``) plays it unchanged.
    """

    def __init__(self, network, card: dict[str, Any]):
        self.network, self.card = network, card

    @classmethod
    def load(cls, path: str | Path, game: Game) -> MaskedPolicy:
        """Read ``PATH/drawluck_policy.{json,pt}`` (a checkpoint directory; the card itself may be named)."""
        directory = Path(path)
        if directory.name == CARD_FILE:
            directory = directory.parent
        if not directory.is_dir():
            raise ValueError(f"rllib checkpoint directory not found: {shown(str(path))}")
        card = check_card(read_card(directory), game, str(directory / CARD_FILE))
        import torch

        try:
            weights = torch.load(directory / WEIGHTS_FILE, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise ValueError(f"{directory} holds a policy card but no {WEIGHTS_FILE}") from None
        except Exception as error:  # a pickle with code in it, or a corrupt file: refused, never run
            reason = f"{type(error).__name__}: {shown(str(error), 200)}"
            raise ValueError(
                f"{directory / WEIGHTS_FILE} is not a plain torch state_dict (read with weights_only=True): {reason}"
            ) from None
        if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
            raise ValueError(f"{directory / WEIGHTS_FILE} must hold a dict of tensors")
        return cls.from_state_dict(weights, game, card)

    @classmethod
    def from_state_dict(cls, weights: dict[str, Any], game: Game, card: dict[str, Any] | None = None) -> MaskedPolicy:
        """Build from exported weights (tensors or arrays, ``layers.i.weight``/``bias``); without a card the
        hidden sizes are read from the shapes and the activation is tanh (RLlib's default)."""
        import torch

        weights = {k: torch.from_numpy(array(v)) for k, v in weights.items()}
        if card is None:
            count = len(weights) // 2
            hidden = [int(weights[f"layers.{i}.weight"].shape[0]) for i in range(count - 1)]
            card = game_card(game, hidden, "tanh")
        check_shapes(card, {k: tuple(v.shape) for k, v in weights.items()}, "the policy's state_dict")
        sizes = [card["observation_size"], *card["hidden"], card["num_actions"]]
        activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[card["activation"]]
        layers: list[torch.nn.Module] = []
        for fan_in, fan_out in zip(sizes, sizes[1:]):
            layers += [torch.nn.Linear(fan_in, fan_out), activation()]
        network = torch.nn.Sequential(*layers[:-1])
        network.load_state_dict(_sequential_names(weights), strict=True)
        network.eval()
        return cls(network, card)

    def logits(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Masked logits (illegal actions at -inf) for one observation or a batch."""
        import torch

        with torch.no_grad():
            out = self.network(torch.as_tensor(np.asarray(observation, dtype=np.float32))).numpy()
        return np.where(np.asarray(mask, dtype=bool), out, -np.inf)

    def choose(
        self,
        observation: np.ndarray,
        mask: np.ndarray,
        deterministic: bool = True,
        rng: np.random.Generator | None = None,
    ) -> int:
        """The best legal action, or one sampled from the masked softmax."""
        logits = self.logits(observation, mask)
        if deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(rng.choice(len(p), p=p / p.sum()))

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked move probabilities for a batch, as ``PolicyValueNet.policy`` gives them, so that the
        project's evaluation (``training.win_rates.evaluate``) plays it unchanged."""
        logits = self.logits(np.atleast_2d(observations), np.atleast_2d(masks))
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)


def _sequential_names(weights: dict[str, Any]) -> dict[str, Any]:
    """``layers.i.*`` -> ``2i.*``: linear layer i's place in ``Sequential(Linear, act, Linear, act, ..., Linear)``."""
    out = {}
    for key, value in weights.items():
        _, i, kind = key.split(".")
        out[f"{2 * int(i)}.{kind}"] = value
    return out
