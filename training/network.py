"""The policy-value network of a trained model, and the model file format: loading never executes code.

A model file is a zip that Stable-Baselines3 can also read (``MaskablePPO.load``
works on it, for files you trust), holding our own entries next to SB3's:

- ``drawluck.json``, the **card**: ``format_version``, ``game``, ``config``
  (``game.config()``), ``observation_size``, ``num_actions``, ``network``
  (the architecture, see :func:`build_policy`), ``command`` (the command that
  made the file), ``reward`` (the reward mode it was trained on) and
  ``training`` (learner steps and settings, read by ``train.py --resume``);
- ``policy.pth``: the policy's ``state_dict`` (tensors only);
- ``policy.optimizer.pth``: the Adam state (tensors and numbers only; for resuming).

**What loading does, and why it is safe.** :func:`load_network` reads the card
(JSON) and refuses a file without one, or one made for another game,
configuration or shape, with a ValueError *before anything is built*; it then
builds the policy from the card's description (our code, never a class named
by the file) and reads ``policy.pth`` with ``torch.load(weights_only=True)``,
which refuses any pickled object other than tensors and plain containers, and
loads it with ``load_state_dict(strict=True)``. SB3's own ``data`` entry (a
cloudpickle) is never read. Every entry point goes through here: the
``ppo:PATH`` and ``trained`` agents, the terminal game, the benchmarks,
self-play snapshot opponents and ``train.py --resume``.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from envs.core.engine import Game, shown
from training.settings import NETWORK_CHOICES
from training.settings import STRUCTURED_NETWORKS as STRUCTURED

#: The version of the card layout this code writes and reads.
FORMAT_VERSION = 1
CARD_NAME = "drawluck.json"
POLICY_NAME = "policy.pth"
OPTIMIZER_NAME = "policy.optimizer.pth"
#: The card fields every model file must have.
CARD_FIELDS = ("format_version", "game", "config", "observation_size", "num_actions", "network", "command", "reward")
#: Limits that keep a hostile file from exhausting memory before it is refused.
MAX_CARD_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 256 << 20
MAX_LAYERS, MAX_UNITS = 8, 4096
ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
#: Where the shipped models live (``load_network("trained", game)``).
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "agents" / "models"


# --- the card ---------------------------------------------------------------------------
def game_card(game: Game) -> dict[str, Any]:
    """The part of a card that must match the game a model is used in."""
    return json.loads(
        json.dumps(
            {
                "game": game.name,
                "config": game.config(),
                "observation_size": game.observation_size,
                "num_actions": game.num_actions,
            }
        )
    )


def card_game(card: dict[str, Any]) -> Game:
    """The game and configuration a card names (its JSON config read back into constructor arguments)."""
    import envs

    return envs.describe(card["game"]).make_from_json(card["config"])


def network_description(
    pi: list[int], vf: list[int] | None = None, shared: list[int] | None = None, activation: str = "tanh"
) -> dict[str, Any]:
    """The card's ``network``: an MLP actor-critic. ``shared`` layers (a features extractor used by
    both heads; a wide observation costs most in its first layer, so sharing it halves that cost)
    feed separate policy (``pi``) and value (``vf``) layers; ``vf`` defaults to ``pi``."""
    description = {
        "kind": "mlp_actor_critic",
        "shared": list(shared or []),
        "pi": list(pi),
        "vf": list(pi if vf is None else vf),
        "activation": activation,
    }
    _check_network(description, "network")
    return description


def chosen_network(kind: str, net_arch: list[int], shared_layers: list[int]) -> dict[str, Any]:
    """The card's ``network`` for train.py's ``--network`` (``mlp``: its layers from ``--net-arch`` and
    ``--shared-layers``; a structured kind at its default size), as the games' training settings name it."""
    if kind in STRUCTURED:
        return structured(kind).default_description()
    if kind != "mlp":
        raise ValueError(f"network must be one of {list(NETWORK_CHOICES)}, got {shown(kind)}")
    return network_description(net_arch, shared=shared_layers)


#: The network kinds a card may describe: an MLP actor-critic (any game), or a structured one.
NETWORK_KINDS = ("mlp_actor_critic", *STRUCTURED)


