"""Train a MaskablePPO agent on a drawluck game, with self-play, evaluation and a final report.

``python train.py`` is the project's main job: Wakanda against a mix of
random, heuristic and self-play opponents, about ten minutes on two CPU
cores, then a table of win rates (95% confidence intervals) against the
random and heuristic agents. Other games: ``python train.py --game wapi
--num-players 4``, ``python train.py --game samurai --num-players 2``.
Every setting is a field of :class:`Args` below (``--help`` lists them).

What a run writes to ``--out`` (default ``runs/<game>__maskppo__<seed>__<time>``):
``model.zip`` + ``model.zip.json`` (the best model by periodic evaluation,
playable as ``ppo:<out>/model.zip``), ``last_model.zip``, ``snapshots/``
(the self-play pool), ``tb/`` (TensorBoard: ``tensorboard --logdir <out>``),
``learning_curve.png``, ``results.json`` and ``results.md``.

``--backend rllib`` trains with RLlib's PPO on Ray instead (``agents/rllib/training.py``,
``docs/ray.md``): the same settings, evaluation and report.

The script reads top to bottom like CleanRL's: settings, validation (all bad
input fails here, before any training), seeding, environments, model,
callbacks, training, evaluation, report.
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

#: Per-game PPO settings. Chosen by short measured runs on Wakanda (benchmarks/results/training.md):
#: 16 in-process envs (the policy's forward pass is batched over them: 2.5x the steps/s of 4), 1 torch
#: thread, learning rate 1e-3 (ahead of 3e-4 at 20k-40k steps, level by 80k), two 128-unit layers.
#: Wapi and Samurai reuse them (Samurai's longer turns and larger observation get 256-unit layers),
#: not tuned separately. gamma 1: the only reward is the final one, at most ~45 learner moves away.
HYPERPARAMS = {
    "wakanda": dict(timesteps=300_000, net_arch=[128, 128], n_steps=256, batch_size=512, learning_rate=1e-3,
                    n_epochs=10, gamma=1.0, ent_coef=0.01, eval_freq=40_000, snapshot_freq=25_000),
    "wapi": dict(timesteps=300_000, net_arch=[128, 128], n_steps=256, batch_size=512, learning_rate=1e-3,
                 n_epochs=10, gamma=1.0, ent_coef=0.01, eval_freq=40_000, snapshot_freq=25_000),
    "samurai": dict(timesteps=300_000, net_arch=[256, 256], n_steps=256, batch_size=512, learning_rate=1e-3,
                    n_epochs=10, gamma=1.0, ent_coef=0.01, eval_freq=40_000, snapshot_freq=25_000),
}
#: Each game's own options (CLI names = constructor arguments). Others are refused for that game.
GAME_OPTIONS = {
    "wapi": ("num_players", "scoring"),
    "wakanda": ("advanced",),
    "samurai": ("num_players", "choose_hand", "figure_setup"),
}


#: The settings that make the learner; ``--resume`` keeps the saved model's.
LEARNER_SETTINGS = ("net_arch", "n_steps", "batch_size", "learning_rate", "n_epochs", "gamma", "ent_coef")


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


@dataclass
class Args:
    # --- the game -------------------------------------------------------------------
    game: str = field(default="wakanda", metadata={"help": "game to train on", "choices": list(GAME_OPTIONS)})
    num_players: int | None = field(default=None, metadata={"help": "players (wapi: 2-5, default 4; samurai: 2-4, default 2)"})
    scoring: str | None = field(default=None, metadata={"help": "wapi scoring: full or shared (default full)"})
    advanced: bool | None = field(default=None, metadata={"help": "wakanda advanced variant (default false)"})
    choose_hand: bool | None = field(default=None, metadata={"help": "samurai: choose the starting hand (default false)"})
    figure_setup: str | None = field(default=None, metadata={"help": "samurai figure set-up: random or draft (default random)"})
    reward: str = field(default="win", metadata={"help": "reward mode: win (+1/-1/0) or score (own minus others' mean)"})
    # --- the run --------------------------------------------------------------------
    timesteps: int | None = field(default=None, metadata={"help": "learner steps to train (default: per game, see HYPERPARAMS)"})
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic", "self"], metadata={
        "help": "opponent pool, one drawn per seat per episode: random, heuristic, ismcts, self (snapshots), ppo:PATH",
        "nargs": "+"})
    n_envs: int = field(default=16, metadata={"help": "parallel training environments"})
    vec_env: str = field(default="dummy", metadata={"help": "dummy (one process) or subproc (one process per env)",
                                                    "choices": ["dummy", "subproc"]})
    seed: int = field(default=1, metadata={"help": "seeds everything: deals, seats, opponents, network init"})
    out: str | None = field(default=None, metadata={"help": "output directory (default runs/<run name>)"})
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"], metadata={
        "help": "baselines for the periodic evaluation and the final table", "nargs": "+"})
    eval_games: int = field(default=400, metadata={"help": "games per opponent in the final table (seats swapped)"})
    eval_freq: int | None = field(default=None, metadata={"help": "learner steps between evaluations (default: per game)"})
    eval_freq_games: int = field(default=100, metadata={"help": "games per opponent in each periodic evaluation"})
    snapshot_freq: int | None = field(default=None, metadata={"help": "learner steps between self-play snapshots (default: per game)"})
    max_snapshots: int = field(default=5, metadata={"help": "most recent snapshots kept in the opponent pool"})
    resume: str | None = field(default=None, metadata={"help": "continue training this model.zip (its hyperparameters are kept)"})
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads (1 is fastest for these small networks)"})
    max_minutes: float = field(default=8.0, metadata={
        "help": "stop training after this many minutes of wall time even before --timesteps, so that the "
                "default run keeps to about 10 minutes on a busy 2-core machine (0: no limit; a run stopped "
                "by it is not step-for-step reproducible)"})
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    # --- PPO hyperparameters (default: per game, see HYPERPARAMS) -------------------
    net_arch: list[int] | None = field(default=None, metadata={"help": "hidden layer sizes, e.g. 128 128", "nargs": "+"})
    n_steps: int | None = field(default=None, metadata={"help": "steps per env per rollout"})
    batch_size: int | None = field(default=None, metadata={"help": "minibatch size"})
    learning_rate: float | None = field(default=None, metadata={"help": "Adam learning rate"})
    n_epochs: int | None = field(default=None, metadata={"help": "passes over each rollout"})
    gamma: float | None = field(default=None, metadata={"help": "discount (1.0: rewards come only at the end)"})
    ent_coef: float | None = field(default=None, metadata={"help": "entropy bonus"})
    # --- the trainer ----------------------------------------------------------------
    backend: str = field(default="sb3", metadata={"help": "sb3: MaskablePPO in this process; rllib: RLlib's PPO "
                                                          "on Ray (docs/ray.md)", "choices": ["sb3", "rllib"]})
    num_env_runners: int | None = field(default=None, metadata={"help": "rllib: Ray actors sampling games (0: in "
                                                                       "this process; default 0)"})
    ray_address: str | None = field(default=None, metadata={"help": "rllib: the Ray cluster to join, auto or "
                                                                   "HOST:PORT (default $RAY_ADDRESS or a local Ray)"})


def parse_args(argv: list[str] | None = None) -> Args:
    """Build the argument parser from the Args fields, so the two cannot drift."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Args):
        meta = dict(f.metadata)
        # The field's annotation (a string here) gives the parser's type.
        kind = next((t for name, t in (("bool", _bool), ("float", float), ("int", int)) if name in f.type), str)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if default is not None:
            meta["help"] += f" (default: {' '.join(map(str, default)) if isinstance(default, list) else default})"
        parser.add_argument("--" + f.name.replace("_", "-"), default=default, type=kind, **meta)
    return Args(**vars(parser.parse_args(argv)))


