"""``train.py``'s command line, read and checked in one pass, and a settings dataclass as a command line.

:func:`read_command` parses ``train.py``'s options (per game: ``--game`` first) and :func:`validate` checks
every one before anything runs; it never changes the settings it is given: it returns a :class:`Validated`
run (the game, the settings, the learner's :class:`~training.settings.PPOSettings`, those of a resumed file
where the command line does not give them). All bad input fails here, naming its option.

:func:`settings_parser` turns a settings dataclass (:class:`training.settings.Args`, or the distillation's
:class:`training.distill.settings.Settings`) into a parser, so that both read their options the same
way. A field's ``metadata``:

- ``help``: the option's help (its default is appended, unless the help says it);
- ``choices``: the allowed values; ``type``: a parser of its own (else one from
  the annotation: ``int``, ``float`` (finite), ``bool`` (true/false), ``str``,
  ``list[...]`` of one of those, one value or more);
- ``action="store_true"``: a bare flag; ``option=False``: not an option (set by
  the program: the game options, say); ``per_game``: its default is the game's.

Every game's options (``--num-players``...) are added from the games'
descriptions; :func:`parse` reads them back as texts for the chosen game.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from dataclasses import dataclass
from typing import Any

import envs
from agents.models.card import STRUCTURED_NETWORKS, network_description
from cli import flags, given_settings
from envs.core.description import parse_bool
from envs.core.engine import Game, shown
from envs.games import add_game_options, game_option_texts, make_game, read_game_options
from training.settings import (
    DEFAULT_GAME,
    NETWORK_CHOICES,
    NETWORK_OPTIONS,
    POSITIVE,
    PPO_NUMBERS,
    SB3_ONLY,
    Args,
    PPOSettings,
    game_training,
)


def finite_float(text: str) -> float:
    """A command-line number: finite (``nan`` and ``inf`` are refused, naming the option)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def whole_number(text: str) -> int:
    """A command-line count: a whole number (``2.5`` and ``1e3`` are refused, naming the option)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


PARSERS = {"int": whole_number, "float": finite_float, "bool": parse_bool, "str": str}


def _kind(field: dataclasses.Field) -> tuple[Any, str | None]:
    """The option's parser and ``nargs`` from the field's annotation (a string: annotations are postponed)."""
    annotation = str(field.type)
    if annotation.startswith("list[") and annotation.endswith("]"):
        return PARSERS[annotation[5:-1]], "+"
    if annotation not in PARSERS:
        raise TypeError(f"{field.name}: an option of type {annotation} needs a 'type' in its metadata")
    return PARSERS[annotation], None


def default_of(field: dataclasses.Field) -> Any:
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def shown_default(value: Any) -> str:
    """A default as the help shows it: lists as written on the command line, empty as ``none``."""
    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if text else "none"


def settings_parser(
    settings_class: type,
    prog: str | None,
    description: str,
    game_defaults: dict[str, Any] | None = None,
    game: str = "",
) -> argparse.ArgumentParser:
    """One option per field of ``settings_class`` (its own fields, then those it inherits), then every
    game's options.
    ``game_defaults``: the defaults of the ``per_game`` fields, those of ``game``."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    own = settings_class.__dict__.get("__annotations__", {})
    fields = sorted(dataclasses.fields(settings_class), key=lambda f: f.name not in own)  # inherited ones last
    for field in fields:
        meta = dict(field.metadata)
        if meta.pop("option", True) is False:
            continue
        per_game = meta.pop("per_game", False)
        meta.pop("rllib", None)
        flag = "--" + field.name.replace("_", "-")
        if meta.get("action") == "store_true":
            parser.add_argument(flag, **meta)
            continue
        default = game_defaults[field.name] if per_game and game_defaults is not None else default_of(field)
        if "(default" not in meta["help"]:  # else the help says its default in words
            meta["help"] += f" (default{' for ' + game if per_game and game else ''}: {shown_default(default)})"
        kind, nargs = (meta.pop("type"), None) if "type" in meta else _kind(field)
        parser.add_argument(flag, default=default, type=kind, nargs=nargs, **meta)
    add_game_options(parser)
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """``argv`` read by ``parser``: (the settings by field name, the game options' texts by option name,
    the names of the settings ``argv`` gives). A bad value exits with argparse's message naming its option."""
    values = vars(parser.parse_args(argv))
    settings = {k: v for k, v in values.items() if not k.startswith("game_option_")}
    return settings, game_option_texts(values), given_settings(parser, argv)


def build_parser(game: str, description: str = "") -> argparse.ArgumentParser:
    """``train.py``'s parser with ``game``'s defaults and every game's options (from the descriptions);
    an option of another game is refused in :func:`validate`."""
    return settings_parser(Args, None, description, game_training(game), game)


