"""Benchmarks: the measurement library, the commands built on it, and their records and reports.

Every command is ``python -m benchmarks.NAME``; what a report prints runs as written from a clean clone. The studies
made with them (luck and skill, the agents' strength) are :mod:`research`'s; the web server's load benchmark is
``web.load``, beside the server.

- **The library**, :mod:`benchmarks.core`: the protocol, the match runner and the referee, records with their
  provenance and the identities of engines and anchors (what they play), the rating models, and the sections
  of a report.
- **The protocol's commands**: :mod:`~benchmarks.rate` (an agent against the ladder, sealed),
  :mod:`~benchmarks.leaderboard` (the ladder's tables; ``verify`` checks a submitted record),
  :mod:`~benchmarks.report` (a report from records), :mod:`~benchmarks.anchors`, :mod:`~benchmarks.calibration`
  and :mod:`~benchmarks.calibration_check` (its rated agent, :mod:`~benchmarks.slowed_search`),
  :mod:`~benchmarks.leaderboard_cost`, :mod:`~benchmarks.pool_records`, :mod:`~benchmarks.example_run` and
  :mod:`~benchmarks.make_run` (two default runs rated on test deals).
- **Tournaments**, on the library's match runner (:mod:`benchmarks.core.matches`) and intervals:
  :mod:`benchmarks.tournament`.
- **Speed**: :mod:`~benchmarks.batch` (with :mod:`~benchmarks.batch_time`), :mod:`~benchmarks.search_speed` and
  :mod:`~benchmarks.ismcts_speed` report from committed speed records (:mod:`benchmarks.core.speed_records`); the
  others' reports are their commands' output: :mod:`~benchmarks.throughput`, :mod:`~benchmarks.move_times`,
  :mod:`~benchmarks.batch_rollouts`, :mod:`~benchmarks.training_speed`, :mod:`~benchmarks.scale`.
- **The check of them all**: :mod:`~benchmarks.regenerate` makes every benchmark report again from its records
  (``python -m research.regenerate`` makes every report, the studies' too), and :mod:`~benchmarks.summary` fills
  SUMMARY.md and the pages' figures from the reports.
"""
