"""Training support for ``train.py``, one concern per module.

- :mod:`~training.members`: opponents (in-process agents, batched networks);
- :mod:`~training.lockstep`: many games stepped in lockstep;
- :mod:`~training.vecenv`: those games as an SB3 VecEnv, in-process or in worker processes;
- :mod:`~training.league`: the opponent league (prioritised fictitious self-play);
- :mod:`~training.win_rates`: seat-swapped, fixed-seed evaluation with Wilson intervals;
- :mod:`~training.model_files`: saving the learner, resuming from a file (safely);
- :mod:`~training.imitation`: the warm start by behaviour cloning;
- :mod:`~training.callbacks`: snapshots, evaluation, time limit, league logging;
- :mod:`~training.report`: the learning curve and the results table.
"""
