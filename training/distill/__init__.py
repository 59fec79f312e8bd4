"""Search distillation: networks that play like the search, made from the search's own games.

    python -m training.distill --game wapi --num-players 2 --generations 6 --games 64 --iterations 200
    python -m training.distill --game samurai --num-players 3 --out runs/sam3 --processes 8
    python -m training.distill --out runs/sam3 --resume --generations 12 --teacher guided

Each generation (:mod:`~training.distill.loop`): a teacher search plays itself in worker
processes or on a Ray cluster (:mod:`~training.distill.selfplay`), every decision stored in
compact shards (observation, mask, the search's visits, its value, the game's outcome); a
copy of the best network so far is trained towards the visits (policy cross-entropy) and the
outcomes (value), :mod:`~training.distill.learn`; and the copy replaces the best only if, playing
alone (one forward pass a move, as it is shipped), it beats the best network alone on fixed tuning
deals, seats rotated. The teacher is ``best``, the configuration's best search as it stands (a fixed
expert: the network learns what the search knows), or ``guided``, the search with the run's best
network as its evaluator, so that the search improves on the network and the network learns the
improvement (Anthony et al. 2017, "Thinking fast and slow"; AlphaZero). A run usually starts with
the first and may go on with the second (``--resume --teacher guided``).

The run starts from a fresh network cloned from the heuristic's moves (``--start heuristic``:
Samurai's hex-graph network, Wapi's mine network, Wakanda's MLP) or any model file in the safe
format (``trained``, ``ppo:PATH``). It writes to ``--out``: every generation's network in ``models/``
(safe model files whose cards name the run, the teacher, the data, the settings and the CPU-hours),
``model.zip`` (the best), ``data/gen_NNN/shard_NNNN.npz`` (plain arrays), ``tb/`` (TensorBoard),
``state.json`` and ``card.md`` (the run's card and learning curve). An interrupted run continues
with ``--resume``, from the last shard written.
"""