def structured(kind: str):
    """The module of a structured network kind (imported when first needed: it pulls in its game)."""
    return importlib.import_module(STRUCTURED[kind])


def _check_network(network: Any, where: str) -> None:
    if not isinstance(network, dict) or network.get("kind") not in NETWORK_KINDS:
        raise ValueError(
            f"{where}: network must be {{'kind': one of {list(NETWORK_KINDS)}, ...}}, got {shown(network)}"
        )
    if network["kind"] in STRUCTURED:
        from training.trunk_policy import check_sizes  # with the structured network's module, when first needed

        module = structured(network["kind"])
        check_sizes(network, module.KIND, module.LIMITS, where)
        return
    if set(network) != {"kind", "shared", "pi", "vf", "activation"}:
        raise ValueError(f"{where}: network must have the keys kind, shared, pi, vf, activation; got {sorted(network)}")
    for key in ("shared", "pi", "vf"):
        layers = network[key]
        if not (
            isinstance(layers, list)
            and len(layers) <= MAX_LAYERS
            and all(type(u) is int and 1 <= u <= MAX_UNITS for u in layers)
        ):
            raise ValueError(
                f"{where}: network[{key!r}] must be at most {MAX_LAYERS} layer sizes in "
                f"1..{MAX_UNITS}, got {shown(layers)}"
            )
    if not (network["shared"] or network["pi"]) or not (network["shared"] or network["vf"]):
        raise ValueError(f"{where}: the network needs at least one hidden layer before each head")
    if network["activation"] not in ACTIVATIONS:
        raise ValueError(
            f"{where}: network activation must be one of {list(ACTIVATIONS)}, got {shown(network['activation'])}"
        )


class SharedLayers(BaseFeaturesExtractor):
    """The ``shared`` layers of a network description, as SB3's features extractor."""

    def __init__(self, observation_space, layers: list[int], activation: str):
        super().__init__(observation_space, layers[-1])
        modules: list[torch.nn.Module] = []
        width = int(observation_space.shape[0])
        for units in layers:
            modules += [torch.nn.Linear(width, units), ACTIVATIONS[activation]()]
            width = units
        self.layers = torch.nn.Sequential(*modules)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.layers(observations)


def policy_class(network: dict[str, Any]) -> type:
    """SB3's policy class for a network description (the learner and :func:`build_policy` share it)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    _check_network(network, "network")
    if network["kind"] in STRUCTURED:
        return structured(network["kind"]).POLICY
    return MaskableActorCriticPolicy


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for a network description (the learner and :func:`build_policy` share them)."""
    _check_network(network, "network")
    if network["kind"] in STRUCTURED:
        return structured(network["kind"]).policy_kwargs(network)
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(network["pi"]), "vf": list(network["vf"])},
        "activation_fn": ACTIVATIONS[network["activation"]],
    }
    if network["shared"]:
        kwargs["features_extractor_class"] = SharedLayers
        kwargs["features_extractor_kwargs"] = {"layers": list(network["shared"]), "activation": network["activation"]}
    return kwargs