def parse_args(argv: list[str] | None = None, description: str = "") -> Args:
    """Two passes: ``--game`` first, so that every per-game default is that game's."""
    argv = sys.argv[1:] if argv is None else argv
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--game", default=DEFAULT_GAME)
    game = first.parse_known_args(argv)[0].game
    parser = build_parser(game if game in envs.GAMES else DEFAULT_GAME, description)
    settings, texts, given = parse(parser, argv)
    if settings["shared_layers"] == [0]:
        settings["shared_layers"] = []
    if settings["init_model"] == "none" or (settings["resume"] and "init_model" not in given):
        settings["init_model"] = ""  # the game's default start is for a new run, not a resumed one
    if (settings["resume"] or settings["init_model"]) and "warm_start" not in given:
        settings["warm_start"] = "none"  # the game's default warm start is for a fresh learner only
    return Args(**settings, game_options=texts, given=given)


def chosen_network(kind: str, net_arch: list[int], shared_layers: list[int]) -> dict[str, Any]:
    """The card's ``network`` for train.py's ``--network`` (``mlp``: its layers from ``--net-arch`` and
    ``--shared-layers``; a structured kind at its default size), as the games' training settings name it."""
    if kind in STRUCTURED_NETWORKS:
        from agents.models.policies import structured  # torch: only for a structured network

        return structured(kind).default_description()
    if kind != "mlp":
        raise ValueError(f"network must be one of {list(NETWORK_CHOICES)}, got {shown(kind)}")
    return network_description(net_arch, shared=shared_layers)


@dataclass(frozen=True)
class Validated:
    """A run whose every setting was checked: the configured game, the settings, the learner's settings
    (a resumed file's, except those the command line gives) and the network ``--init-model`` names, read
    once (a :class:`~agents.models.network.PolicyValueNet`; None: a new network)."""

    game: Game
    args: Args
    ppo: PPOSettings
    start: Any = None


def read_command(argv: list[str], description: str = "") -> Validated:
    """``train.py``'s command line parsed and checked: a bad value exits with a message naming its option."""
    try:
        return validate(parse_args(argv, description))
    except ValueError as error:
        sys.exit(f"train.py: error: {error}")


def kept_network(args: Args, option: str, path: str, kept: dict, asked: dict) -> dict:
    """A run started from a model file (``--resume``, ``--init-model``) keeps its file's network: an
    option choosing another one is refused, never silently ignored."""
    named = [name for name in NETWORK_OPTIONS if name in args.given]
    if named and asked != kept:
        raise ValueError(
            f"{flags(named)} {'asks' if len(named) == 1 else 'ask'} for the network {asked}, which contradicts "
            f"{option} {path}: its network, {kept}, is kept; leave the network options out"
        )
    return kept


def init_network(args: Args, game: Game):
    """The network ``--init-model`` names (``trained``: the model shipped for ``game``'s configuration), read and
    checked against the game and ``--reward``, or None; ValueError naming the option (for ``trained``, saying
    how to start without it where none is shipped, or its file is missing)."""
    if not args.init_model or args.backend == "rllib":
        return None  # RLlib starts from scratch (an --init-model given is refused as an option of sb3 alone)
    from agents.models.network import load_network

    named = f"--init-model {args.init_model}" + ("" if "init_model" in args.given else f" ({args.game}'s default)")
    try:
        network = load_network(args.init_model, game)
    except ValueError as error:
        hint = "; pass --init-model none to train a new network (and --warm-start heuristic to clone the heuristic)"
        raise ValueError(f"{named}: {error}{hint * (args.init_model == 'trained')}") from None
    if network.card["reward"] != args.reward:
        raise ValueError(f"{named} was trained with --reward {network.card['reward']}, not {args.reward}")
    return network


def learner_settings(args: Args, game: Game, start=None) -> PPOSettings:
    """The learner's settings: the command line's, or a started-from file's network (and, resuming, its
    other settings except those the command line gives: a setting given is never silently ignored).
    ``start``: the network ``--init-model`` names (:func:`init_network`)."""
    from training.model_files import resume_settings

    asked = chosen_network(args.network, args.net_arch, args.shared_layers)
    numbers = {name: getattr(args, name) for name in PPO_NUMBERS}
    if args.resume:
        _, kept = resume_settings(args.resume, game, args.reward)
        network = kept_network(args, "--resume", args.resume, kept.network, asked)
        numbers = {k: v if k in args.given else getattr(kept, k) for k, v in numbers.items()}
        return PPOSettings(**numbers, network=network)
    if start is not None:
        default = "" if "init_model" in args.given else f" ({args.game}'s default; --init-model none: a new network)"
        asked = kept_network(args, "--init-model", args.init_model + default, start.card["network"], asked)
    return PPOSettings(**numbers, network=asked)


