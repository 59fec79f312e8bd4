"""Train a MaskablePPO agent on a drawluck game: batched self-play, a league, a warm start, a report.

``python train.py`` is the project's main job: Wakanda, about ten minutes on
two CPU cores, then a table of win rates (95% confidence intervals) against
the random and heuristic agents. Other games: ``python train.py --game wapi``,
``python train.py --game samurai``. Every setting is a field of :class:`Args`;
the per-game ones default to the game's own training settings
(``envs.describe(game).training``): ``python train.py --game samurai --help``
shows that game's defaults.

How it trains (the pieces live in :mod:`training`): ``--n-envs`` games
step in lockstep in this process (and in ``--workers`` more processes), the
learner's moves in all of them in one forward pass, and every snapshot
opponent's too; opponents come from a league (``--opponents``: baselines and,
with ``self``, frozen copies of the learner) drawn by how often the learner
loses to them (``--league pfsp``); ``--warm-start heuristic`` first clones the
heuristic's moves into the policy.

``--backend rllib`` trains with RLlib's PPO on Ray instead (:mod:`training.rllib.training`,
``docs/ray.md``): the same game, opponents, evaluation and report; it starts from
scratch (no warm start) and samples with ``--num-env-runners`` Ray actors.

What a run writes to ``--out`` (default ``runs/<game>__maskppo__<seed>__<time>``):
``model.zip`` (the best model by periodic evaluation, playable as
``ppo:<out>/model.zip``; its card records this command), ``last_model.zip``,
``checkpoint.zip`` (refreshed at every evaluation: ``--resume`` it after an
interruption), ``snapshots/``, ``tb/`` (``tensorboard --logdir <out>``),
``learning_curve.png``, ``results.json`` and ``results.md``.

The script reads top to bottom like CleanRL's: settings, validation (all bad
input fails here, before anything is trained or written), seeding,
environments, learner, warm start, callbacks, training, evaluation, report.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import envs
from envs.core.description import NETWORK_CHOICES, parse_bool
from envs.games import add_game_options, flags, game_option_texts, given_settings, read_game_options

DEFAULT_GAME = "wakanda"


def _per_game(name: str) -> Any:
    """The default game's training setting ``name``; ``--game X`` switches every such default to X's."""
    return envs.describe(DEFAULT_GAME).training[name]


def _game_default(name: str):
    return field(default_factory=lambda: _per_game(name), metadata={"per_game": True})


def count_or_auto(text: str) -> int | str:
    """A command-line count, or ``auto``."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number or auto, got {text!r}") from None