def make_game(args: Args):
    """The configured game; options that do not belong to the game are refused by name."""
    allowed = GAME_OPTIONS[args.game]
    options = {}
    for name in dict.fromkeys(name for names in GAME_OPTIONS.values() for name in names):  # each once, in order
        value = getattr(args, name)
        if value is None:
            continue
        if name not in allowed:
            flags = ", ".join("--" + n.replace("_", "-") for n in allowed) or "none"
            raise ValueError(f"--{name.replace('_', '-')} is not an option of {args.game} (its options: {flags})")
        options[name] = value
    from agents.selfplay import build_game

    return build_game(args.game, options)


def validate(args: Args):
    """Check every setting before anything is trained; returns the game and the resolved hyperparameters."""
    from agents.network import OPTIMIZER_NAME, load_network, read_tensors
    from agents.selfplay import OPPONENT_KINDS, check_model_file, make_opponent

    if args.game not in GAME_OPTIONS:
        raise ValueError(f"--game must be one of {list(GAME_OPTIONS)}, got {args.game!r}")
    game = make_game(args)
    if args.reward not in game.reward_modes:
        raise ValueError(f"--reward must be one of {list(game.reward_modes)}, got {args.reward!r}")
    for name in args.opponents:
        if name not in OPPONENT_KINDS and not name.startswith("ppo:"):
            raise ValueError(f"--opponents: unknown opponent {name!r}; allowed: {list(OPPONENT_KINDS)} or ppo:PATH")
        if name != "self":
            make_opponent(name, game, 0)  # fails now if the agent or model file is unusable
    for name in args.eval_opponents:
        if name == "self" or (name not in OPPONENT_KINDS and not name.startswith("ppo:")):
            raise ValueError(f"--eval-opponents: unknown opponent {name!r}; allowed: random, heuristic, ismcts, ppo:PATH")
        make_opponent(name, game, 0)
    hp = {**HYPERPARAMS[args.game], **{k: v for k, v in vars(args).items() if k in HYPERPARAMS[args.game] and v is not None}}
    for name in ("timesteps", "n_steps", "batch_size", "n_epochs", "eval_freq", "snapshot_freq"):
        if hp[name] <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {hp[name]}")
    if args.max_minutes < 0:
        raise ValueError(f"--max-minutes must be 0 (no limit) or positive, got {args.max_minutes}")
    for name in ("n_envs", "eval_games", "eval_freq_games", "max_snapshots", "torch_threads"):
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.backend != "rllib" and (args.num_env_runners is not None or args.ray_address is not None):
        raise ValueError("--num-env-runners and --ray-address are options of --backend rllib")
    if args.resume is not None:
        card = check_model_file(args.resume, game)
        load_network(args.resume, game)  # the weights are read (safely) and fit the card's network
        read_tensors(args.resume, OPTIMIZER_NAME)
        if "training" not in card or "hyperparameters" not in card["training"]:
            raise ValueError(f"--resume: {args.resume} records no training settings (it was not saved by train.py)")
        if card["reward"] != args.reward:
            raise ValueError(f"--resume: {args.resume} was trained with --reward {card['reward']}, not {args.reward}")
        hp = {**hp, **{k: card["training"]["hyperparameters"][k] for k in LEARNER_SETTINGS},
              "timesteps": hp["timesteps"]}
    return game, hp


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    try:
        game, hp = validate(args)
    except ValueError as error:
        sys.exit(f"train.py: error: {error}")
    if args.backend == "rllib":
        from agents.rllib.training import main as train_rllib

        return train_rllib(args, game, hp)

    # Imported after validation so that bad input fails fast.
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from agents.network import load_network
    from agents.selfplay import (EvalCallback, SnapshotCallback, TimeLimitCallback, evaluate, load_learner_state,
                                 make_training_env, plot_curve, results_table, save_model)

    # --- seeding: one block ---------------------------------------------------------
    set_random_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # ~30% faster masked sampling
    np.random.seed(args.seed)

    run_name = f"{args.game}__maskppo__{args.seed}__{int(time.time())}"
    out = args.out or os.path.join("runs", run_name)
    os.makedirs(os.path.join(out, "snapshots"), exist_ok=True)
    with open(os.path.join(out, "args.json"), "w") as f:
        json.dump({**vars(args), "hyperparameters": hp, "run_name": run_name}, f, indent=1)

    # --- environments ---------------------------------------------------------------
    env_fns = [make_training_env(args.game, game.config(), args.opponents, args.reward, args.seed, rank,
                                 args.max_snapshots) for rank in range(args.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if args.vec_env == "subproc" else DummyVecEnv(env_fns)
    vec_env.seed(args.seed)

    # --- model ----------------------------------------------------------------------
    model = MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=hp["learning_rate"], n_steps=hp["n_steps"],
        batch_size=hp["batch_size"], n_epochs=hp["n_epochs"], gamma=hp["gamma"], ent_coef=hp["ent_coef"],
        policy_kwargs={"net_arch": list(hp["net_arch"])}, tensorboard_log=os.path.join(out, "tb"),
        seed=args.seed, device="cpu", verbose=0)
    if args.resume:  # our settings rebuilt the learner; the file gives only tensors and the step count
        load_learner_state(model, args.resume)
        print(f"resuming {args.resume} at {model.num_timesteps} timesteps")
    command = shlex.join(["python", "train.py", *(sys.argv[1:] if argv is None else argv)])
    training = {"hyperparameters": hp, "opponents": args.opponents, "seed": args.seed}

    def save(learner, path: str) -> str:
        return save_model(learner, path, game, command, args.reward, training)

    # --- callbacks: self-play snapshots, periodic evaluation keeping the best --------
    snapshots = SnapshotCallback(save, os.path.join(out, "snapshots"), hp["snapshot_freq"])
    evaluation = EvalCallback(game, tuple(args.eval_opponents), args.eval_freq_games, hp["eval_freq"],
                              os.path.join(out, "model"), save, args.reward, seed=10_000)
    time_limit = TimeLimitCallback(args.max_minutes * 60)
    callbacks = [evaluation, time_limit]
    if "self" in args.opponents:
        callbacks.append(snapshots)
        if args.resume:
            vec_env.env_method("add_snapshot", args.resume)

    # --- training -------------------------------------------------------------------
    started = time.time()
    model.learn(hp["timesteps"], callback=callbacks, progress_bar=args.progress_bar, tb_log_name=run_name,
                reset_num_timesteps=not args.resume)
    evaluation.evaluate_now(model)  # the last model competes for "best" too
    train_seconds = time.time() - started
    save(model, os.path.join(out, "last_model"))
    vec_env.close()

    # --- final evaluation of the best model (fresh seeds, seats swapped) -------------
    best = load_network(os.path.join(out, "model.zip"), game)
    rows = [evaluate(best, game, name, args.eval_games, seed=20_000, reward=args.reward) for name in args.eval_opponents]
    results = {"run_name": run_name, "game": game.name, "config": game.config(), "timesteps": int(model.num_timesteps),
               "train_seconds": round(train_seconds, 1), "total_seconds": round(time.time() - started, 1),
               "best_at_timesteps": evaluation.best_timesteps,
               "stopped_by_time_limit": time_limit.stopped, "final": rows, "curve": evaluation.curve,
               "hyperparameters": hp}
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
