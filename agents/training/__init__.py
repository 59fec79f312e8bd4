"""Training support for ``train.py``, one concern per module.

- :mod:`~agents.training.members`: opponents (in-process agents, batched networks);
- :mod:`~agents.training.lockstep`: many games stepped in lockstep;
- :mod:`~agents.training.vecenv`: those games as an SB3 VecEnv, in-process or in worker processes;
- :mod:`~agents.training.league`: the opponent league (prioritised fictitious self-play);
- :mod:`~agents.training.evaluation`: seat-swapped, fixed-seed evaluation with Wilson intervals;
- :mod:`~agents.training.model_files`: saving the learner, resuming from a file (safely);
- :mod:`~agents.training.imitation`: the warm start by behaviour cloning;
- :mod:`~agents.training.callbacks`: snapshots, evaluation, time limit, league logging;
- :mod:`~agents.training.report`: the learning curve and the results table.
"""
