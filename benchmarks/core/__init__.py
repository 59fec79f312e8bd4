"""The measurement library every benchmark command builds on (the commands are ``benchmarks/*.py``).

- :mod:`~benchmarks.core.protocol`: the protocol's deal sets, seatings, ladders, budgets and configurations;
- :mod:`~benchmarks.core.matches`: the match runner: deal and agent seeds, guarded agents, tasks
  played on :mod:`parallel.pool`; :mod:`~benchmarks.core.batch_matches` plays its random and heuristic
  tables on the batch engines, the same games; :mod:`~benchmarks.core.arena` plays the protocol's deals on
  it, refereed (:mod:`~benchmarks.core.sealed` for a user's agent, :mod:`~benchmarks.core.user_agents` to
  load one);
- :mod:`~benchmarks.core.records`: reading and writing records (with :mod:`~benchmarks.core.provenance` and
  :mod:`~benchmarks.core.anchors`' identities, made of :mod:`~benchmarks.core.golden` games and decisions),
  :mod:`~benchmarks.core.verify` to check one;
- :mod:`~benchmarks.core.rating`: the rating models (Bradley–Terry, Plackett–Luce, the protocol's anchored
  ratings with their bootstrap intervals, win shares);
- :mod:`~benchmarks.core.variance`: what duplicate deals buy (the variance of a win-rate difference);
- :mod:`~benchmarks.core.report`: the sections of a report made from records.

The commands built on it are the other modules and packages of :mod:`benchmarks` (its docstring is the map); a
command of several parts is a package (:mod:`benchmarks.tournament`). The studies' commands (:mod:`research`) build
on it too.
"""
