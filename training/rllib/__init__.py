"""RLlib as a second trainer (``train.py --backend rllib``) and the agent that plays its checkpoints.

- :mod:`training.rllib.env`: the game as an RLlib multi-agent environment (key renaming, masking, the
  league's opponents in the other seats); imports Ray.
- :mod:`training.rllib.league`: the opponents' seats, drawn from the one league (:mod:`training.league`).
- :mod:`training.rllib.training`: the PPO run, its evaluation and report; imports Ray.
- :mod:`training.rllib.policy`: the trained policy exported in a safe form (read back by
  :mod:`agents.models.rllib_policy`, played by ``rllib:PATH`` agents);
  needs torch, never Ray.
"""
