"""A tournament between agents on duplicate deals, with ratings, a cross-table and a report.

- :mod:`~benchmarks.tournament.run`: the plan, the games and the command;
- :mod:`~benchmarks.tournament.record`: a tournament as a record, and read back;
- :mod:`~benchmarks.tournament.report`: the report's text and plot.

``python -m benchmarks.tournament`` runs :func:`benchmarks.tournament.run.main`; the package's modules are its parts.
"""

from benchmarks.tournament.run import build_parser, main

__all__ = ["build_parser", "main"]
