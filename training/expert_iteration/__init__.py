"""Expert iteration, experimental: the guided search's own games train its network, generation after
generation. It has not yet produced a network that passes its gate, so none is shipped.

    python -m training.expert_iteration --game samurai --num-players 2 --start heuristic --generations 8
    python -m training.expert_iteration --game wakanda --start ppo:runs/wakanda/model.zip --out runs/wk_exit
    python -m training.expert_iteration --out runs/wk_exit --resume --generations 12

Each generation (:mod:`~training.expert_iteration.loop`): the guided search
(:mod:`agents.guided`) with the best network so far plays itself in worker
processes (:mod:`~training.expert_iteration.selfplay`); a copy of the network
is trained towards the search's visit distributions and the games' results
(:mod:`~training.expert_iteration.learn`); the copy is kept as the new best
only if its search beats the previous network's on fixed deals, seats
swapped. The search improves on its network's policy, the network learns
the improvement, and the next search starts from there (Anthony et al.
2017, "Thinking fast and slow"; AlphaZero).

The run starts from any model file in the safe format (``ppo:PATH``, the
shipped ``trained`` model) or from a fresh network cloned from the
heuristic's moves (``--start heuristic``). It writes to ``--out``: every
generation's network in ``models/`` (safe model files, cards recording the
command), ``model.zip`` (the best), ``data/`` (the self-play records, plain
``.npz`` arrays), ``tb/`` (TensorBoard), ``state.json`` and ``results.md``.
An interrupted run continues with ``--resume``.
"""
