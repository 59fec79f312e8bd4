"""Model files, read below the players: the card (:mod:`~agents.models.card`), reading a file and finding
the shipped ones (:mod:`~agents.models.files`, the zips beside it), the network a player runs
(:mod:`~agents.models.network`, built by :mod:`~agents.models.policies` and the structured kinds) and an
RLlib-trained policy (:mod:`~agents.models.rllib_policy`).

A layer of its own (``tests/test_architecture.py``): it imports ``envs`` only, and both the players
(``agents``) and ``training`` import it, so a player reads a model file without importing training code.
Writing model files is training's (``training.network``, ``training.model_files``). Nothing is imported
here: reading a card needs neither torch nor Stable-Baselines3.
"""
