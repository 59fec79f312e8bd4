"""Resuming from a file, and exporting one: the learner's side of the model-file format
(:mod:`agents.models`; writing a file, the learner's included: :mod:`training.network`).

The learner is Stable-Baselines3's MaskablePPO; its policy is built from a
network description (``agents.models.policies.policy_kwargs``), so the card written
with it (:func:`training.network.save_learner`) describes it exactly. Resuming never unpickles anything: the learner is
rebuilt from our settings (recorded in the card), then the policy and
optimizer tensors and the step count are read back safely.
"""

from __future__ import annotations

from typing import Any

from agents.models.card import OPTIMIZER_NAME, POLICY_NAME, check_card
from agents.models.files import find_model, read_card, read_tensors
from agents.models.network import load_weights
from envs.core.engine import Game
from training.network import save_network
from training.settings import PPOSettings


def check_model_file(path: str, game: Game) -> dict[str, Any]:
    """The card of model file ``path``; ValueError unless it is one of ours made for ``game``."""
    card = read_card(path)
    check_card(card, game, f"model file {find_model(path)}")
    return card


def starting_model(path: str, game: Game, reward: str, option: str) -> dict[str, Any]:
    """Check a model file a run starts from (``option``: ``--resume`` or ``--init-model``) before
    training starts: made for ``game`` and ``reward``, its weights (read safely) fitting its network.
    Returns its card."""
    card = check_model_file(path, game)
    where = f"{option}: {find_model(path)}"
    if card["reward"] != reward:
        raise ValueError(f"{where} was trained with --reward {card['reward']}, not {reward}")
    from agents.models.policies import build_policy

    load_weights(
        build_policy(card["network"], game.observation_size, game.num_actions), read_tensors(path, POLICY_NAME), where
    )
    return card


def resume_settings(path: str, game: Game, reward: str) -> tuple[dict[str, Any], PPOSettings]:
    """Check a ``--resume`` file completely before training starts: (its card, its learner settings).

    The weights and optimizer state are read (safely) and must fit the learner the card describes."""
    card = starting_model(path, game, reward, "--resume")
    where = f"--resume: {find_model(path)}"
    settings = PPOSettings.from_card(card.get("training", {}).get("hyperparameters"), where)
    steps = card["training"].get("num_timesteps")
    if type(steps) is not int or steps < 0:
        raise ValueError(f"{where}: its card records no step count, got {steps!r}")
    read_tensors(path, OPTIMIZER_NAME)
    return card, settings


def load_learner_state(model, path: str) -> None:
    """Load a checked file's policy and optimizer tensors and step count into ``model``, a learner
    built from the same settings (:func:`resume_settings`)."""
    where = f"model file {find_model(path)}"
    card = read_card(path)
    load_weights(model.policy, read_tensors(path, POLICY_NAME), where)
    try:
        model.policy.optimizer.load_state_dict(read_tensors(path, OPTIMIZER_NAME))
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{where}: the optimizer state does not fit the learner ({error})") from None
    model.num_timesteps = card["training"]["num_timesteps"]


def export_model(source: str, destination: str, history: list[str] | None = None) -> str:
    """Copy a trained model without its optimizer state (for shipping: about a third of the size);
    the card, with the command that made the model, is kept. ``history``: the commands that made the
    model ``source`` was resumed from, for a card written before cards recorded them."""
    from agents.models.card import card_game
    from agents.models.network import load_network

    card = read_card(source)
    network = load_network(source, card_game(card))
    if history:
        network.card["training"] = {**network.card.get("training", {}), "history": list(history)}
    return save_network(network, destination)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.model_files SOURCE DESTINATION [EARLIER_COMMAND ...]``: :func:`export_model`
    on the command line; a file that cannot be read is refused with exit status 2."""
    import argparse

    from cli import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="python -m training.model_files",
        description="Copy a trained model without its optimizer state (for shipping: about a third of the size);\n"
        "its card, with the command that made it, is kept.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("source", metavar="SOURCE.zip", help="a model file of train.py (e.g. runs/RUN/last_model.zip)")
    parser.add_argument("destination", metavar="DESTINATION.zip", help="where the copy is written")
    parser.add_argument(
        "history",
        metavar="EARLIER_COMMAND",
        nargs="*",
        help="the commands that made the model SOURCE was resumed from, for a card written before cards "
        "recorded them (default: none)",
    )
    args = parser.parse_args(argv)
    try:
        print(export_model(args.source, args.destination, args.history))
    except (ValueError, OSError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
