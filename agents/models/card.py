"""A model file's card (``drawluck.json``): what it must say, and the checks that refuse a wrong one.

The card is JSON: ``format_version``, ``game``, ``config`` (``game.config()``),
``observation_size``, ``num_actions``, ``network`` (the architecture: an MLP
actor-critic from :func:`network_description`, or a structured kind of
:data:`STRUCTURED_NETWORKS`), ``command`` (the command that made the file),
``reward`` (the reward mode it was trained on) and ``training`` (learner steps
and settings, read by ``train.py --resume``). Why a module of its own, without
torch: a card is checked before anything is built, and reading one (the page's
list of models, ``--resume``'s checks) should not pay for loading torch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from envs.core.engine import Game, shown

#: The version of the card layout this code writes and reads.
FORMAT_VERSION = 1
CARD_NAME = "drawluck.json"
POLICY_NAME = "policy.pth"
OPTIMIZER_NAME = "policy.optimizer.pth"
#: The card fields every model file must have.
CARD_FIELDS = ("format_version", "game", "config", "observation_size", "num_actions", "network", "command", "reward")
#: Limits that keep a hostile file from exhausting memory before it is refused.
MAX_LAYERS, MAX_UNITS = 8, 4096
#: The activations an MLP description may name (``agents.models.policies.ACTIVATIONS`` builds them).
ACTIVATION_NAMES = ("tanh", "relu")


@dataclass(frozen=True)
class StructuredKind:
    """What a card may say of a network built for one game's observation, known without building it: the game
    it reads, in words for messages, and the sizes its description may take ((low, high) per key). The network
    itself is its module's (``agents.models.policies.structured``)."""

    game: str
    reads: str
    limits: dict[str, tuple[int, int]]


#: The structured network kinds (card kind: what a card may say of it).
STRUCTURED_NETWORKS = {
    "samurai_graph": StructuredKind(
        "samurai", "Samurai boards", {"width": (1, 512), "rounds": (1, 8), "head": (1, 1024)}
    ),
    "wapi_mines": StructuredKind("wapi", "Wapi observations", {"width": (1, 512), "head": (1, 1024)}),
}
#: The network kinds a card may describe: an MLP actor-critic (any game), or a structured one.
NETWORK_KINDS = ("mlp_actor_critic", *STRUCTURED_NETWORKS)


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
    check_network(description, "network")
    return description


def check_sizes(network: dict[str, Any], kind: str, limits: dict[str, tuple[int, int]], where: str) -> None:
    """A structured network's description: exactly ``kind`` and the size keys, each an int within its limits."""
    if set(network) != {"kind", *limits}:
        raise ValueError(
            f"{where}: a {kind} network must have the keys kind, {', '.join(limits)}; got {sorted(network)}"
        )
    for key, (low, high) in limits.items():
        value = network[key]
        if type(value) is not int or not low <= value <= high:
            raise ValueError(f"{where}: network[{key!r}] must be an int in {low}..{high}, got {shown(value)}")


def check_network(network: Any, where: str) -> None:
    """A card's ``network``: one of :data:`NETWORK_KINDS`, its sizes within the limits (ValueError otherwise)."""
    if not isinstance(network, dict) or network.get("kind") not in NETWORK_KINDS:
        raise ValueError(
            f"{where}: network must be {{'kind': one of {list(NETWORK_KINDS)}, ...}}, got {shown(network)}"
        )
    if network["kind"] in STRUCTURED_NETWORKS:
        check_sizes(network, network["kind"], STRUCTURED_NETWORKS[network["kind"]].limits, where)
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
    if network["activation"] not in ACTIVATION_NAMES:
        raise ValueError(
            f"{where}: network activation must be one of {list(ACTIVATION_NAMES)}, got {shown(network['activation'])}"
        )


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
    check_network(card["network"], where)


def check_card(card: dict[str, Any], game: Game, where: str) -> None:
    """Refuse a card made for another game, configuration or shape (ValueError naming the difference)."""
    check_card_fields(card, where)
    want = game_card(game)
    if card["game"] != want["game"]:
        raise ValueError(f"{where} was trained for game {card['game']!r}, not {want['game']!r}")
    kind = card["network"]["kind"]
    if kind in STRUCTURED_NETWORKS and card["game"] != STRUCTURED_NETWORKS[kind].game:
        raise ValueError(
            f"{where}: a {kind} network reads {STRUCTURED_NETWORKS[kind].reads} only, not {card['game']!r}"
        )
    if card["config"] != want["config"]:
        raise ValueError(
            f"{where} was trained for {want['game']} configuration {shown(card['config'], 200)}, not {want['config']}"
        )
    for key in ("observation_size", "num_actions"):
        if card[key] != want[key]:
            raise ValueError(f"{where} has {key} {card[key]}, but {want['game']} {want['config']} has {want[key]}")