def make_card(
    game: Game, network: dict[str, Any], command: str, reward: str = "win", training: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A complete card for a model of ``game`` (``training``: steps and settings, for resuming)."""
    card = {
        "format_version": FORMAT_VERSION,
        **game_card(game),
        "network": network,
        "command": command,
        "reward": reward,
    }
    if training is not None:
        card["training"] = json.loads(json.dumps(training))
    check_card_fields(card, "card")
    return card


def check_card_fields(card: Any, where: str) -> None:
    """The card's own shape: every field present with the right type (not yet compared with a game)."""
    if not isinstance(card, dict):
        raise ValueError(f"{where}: the card must be a JSON object, got {shown(card)}")
    missing = [key for key in CARD_FIELDS if key not in card]
    if missing:
        raise ValueError(f"{where}: the card lacks {missing}")
    if card["format_version"] != FORMAT_VERSION or type(card["format_version"]) is not int:
        raise ValueError(
            f"{where}: format_version {shown(card['format_version'])} is not {FORMAT_VERSION}, "
            f"the one this version of drawluck reads"
        )
    for key, kind in (
        ("game", str),
        ("config", dict),
        ("observation_size", int),
        ("num_actions", int),
        ("command", str),
        ("reward", str),
    ):
        if type(card[key]) is not kind:
            raise ValueError(f"{where}: card field {key!r} must be a {kind.__name__}, got {shown(card[key])}")
    if "training" in card and not isinstance(card["training"], dict):
        raise ValueError(f"{where}: card field 'training' must be an object, got {shown(card['training'])}")
    _check_network(card["network"], where)


def check_card(card: dict[str, Any], game: Game, where: str) -> None:
    """Refuse a card made for another game, configuration or shape (ValueError naming the difference)."""
    check_card_fields(card, where)
    want = game_card(game)
    if card["game"] != want["game"]:
        raise ValueError(f"{where} was trained for game {card['game']!r}, not {want['game']!r}")
    kind = card["network"]["kind"]
    if kind in STRUCTURED and card["game"] != structured(kind).GAME:
        raise ValueError(f"{where}: a {kind} network reads {structured(kind).READS} only, not {card['game']!r}")
    if card["config"] != want["config"]:
        raise ValueError(
            f"{where} was trained for {want['game']} configuration {shown(card['config'], 200)}, not {want['config']}"
        )
    for key in ("observation_size", "num_actions"):
        if card[key] != want[key]:
            raise ValueError(f"{where} has {key} {card[key]}, but {want['game']} {want['config']} has {want[key]}")


# --- reading a file -----------------------------------------------------------------------
def find_model(path: str) -> Path:
    """The model file at ``path`` (its ``.zip`` suffix may be left out); ValueError if there is none."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"a model path must be a non-empty str, got {shown(path)}")
    candidates = [Path(path)] if path.endswith(".zip") else [Path(path), Path(path + ".zip")]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(
        f"model file not found: {path!r} (looked for {', '.join(map(str, candidates))})"
        if len(path) <= 500
        else f"model file not found: {shown(path)}"
    )


def _read_entry(archive: zipfile.ZipFile, name: str, limit: int, where: str) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{where} has no {name}") from None
    if info.file_size > limit:
        raise ValueError(f"{where}: {name} is {info.file_size} bytes, more than the {limit} allowed")
    data = archive.read(info)
    if len(data) > limit:
        raise ValueError(f"{where}: {name} is larger than the {limit} bytes allowed")
    return data


def read_card(path: str) -> dict[str, Any]:
    """The card of the model file at ``path``, checked for shape (JSON only: nothing is executed)."""
    model_file = find_model(path)
    where = f"model file {model_file}"
    try:
        with zipfile.ZipFile(model_file) as archive:
            if CARD_NAME not in archive.namelist():
                raise ValueError(
                    f"{where} has no {CARD_NAME} card: it was not saved by drawluck, and files "
                    f"without a card are never loaded (they may run code when unpickled)"
                )
            text = _read_entry(archive, CARD_NAME, MAX_CARD_BYTES, where)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{where} is not a model zip: {error}") from None
    try:
        card = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{where}: its card is not valid JSON ({error})") from None
    check_card_fields(card, where)
    return card


def read_tensors(path: str, name: str = POLICY_NAME) -> dict[str, Any]:
    """Entry ``name`` of a model zip, read with ``torch.load(weights_only=True)``: tensors and plain data
    only; any other pickled object is refused (ValueError), never constructed."""
    model_file = find_model(path)
    where = f"model file {model_file}"
    try:
        with zipfile.ZipFile(model_file) as archive:
            data = _read_entry(archive, name, MAX_WEIGHTS_BYTES, where)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{where} is not a model zip: {error}") from None
    try:
        value = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # UnpicklingError for a forbidden object, RuntimeError for a corrupt archive
        raise ValueError(f"{where}: {name} is not a plain tensor file ({shown(str(error), 300)})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: {name} must hold a dict, got {type(value).__name__}")
    return value


# --- the policy ---------------------------------------------------------------------------------
def build_policy(network: dict[str, Any], observation_size: int, num_actions: int, learning_rate: float = 0.0):
    """SB3's ``MaskableActorCriticPolicy`` built from a card's ``network`` description (our code only)."""
    from gymnasium import spaces

    return policy_class(network)(
        spaces.Box(0.0, 1.0, (observation_size,), np.float32),
        spaces.Discrete(num_actions),
        lambda _: learning_rate,
        **policy_kwargs(network),
    )


def load_weights(policy: torch.nn.Module, weights: dict[str, Any], where: str) -> None:
    """``load_state_dict(strict=True)``, a missing, extra or misshapen tensor refused as a ValueError."""
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()):
        raise ValueError(f"{where}: the policy weights must map names to tensors")
    try:
        policy.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise ValueError(
            f"{where}: the weights do not fit the network its card describes ({shown(str(error), 300)})"
        ) from None


@dataclass
class PolicyValueNet:
    """A trained policy and value for one game configuration, on the CPU, for play and search.

    Contract (kept stable for search and expert iteration):

    - ``game_name``, ``config``, ``observation_size``, ``num_actions``: what it was trained for;
      ``card``: the model file's whole card (``network``, ``command``, ``reward``, ``training``).
    - :meth:`evaluate` takes a batch of observations (``game.observer().observe(state, player)``
      for the player to act, float32 ``(B, observation_size)``) and their legal masks (bool
      ``(B, num_actions)``, at least one legal action per row) and returns the move
      probabilities ``(B, num_actions)`` float32 (0 off the mask, each row summing to 1) and
      the values ``(B,)`` float32: the expected final reward of the player to act, on the
      scale of the card's ``reward`` mode ("win": +1 win, -1 loss, clipped to -1..1). No
      gradient; it does not change the module's mode. :meth:`policy` gives the same
      probabilities without running the value head.
    - ``module`` is the policy (SB3's ``MaskableActorCriticPolicy``); :meth:`logits_and_values`
      is the differentiable forward pass for fine-tuning it (expert iteration), after which
      :func:`save_network` writes it in the same safe format.
    """

    game_name: str
    config: dict[str, Any]
    observation_size: int
    num_actions: int
    module: torch.nn.Module
    card: dict[str, Any]

    def logits_and_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw action logits ``(B, A)`` (unmasked) and values ``(B,)``, with gradients."""
        policy = self.module
        features = policy.extract_features(observations)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked move probabilities of :meth:`evaluate` alone (the value head is not run)."""
        observations, masks = self._check_batch(observations, masks)
        with torch.no_grad():
            features = self.module.extract_features(torch.from_numpy(observations))
            latent_pi = self.module.mlp_extractor.forward_actor(features)
            logits = self.module.action_net(latent_pi).masked_fill(~torch.from_numpy(masks), -math.inf)
            return torch.softmax(logits, dim=1).numpy()

    def _check_batch(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        observations = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if observations.ndim != 2 or observations.shape[1] != self.observation_size:
            raise ValueError(f"observations must have shape (B, {self.observation_size}), got {observations.shape}")
        if masks.shape != (observations.shape[0], self.num_actions):
            raise ValueError(f"masks must have shape ({observations.shape[0]}, {self.num_actions}), got {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        return observations, masks

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked move probabilities ``(B, A)`` and values ``(B,)`` for a batch (see the class contract)."""
        observations, masks = self._check_batch(observations, masks)
        with torch.no_grad():
            logits, values = self.logits_and_values(torch.from_numpy(observations))
            logits = logits.masked_fill(~torch.from_numpy(masks), -math.inf)
            probs = torch.softmax(logits, dim=1)
        values = values.numpy()
        if self.card["reward"] == "win":
            values = np.clip(values, -1.0, 1.0)
        return probs.numpy().astype(np.float32, copy=False), values.astype(np.float32, copy=False)


def network_from_policy(policy: torch.nn.Module, card: dict[str, Any]) -> PolicyValueNet:
    """Wrap a policy (a training learner's, say) and its card as a :class:`PolicyValueNet` (no copy)."""
    return PolicyValueNet(card["game"], card["config"], card["observation_size"], card["num_actions"], policy, card)


def wrap_policy(
    policy: torch.nn.Module,
    game: Game,
    network: dict[str, Any],
    reward: str = "win",
    command: str = "",
    training: dict[str, Any] | None = None,
) -> PolicyValueNet:
    """A policy being trained (a learner's), with a card describing it, as a :class:`PolicyValueNet` (no copy)."""
    return network_from_policy(policy, make_card(game, network, command, reward, training))


def shipped_models() -> dict[str, list[dict[str, Any]]]:
    """The models shipped in the package, by game: ``{game: [config, ...]}`` read from their cards."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(SHIPPED_DIR.glob("*.zip")):
        card = read_card(str(path))
        found.setdefault(card["game"], []).append(card["config"])
    return found


def shipped_model_path(game: Game) -> str:
    """The shipped model for ``game``'s configuration; ValueError naming the configurations that have one."""
    want = game_card(game)
    for path in sorted(SHIPPED_DIR.glob("*.zip")):
        card = read_card(str(path))
        if card["game"] == want["game"] and card["config"] == want["config"]:
            return str(path)
    have = [f"{name} {config}" for name, configs in shipped_models().items() for config in configs]
    raise ValueError(
        f"no trained model is shipped for {want['game']} {want['config']}; "
        f"trained models exist for: {'; '.join(have) or 'none'}"
    )


def load_network(source: str, game: Game) -> PolicyValueNet:
    """The network of ``source`` ("ppo:PATH", a path, or "trained" for the shipped model of ``game``'s
    configuration), checked against ``game`` before anything is built; in eval mode, on the CPU."""
    if not isinstance(source, str) or not source:
        raise ValueError(f"source must be 'trained', 'ppo:PATH' or a path, got {shown(source)}")
    path = shipped_model_path(game) if source == "trained" else source.removeprefix("ppo:")
    card = read_card(path)
    check_card(card, game, f"model file {find_model(path)}")
    policy = build_policy(card["network"], card["observation_size"], card["num_actions"])
    load_weights(policy, read_tensors(path, POLICY_NAME), f"model file {find_model(path)}")
    policy.eval()
    return network_from_policy(policy, card)


# --- writing a file -----------------------------------------------------------------------
def _sb3_shell(net: PolicyValueNet):
    """A MaskablePPO around ``net``'s policy, only to write SB3's own entries next to ours."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    class Spaces(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0.0, 1.0, (net.observation_size,), np.float32)
        action_space = gymnasium.spaces.Discrete(net.num_actions)

        def reset(self, seed=None, options=None):
            return np.zeros(net.observation_size, np.float32), {}

        def step(self, action):
            return np.zeros(net.observation_size, np.float32), 0.0, True, False, {}

    network = net.card["network"]
    shell = MaskablePPO(
        policy_class(network), Spaces(), n_steps=8, batch_size=8, device="cpu", policy_kwargs=policy_kwargs(network)
    )
    shell.policy.load_state_dict(net.module.state_dict(), strict=True)
    return shell


def save_network(net: PolicyValueNet, path: str, learner: Any = None) -> str:
    """Write ``net`` (its module's weights and its card) to ``path`` (``.zip`` added if missing).

    ``learner``: the MaskablePPO being trained whose policy ``net.module`` is; its own save
    then also records the optimizer for ``train.py --resume``. Without it, a MaskablePPO shell
    writes SB3's entries. Returns the path written.
    """
    if not path.endswith(".zip"):
        path += ".zip"
    check_card_fields(net.card, "card")
    model = learner if learner is not None else _sb3_shell(net)
    if learner is not None and learner.policy is not net.module:
        raise ValueError("save_network: learner.policy must be net.module")
    model.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(CARD_NAME, json.dumps(net.card, indent=1))
    return path


def new_network(
    game: Game, network: dict[str, Any], command: str, reward: str = "win", training: dict[str, Any] | None = None
) -> PolicyValueNet:
    """A freshly initialised network for ``game`` (``network`` from :func:`network_description`)."""
    card = make_card(game, network, command, reward, training)
    return network_from_policy(build_policy(network, game.observation_size, game.num_actions), card)
