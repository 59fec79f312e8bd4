"""Training support for ``train.py``, one concern per module.

- :mod:`~training.settings`: each game's training settings, the PPO settings object, ``train.py``'s settings;
- :mod:`~training.train_command`: ``train.py``'s command line read and checked in one pass, and a settings
  dataclass as a command line (``train.py``, expert iteration);
- :mod:`~training.sb3_run`: the steps of ``train.py``'s SB3 run (learner start, callbacks, report);
- :mod:`~training.members`: the league's members as batch opponents (agents, batched networks);
- :mod:`~training.league_games`: the game's SB3 vector env, each game's opponent dealt from the league;
- :mod:`~training.league`: the opponent league (prioritised fictitious self-play);
- :mod:`~training.win_rates`: seat-swapped, fixed-seed evaluation with Wilson intervals;
- :mod:`~training.model_files`: saving the learner, resuming from a file (safely);
- :mod:`~training.imitation`: the warm start by behaviour cloning;
- :mod:`~training.callbacks`: snapshots, evaluation, time limit, league logging;
- :mod:`~training.report`: the learning curve and the results table.
"""