def whole_rollouts(timesteps: int, rollout: int) -> int:
    """``--timesteps`` rounded up to whole rollouts of ``rollout`` learner steps: SB3 collects whole
    rollouts, so that is what it trains, and its progress bar's total must say so (not 8,192/2,000)."""
    return -(-timesteps // rollout) * rollout


def auto_workers(n_envs: int) -> int:
    """``--workers auto``: one process per core (this one and the workers), each stepping at least 16 games
    so that its opponents' moves still batch. On the 2-core machine 1 worker beat 0 and 2 by 15-30%: more
    processes than cores contend, and fewer leave a core idle (``benchmarks/results/training.md``)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(0, min(cores - 1, n_envs // 16 - 1))


@dataclass
class Args:
    # --- the game (its options, e.g. --num-players, are added from its description) ---
    game: str = field(default=DEFAULT_GAME, metadata={"help": "game to train on", "choices": list(envs.GAMES)})
    game_options: dict[str, Any] = field(default_factory=dict, metadata={"help": "(set by the game's own flags)"})
    given: list[str] = field(default_factory=list, metadata={"help": "(the settings the command line names)"})
    reward: str = field(
        default="win", metadata={"help": "reward mode: win (+1/-1/0) or score (own minus others' mean)"}
    )
    # --- the run --------------------------------------------------------------------
    timesteps: int = _game_default("timesteps")
    opponents: list[str] = _game_default("opponents")
    league: str = field(
        default="pfsp",
        metadata={
            "help": "how opponents are drawn: pfsp (by how often the learner loses to them) or uniform",
            "choices": ["pfsp", "uniform"],
        },
    )
    pfsp_power: float = field(
        default=2.0,
        metadata={"help": "pfsp: an opponent's weight is (learner's loss rate against it) ** this, plus 0.05"},
    )
    warm_start: str = _game_default("warm_start")  # none when resuming, unless given
    warm_start_games: int = _game_default("warm_start_games")
    warm_start_epochs: int = field(
        default=15, metadata={"help": "passes over the imitated moves (with --init-model: over the measured moves)"}
    )
    warm_start_samples: int = _game_default("warm_start_samples")
    n_envs: int = _game_default("n_envs")
    workers: int | str = field(
        default="auto",
        metadata={
            "help": "worker processes stepping a share of the games beside this one (0: none; auto: one fewer "
            "than the cores, keeping at least 16 games a process)",
            "type": count_or_auto,
        },
    )
    seed: int = field(default=1, metadata={"help": "seeds everything: deals, seats, opponents, network init"})
    out: str = field(
        default="",
        metadata={"help": "output directory (default: runs/<game>__maskppo__<seed>__<time>; rllib: __rllib_ppo__)"},
    )
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "heuristic"],
        metadata={"help": "baselines for the periodic evaluation and the final table", "nargs": "+"},
    )
    eval_games: int = field(default=400, metadata={"help": "games per opponent in the final table (seats swapped)"})
    eval_freq: int = _game_default("eval_freq")
    eval_freq_games: int = field(default=100, metadata={"help": "games per opponent in each periodic evaluation"})
    snapshot_freq: int = _game_default("snapshot_freq")
    max_snapshots: int = field(default=5, metadata={"help": "latest snapshots kept in the league"})
    resume: str = field(
        default="",
        metadata={
            "help": "continue training this model file: its network is kept, and so are its learner settings "
            "(--learning-rate, --ent-coef, ...) unless the command line gives them"
        },
    )
    init_model: str = field(
        default="",
        metadata={
            "help": "start a new run from this model file's weights (a shipped model or any train.py model), not its "
            "optimizer or step count; its network is kept (a --warm-start rollouts then only fits it to measured moves)"
        },
    )
    torch_threads: int = _game_default("torch_threads")
    max_minutes: float = field(
        default=8.0,
        metadata={
            "help": "stop training after this many minutes of wall time even before --timesteps, so that the default "
            "run keeps to about 10 minutes on a busy 2-core machine (0: no limit; a run stopped by it is not "
            "step-for-step reproducible)"
        },
    )
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    # --- the learner (PPO) ----------------------------------------------------------
    network: str = field(
        default_factory=lambda: _per_game("network"),
        metadata={"per_game": True, "choices": list(NETWORK_CHOICES)},
    )
    net_arch: list[int] = _game_default("net_arch")
    shared_layers: list[int] = _game_default("shared_layers")
    n_steps: int = _game_default("n_steps")
    batch_size: int = _game_default("batch_size")
    n_epochs: int = _game_default("n_epochs")
    learning_rate: float = _game_default("learning_rate")
    gamma: float = _game_default("gamma")
    gae_lambda: float = _game_default("gae_lambda")
    ent_coef: float = _game_default("ent_coef")
    clip_range: float = _game_default("clip_range")
    # --- the trainer ----------------------------------------------------------------
    backend: str = field(
        default="sb3",
        metadata={
            "help": "sb3: MaskablePPO with the batched self-play above; rllib: RLlib's PPO on Ray (docs/ray.md)",
            "choices": ["sb3", "rllib"],
        },
    )
    num_env_runners: int = field(default=0, metadata={"help": "rllib: Ray actors sampling games (0: in this process)"})
    ray_address: str = field(
        default="",
        metadata={
            "help": "rllib: the Ray cluster to join, auto or HOST:PORT (default: $RAY_ADDRESS, else a local Ray)"
        },
    )


#: What each per-game setting means (its default comes from the game's description).
PER_GAME_HELP = {
    "timesteps": "learner steps to train, rounded up to whole rollouts (--n-steps x --n-envs; --backend rllib: whole "
    "training iterations); with --resume, steps to add to the file's",
    "opponents": "the league's baselines (random, heuristic, ismcts, ppo:PATH) and self (snapshots of the learner)",
    "warm_start": "imitate this agent's moves before PPO: heuristic, ismcts, rollouts (the heuristic, then fit to "
    "each move's value measured by paired rollouts) or none",
    "warm_start_games": "games played by the imitated agent for the warm start (rollouts: as many more measured)",
    "warm_start_samples": "rollouts warm start: paired samples of the flat search measuring each decision's moves",
    "n_envs": "games stepped in lockstep",
    "torch_threads": "torch CPU threads (1 is fastest for the MLPs; the Samurai graph network's updates gain from 2)",
    "eval_freq": "learner steps between evaluations",
    "snapshot_freq": "learner steps between self-play snapshots",
    "network": "mlp (layers from --net-arch and --shared-layers), samurai_graph (Samurai only: the board as a "
    "graph, training/graph_network.py) or wapi_mines (Wapi only: one network for every mine, training/mine_network.py)",
    "net_arch": "hidden layers of the policy and of the value head, e.g. 128 128",
    "shared_layers": "hidden layers shared by both heads, before them (none: write 0)",
    "n_steps": "steps per game per rollout",
    "batch_size": "minibatch size",
    "n_epochs": "passes over each rollout",
    "learning_rate": "Adam learning rate",
    "gamma": "discount (1.0: the only reward is the last)",
    "gae_lambda": "GAE lambda",
    "ent_coef": "entropy bonus",
    "clip_range": "PPO clip range",
}
LIST_SETTINGS = ("opponents", "eval_opponents", "net_arch", "shared_layers")
#: Args fields that are not options of their own.
NOT_OPTIONS = ("game_options", "given")
#: The options of the sb3 backend alone (--backend rllib samples with --num-env-runners, draws opponents by
#: its own PFSP, and builds its MLP from --net-arch alone).
SB3_ONLY = (
    "resume",
    "init_model",
    "workers",
    "warm_start",
    "warm_start_games",
    "warm_start_epochs",
    "warm_start_samples",
    "league",
    "pfsp_power",
    "shared_layers",
)
#: The options that choose the network, which a resumed learner cannot change.
NETWORK_OPTIONS = ("network", "net_arch", "shared_layers")


def build_parser(game: str) -> argparse.ArgumentParser:
    """The parser from the Args fields (so the two cannot drift), with ``game``'s defaults and every
    game's options (from the descriptions); an option of another game is refused in :func:`validate`."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    training = envs.describe(game).training
    for f in dataclasses.fields(Args):
        if f.name in NOT_OPTIONS:
            continue
        meta = dict(f.metadata)
        per_game = meta.pop("per_game", False)
        if per_game:
            meta["help"] = PER_GAME_HELP[f.name]
            default = training[f.name]
        else:
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if f.name in LIST_SETTINGS:
            meta["nargs"] = "+"
        kind = meta.pop("type", None) or next(
            (t for name, t in (("bool", parse_bool), ("float", float), ("int", int)) if name in f.type), str
        )
        shown = " ".join(map(str, default)) if isinstance(default, list) else default
        if "(default" not in meta["help"]:  # else the help says its default in words
            meta["help"] += f" (default{' for ' + game if per_game else ''}: {shown if shown != '' else 'none'})"
        parser.add_argument("--" + f.name.replace("_", "-"), default=default, type=kind, **meta)
    add_game_options(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> Args:
    """Two passes: ``--game`` first, so that every per-game default is that game's."""
    argv = sys.argv[1:] if argv is None else argv
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--game", default=DEFAULT_GAME)
    game = first.parse_known_args(argv)[0].game
    parser = build_parser(game if game in envs.GAMES else DEFAULT_GAME)
    values = vars(parser.parse_args(argv))
    texts = game_option_texts(values)
    settings = {k: v for k, v in values.items() if not k.startswith("game_option_")}
    args = Args(**settings, game_options=texts, given=given_settings(parser, argv))
    if args.shared_layers == [0]:
        args.shared_layers = []
    if (args.resume or args.init_model) and "warm_start" not in args.given:
        args.warm_start = "none"  # the game's default warm start is for a fresh learner only
    return args


def learner_settings(args: Args) -> dict[str, Any]:
    from training.network import chosen_network

    return {
        "network": chosen_network(args.network, args.net_arch, args.shared_layers),
        "n_steps": args.n_steps,
        "batch_size": args.batch_size,
        "n_epochs": args.n_epochs,
        "learning_rate": args.learning_rate,
        "gamma": args.gamma,
        "gae_lambda": args.gae_lambda,
        "ent_coef": args.ent_coef,
        "clip_range": args.clip_range,
    }


def kept_network(args: Args, option: str, path: str, kept: str, asked: str) -> str:
    """A run started from a model file (``--resume``, ``--init-model``) keeps its file's network: an
    option choosing another one is refused, never silently ignored."""
    named = [name for name in NETWORK_OPTIONS if name in args.given]
    if named and asked != kept:
        raise ValueError(
            f"{flags(named)} {'asks' if len(named) == 1 else 'ask'} for the network {asked}, which contradicts "
            f"{option} {path}: its network, {kept}, "
            f"is kept; leave the network options out"
        )
    return kept


def resumed_settings(args: Args, kept: dict[str, Any], asked: dict[str, Any]) -> dict[str, Any]:
    """A resumed learner keeps its file's network and its file's other settings, except those the
    command line gives (e.g. a lower --learning-rate to fine-tune): a setting given is never silently
    ignored."""
    kept_network(args, "--resume", args.resume, kept["network"], asked["network"])
    return {k: asked[k] if k in args.given else kept[k] for k in kept}


def validate(args: Args):
    """Check every setting before anything is trained or written; returns the game and the learner settings."""
    from training.imitation import WARM_START_AGENTS
    from training.members import OPPONENT_KINDS, baseline_spec, build_member
    from training.model_files import resume_settings, starting_model
    from training.network import STRUCTURED, structured  # the train extra must be installed

    sb3_only = [name for name in SB3_ONLY if name in args.given]
    if args.backend == "rllib" and sb3_only:
        raise ValueError(f"{flags(sb3_only)}: not an option of --backend rllib, only of sb3 (docs/ray.md)")
    description = envs.describe(args.game)
    game = description.make(**read_game_options(args.game, args.game_options))  # the engine refuses bad values by name
    if args.network in STRUCTURED and args.game != structured(args.network).GAME:
        reads = structured(args.network).READS
        raise ValueError(f"--network {args.network} reads {reads} only, not --game {args.game}")
    mlp_sizes = [name for name in ("net_arch", "shared_layers") if name in args.given]
    if args.network != "mlp" and mlp_sizes:
        raise ValueError(
            f"{flags(mlp_sizes)} size the mlp network, not --network {args.network}: pass --network mlp to use them"
        )
    if args.network != "mlp" and args.backend == "rllib":
        default = f" ({args.game}'s default)" if args.network == envs.describe(args.game).training["network"] else ""
        raise ValueError(
            f"--backend rllib trains MLPs only (--net-arch): pass --network mlp (--network {args.network}"
            f"{default} needs --backend sb3)"
        )
    if args.reward not in game.reward_modes:
        raise ValueError(f"--reward must be one of {list(game.reward_modes)}, got {args.reward!r}")
    for name in args.opponents:
        if name not in OPPONENT_KINDS and not name.startswith("ppo:"):
            raise ValueError(f"--opponents: unknown opponent {name!r}; allowed: {list(OPPONENT_KINDS)} or ppo:PATH")
        if name != "self":
            build_member(baseline_spec(name), game, 0)  # fails now if the agent or model file is unusable
    for name in args.eval_opponents:
        if name == "self" or (name not in OPPONENT_KINDS and not name.startswith("ppo:")):
            raise ValueError(
                f"--eval-opponents: unknown opponent {name!r}; allowed: random, heuristic, ismcts, ppo:PATH"
            )
        build_member(baseline_spec(name), game, 0)
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
    for name in (
        "timesteps",
        "n_envs",
        "n_steps",
        "batch_size",
        "n_epochs",
        "eval_freq",
        "snapshot_freq",
        "eval_games",
        "eval_freq_games",
        "max_snapshots",
        "torch_threads",
        "warm_start_games",
        "warm_start_epochs",
        "warm_start_samples",
    ):
        if getattr(args, name) <= 0:
            raise ValueError(f"{flags([name])} must be positive, got {getattr(args, name)}")
    if args.workers == "auto":
        args.workers = auto_workers(args.n_envs)
    if not 0 <= args.workers < args.n_envs:
        raise ValueError(f"--workers must be in 0..{args.n_envs - 1} (fewer than --n-envs), got {args.workers}")
    if args.pfsp_power < 0:
        raise ValueError(f"--pfsp-power must be 0 or positive, got {args.pfsp_power}")
    if args.max_minutes < 0:
        raise ValueError(f"--max-minutes must be 0 (no limit) or positive, got {args.max_minutes}")
    settings = learner_settings(args)
    if args.resume:
        _, kept = resume_settings(args.resume, game, args.reward)
        settings = resumed_settings(args, kept, settings)
    if args.init_model:
        card = starting_model(args.init_model, game, args.reward, "--init-model")
        settings["network"] = kept_network(args, "--init-model", args.init_model, card["network"], settings["network"])
    if args.backend != "rllib" and (args.num_env_runners or args.ray_address):
        raise ValueError("--num-env-runners and --ray-address are options of --backend rllib")
    return game, settings


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        game, settings = validate(args)
    except ValueError as error:
        sys.exit(f"train.py: error: {error}")
    if args.backend == "rllib":
        from training.rllib.training import main as train_rllib

        return train_rllib(args, game)

    # Imported after validation so that bad input fails fast.
    import numpy as np
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from training.callbacks import (
        EvalCallback,
        LeagueCallback,
        PhaseTimeCallback,
        SnapshotCallback,
        TimeLimitCallback,
        add_snapshot,
    )
    from training.imitation import warm_start
    from training.league import League
    from training.model_files import (
        POLICY_NAME,
        build_learner,
        history_of,
        load_learner_state,
        load_weights,
        read_tensors,
        save_learner,
    )
    from training.network import load_network, wrap_policy
    from training.report import plot_curve, results_table, warm_start_line
    from training.vecenv import LockstepVecEnv
    from training.win_rates import evaluate

    # --- seeding: one block ---------------------------------------------------------
    set_random_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # ~30% faster masked sampling
    np.random.seed(args.seed)

    run_name = f"{args.game}__maskppo__{args.seed}__{int(time.time())}"
    out = args.out or os.path.join("runs", run_name)
    os.makedirs(os.path.join(out, "snapshots"), exist_ok=True)
    command = shlex.join(["python", "train.py", *argv])
    with open(os.path.join(out, "args.json"), "w") as f:
        used = {k: v for k, v in settings.items() if k != "network"}  # a resumed file's, where not given
        json.dump({**vars(args), **used, "learner": settings, "run_name": run_name, "command": command}, f, indent=1)

    # --- environments: lockstep games against the league ---------------------------
    league = League(args.opponents, args.max_snapshots, args.league, power=args.pfsp_power)
    env = LockstepVecEnv(args.game, game.config(), args.reward, args.n_envs, league, args.seed, args.workers)

    # --- learner ----------------------------------------------------------------------
    model = build_learner(env, settings, args.seed, os.path.join(out, "tb"))
    warm = None
    if args.resume:  # our settings rebuilt the learner; the file gives only tensors and the step count
        load_learner_state(model, args.resume)
        changed = ", ".join(f"{k} {settings[k]}" for k in settings if k in args.given and k != "network")
        print(
            f"resuming {args.resume} at {model.num_timesteps} timesteps{'; given: ' + changed if changed else ''}",
            flush=True,
        )
    if args.init_model:  # the file gives only the policy's weights: a new run from a trained start
        load_weights(model.policy, read_tensors(args.init_model, POLICY_NAME), f"--init-model: {args.init_model}")
        print(f"starting from the weights of {args.init_model}", flush=True)
    if args.warm_start != "none":
        network = wrap_policy(model.policy, game, settings["network"], args.reward)
        warm = warm_start(
            network,
            args.game,
            game.config(),
            args.warm_start,
            args.warm_start_games,
            seed=1_000_000 + 100_000 * args.seed,
            reward=args.reward,
            processes=max(args.workers, 2),
            epochs=args.warm_start_epochs,
            samples=args.warm_start_samples,
            fresh=not args.init_model,
        )
        print(warm_start_line(warm), flush=True)
    started_from = args.resume or args.init_model
    history = history_of(started_from) if started_from else []  # the commands that made it, oldest first
    training = {
        "hyperparameters": settings,
        "opponents": args.opponents,
        "league": args.league,
        "seed": args.seed,
        "warm_start": warm,
        "history": history,
    }

    def save(learner, path: str) -> str:
        return save_learner(learner, path, game, command, args.reward, training)

    # --- callbacks: snapshots, league, periodic evaluation keeping the best ------------
    evaluation = EvalCallback(
        game,
        tuple(args.eval_opponents),
        args.eval_freq_games,
        args.eval_freq,
        os.path.join(out, "model"),
        save,
        args.reward,
        seed=10_000,
        checkpoint_path=os.path.join(out, "checkpoint"),
    )
    time_limit = TimeLimitCallback(args.max_minutes * 60)
    phases = PhaseTimeCallback()
    callbacks = [LeagueCallback(league), evaluation, time_limit, phases]
    if league.uses_snapshots:
        add_snapshot(save, model, os.path.join(out, "snapshots"), league)  # the learner as it starts
        callbacks.append(SnapshotCallback(save, os.path.join(out, "snapshots"), args.snapshot_freq, league))

    # --- training ---------------------------------------------------------------------
    started, start_steps = time.time(), model.num_timesteps
    steps = whole_rollouts(args.timesteps, model.n_steps * model.n_envs)
    if steps != args.timesteps:
        print(f"training {steps:,} learner steps: --timesteps {args.timesteps:,} rounded up to whole rollouts")
    try:
        model.learn(
            steps,  # what SB3 trains anyway; its progress bar then shows the true total
            callback=callbacks,
            progress_bar=args.progress_bar,
            tb_log_name=run_name,
            reset_num_timesteps=not args.resume,
        )
    except KeyboardInterrupt:
        env.close()
        path = save(model, os.path.join(out, "last_model"))
        sys.exit(f"interrupted at {model.num_timesteps} timesteps; continue with --resume {path}")
    train_seconds = time.time() - started
    evaluation.evaluate_now(model)  # the last model competes for "best" too
    save(model, os.path.join(out, "last_model"))
    env.close()

    # --- final evaluation of the best model (fresh seeds, seats swapped) ---------------
    best = load_network(os.path.join(out, "model.zip"), game)
    rows = [
        evaluate(best, game, name, args.eval_games, seed=20_000, reward=args.reward) for name in args.eval_opponents
    ]
    results = {
        "run_name": run_name,
        "command": command,
        "game": game.name,
        "config": game.config(),
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": (model.num_timesteps - start_steps) / max(train_seconds, 1e-9),
        "total_seconds": round(time.time() - started, 1),
        "seconds": {  # where the training time went (the games' share is part of the rollouts')
            "rollouts": round(phases.seconds["rollouts"], 2),
            "games": round(env.game_seconds, 2),
            "updates": round(phases.seconds["updates"], 2),
        },
        "best_at_timesteps": evaluation.best_timesteps,
        "stopped_by_time_limit": time_limit.stopped,
        "warm_start": warm,
        "final": rows,
        "curve": evaluation.curve,
        "league": league.table(),
        "learner": settings,
    }
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    table = results_table(results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table + "\n")
    plot_curve(evaluation.curve, os.path.join(out, "learning_curve.png"), title=run_name)
    print(table)
    print(f"model: {os.path.join(out, 'model.zip')} (play it as ppo:{os.path.join(out, 'model.zip')})")
    return results


if __name__ == "__main__":
    main()
