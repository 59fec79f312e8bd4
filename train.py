"""Train a MaskablePPO agent on a drawluck game: batched self-play, a league, a warm start, a report.

``python train.py`` is the project's main job: Wakanda, about ten minutes on
two CPU cores from the shipped model's weights (``--init-model trained``,
Wakanda's default), then a table of win rates (95% confidence intervals)
against the random and heuristic agents. Other games: ``python train.py --game wapi``,
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
heuristic's moves into the policy, and ``--init-model`` starts from a model file's weights instead.

``--backend rllib`` trains with RLlib's PPO on Ray instead (:mod:`training.rllib.training`,
``docs/ray.md``): the same game, opponents, evaluation and report; it starts from
scratch (no warm start) and samples with ``--num-env-runners`` Ray actors.

What a run writes to ``--out`` (default ``runs/<game>__maskppo__<seed>__<time>``):
``model.zip`` (the best model by periodic evaluation, playable as
``ppo:<out>/model.zip``; its card records this command), ``last_model.zip``,
``checkpoint.zip`` (refreshed at every evaluation: ``--resume`` it after an
interruption), ``snapshots/``, ``tb/`` (``tensorboard --logdir <out>``),
``learning_curve.png``, ``results.json`` and ``results.md``.

The script reads as the algorithm: build the games and their opponents, build the
learner, loop (collect, update, evaluate, save), report; every setting is checked
first, in one pass (all bad input fails there, before anything is trained or written), and
the learner's, the loop's and the report's plumbing is one method each of :class:`training.sb3_run.Job`.
"""

from __future__ import annotations

import sys

from training.train_command import read_command


def main(argv: list[str] | None = None) -> dict:
    """Train as the settings say and report; returns the results."""
    argv = sys.argv[1:] if argv is None else argv
    run = read_command(argv, __doc__.split("\n\n")[0])
    if run.args.backend == "rllib":
        from training.rllib.training import main as train_rllib

        return train_rllib(run)
    from training.league import League  # after the checks, so that bad input fails fast
    from training.league_games import league_games
    from training.sb3_run import Job

    args = run.args
    job = Job.start(run, argv)  # seeded; the run's folder, name and settings written

    # --- the games and their opponents: the game's vector env, each game's opponent dealt by the league ---
    league = League(args.opponents, args.max_snapshots, args.league, power=args.pfsp_power)
    games = league_games(run.game, args.n_envs, league, args.seed, args.reward)

    # --- the learner: MaskablePPO from the settings, then resumed, initialised or warm-started ---
    learner = job.learner(games)

    # --- the loop: collect a rollout, update; between rollouts snapshots join the league, and every
    # --eval-freq steps the learner is evaluated (the best kept) and saved ---
    loop = job.loop(learner, league)
    job.learn(learner, loop)

    # --- the report: the best model on fresh deals, seats swapped ---
    return job.report(learner, games, loop, league)


if __name__ == "__main__":
    main()