def check_network(args: Args) -> None:
    """The network options fit the game and the backend."""
    if args.network in STRUCTURED_NETWORKS and args.game != STRUCTURED_NETWORKS[args.network].game:
        raise ValueError(
            f"--network {args.network} reads {STRUCTURED_NETWORKS[args.network].reads} only, not --game {args.game}"
        )
    mlp_sizes = [name for name in ("net_arch", "shared_layers") if name in args.given]
    if args.network != "mlp" and mlp_sizes:
        raise ValueError(
            f"{flags(mlp_sizes)} size the mlp network, not --network {args.network}: pass --network mlp to use them"
        )
    if args.network != "mlp" and args.backend == "rllib":
        default = f" ({args.game}'s default)" if args.network == game_training(args.game)["network"] else ""
        raise ValueError(
            f"--backend rllib trains MLPs only (--net-arch): pass --network mlp (--network {args.network}"
            f"{default} needs --backend sb3)"
        )


def check_opponents(args: Args, game: Game) -> None:
    """Every opponent named exists, the shipped model named (``trained``) exists for ``game``'s configuration,
    and a model file named (``ppo:PATH``) can play ``game`` (loaded now: one that cannot fails here; every agent
    plays every game)."""
    from training.league import OPPONENT_KINDS

    for name in args.opponents:
        if name not in OPPONENT_KINDS and not name.startswith("ppo:"):
            raise ValueError(f"--opponents: unknown opponent {name!r}; allowed: {list(OPPONENT_KINDS)} or ppo:PATH")
    for name in args.eval_opponents:
        if name == "self" or (name not in OPPONENT_KINDS and not name.startswith("ppo:")):
            raise ValueError(
                f"--eval-opponents: unknown opponent {name!r}; allowed: random, heuristic, trained, ismcts, ppo:PATH"
            )
    for option, names in (("--opponents", args.opponents), ("--eval-opponents", args.eval_opponents)):
        if "trained" in names:
            check_shipped(option, game)
    files = {name[4:] for name in (*args.opponents, *args.eval_opponents) if name.startswith("ppo:")}
    if files:
        from agents.models.network import load_network

        for path in sorted(files):
            load_network(path, game)


def check_shipped(option: str, game: Game) -> None:
    """A model is shipped for ``game``'s configuration (ValueError naming ``option`` and the configurations
    that have one): ``trained`` is refused before anything is trained, not when the league first deals it."""
    from agents.models.files import shipped_model_path

    try:
        shipped_model_path(game)
    except ValueError as error:
        raise ValueError(f"{option} trained: {error}") from None


def check_start(args: Args) -> None:
    """The warm start, ``--resume`` and ``--init-model`` agree with each other."""
    from training.imitation import WARM_START_AGENTS

    if args.warm_start not in (*WARM_START_AGENTS, "none"):
        raise ValueError(f"--warm-start must be one of {[*WARM_START_AGENTS, 'none']}, got {args.warm_start!r}")
    if "warm_start_samples" in args.given and args.warm_start != "rollouts":
        raise ValueError(
            f"--warm-start-samples measures the moves of --warm-start rollouts; this run's warm start is "
            f"{args.warm_start!r}"
        )
    if args.warm_start != "none" and args.resume:
        raise ValueError(
            "--warm-start and --resume contradict each other: a resumed learner is already trained "
            "(pass --warm-start none)"
        )
    if args.init_model and args.resume:
        raise ValueError("--init-model and --resume contradict each other: pass one model file to start from")
    if args.init_model and args.warm_start not in ("rollouts", "none"):
        raise ValueError(
            f"--warm-start {args.warm_start} would clone the moves of an agent over --init-model's trained weights; "
            "with --init-model pass --warm-start rollouts (a fit to measured moves) or none"
        )


def check_numbers(args: Args) -> None:
    """The counts and limits are in range."""
    for name in POSITIVE:
        if getattr(args, name) <= 0:
            raise ValueError(f"{flags([name])} must be positive, got {getattr(args, name)}")
    if args.pfsp_power < 0:
        raise ValueError(f"--pfsp-power must be 0 or positive, got {args.pfsp_power}")
    if args.max_minutes < 0:
        raise ValueError(f"--max-minutes must be 0 (no limit) or positive, got {args.max_minutes}")


def validate(args: Args) -> Validated:
    """Check every setting before anything is trained or written (ValueError naming the option)."""
    sb3_only = [name for name in SB3_ONLY if name in args.given]
    if args.backend == "rllib" and sb3_only:
        raise ValueError(f"{flags(sb3_only)}: not an option of --backend rllib, only of sb3 (docs/ray.md)")
    game = make_game(args.game, **read_game_options(args.game, args.game_options))  # refuses by name
    check_network(args)
    if args.reward not in game.reward_modes:
        raise ValueError(f"--reward must be one of {list(game.reward_modes)}, got {args.reward!r}")
    check_opponents(args, game)
    check_start(args)
    check_numbers(args)
    start = init_network(args, game)
    ppo = learner_settings(args, game, start)
    if args.backend != "rllib" and (args.num_env_runners or args.ray_address):
        raise ValueError("--num-env-runners and --ray-address are options of --backend rllib")
    return Validated(game, args, ppo, start)
