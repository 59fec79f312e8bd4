"""Train a MaskablePPO agent on a drawluck game: batched self-play, a league, a warm start, a report.

``python train.py`` is the project's main job: Wakanda, about ten minutes on
two CPU cores, then a table of win rates (95% confidence intervals) against
the random and heuristic agents. Other games: ``python train.py --game wapi``,
``python train.py --game samurai``. Every setting is a field of
:class:`training.settings.Args`; the per-game ones default to the game's own
training settings (``training.settings.GAME_TRAINING``): ``python train.py
--game samurai --help`` shows that game's defaults.

How it trains (the pieces live in :mod:`training`): ``--n-envs`` games play
at once in the game's batched vector env (``envs.<game>_v0.sb3_vec_env``), the
learner's moves in all of them in one forward pass, and every snapshot
opponent's too; each game's opponent is dealt as the game starts, from a
league (``--opponents``: baselines and, with ``self``, frozen copies of the
learner) drawn by how often the learner loses to them (``--league pfsp``); ``--warm-start heuristic`` first clones the
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
environments, learner, warm start, callbacks, training, evaluation, report;
the steps' plumbing is in :mod:`training.sb3_run`.
"""

from __future__ import annotations

import os
import shlex
import sys
import time

from training.train_command import parse_args, validate


def main(argv: list[str] | None = None) -> dict:
    """Build (settings, environments, learner, callbacks), train, report; returns the results."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv, __doc__.split("\n\n")[0])
    try:
        run = validate(args)
    except ValueError as error:
        sys.exit(f"train.py: error: {error}")
    args, game = run.args, run.game
    if args.backend == "rllib":
        from training.rllib.training import main as train_rllib

        return train_rllib(run)

    # Imported after validation so that bad input fails fast.
    from training import sb3_run
    from training.league import League
    from training.league_games import league_games
    from training.model_files import build_learner

    # --- seeding, and the run's folder and settings -------------------------------------
    sb3_run.seed_everything(args.seed, args.torch_threads)
    run_name = f"{args.game}__maskppo__{args.seed}__{int(time.time())}"
    out = args.out or os.path.join("runs", run_name)
    command = shlex.join(["python", "train.py", *argv])
    sb3_run.write_settings(run, out, run_name=run_name, command=command)

    # --- environments: the game's vector env, each game's opponent dealt from the league --------
    league = League(args.opponents, args.max_snapshots, args.league, power=args.pfsp_power)
    env = league_games(game, args.n_envs, league, args.seed, args.reward)

    # --- learner: built from the settings, then resumed, initialised or warm-started -----
    model = build_learner(env, run.ppo, args.seed, os.path.join(out, "tb"))
    warm = sb3_run.start_learner(model, run)
    save = sb3_run.saver(run, command, warm)

    # --- callbacks: snapshots, league, periodic evaluation keeping the best ------------
    callbacks = sb3_run.callbacks(run, model, league, save, out)

    # --- training: whole rollouts; an interruption saves the learner and says how to resume ---
    started, start_steps = time.time(), model.num_timesteps
    sb3_run.learn(model, env, save, callbacks, run, run_name, out)
    train_seconds = time.time() - started
    callbacks.evaluation.evaluate_now(model)  # the last model competes for "best" too
    save(model, os.path.join(out, "last_model"))
    env.close()

    # --- final evaluation of the best model (fresh seeds, seats swapped), report --------
    timing = dict(started=started, start_steps=start_steps, train_seconds=train_seconds, warm=warm)
    results = sb3_run.final_results(
        run, out, model, env, callbacks, league, run_name=run_name, command=command, **timing
    )
    sb3_run.write_report(results, out)
    return results


if __name__ == "__main__":
    main()
