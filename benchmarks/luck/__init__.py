"""The pair study of luck (v1): how much of a game the deal decides between two agents of known gap.

- :mod:`~benchmarks.luck.run`: the plan, the games and the command;
- :mod:`~benchmarks.luck.records`: a run as a record, and its pairs' data read back;
- :mod:`~benchmarks.luck.stats`: each pair's statistics (the deal's share, upsets, games until skill shows);
- :mod:`~benchmarks.luck.report`: the reports made from the records (``python -m benchmarks.luck.report``).

``python -m benchmarks.luck`` runs :func:`benchmarks.luck.run.main`; the package's modules are its parts.
"""

from benchmarks.luck.run import build_parser, main

__all__ = ["build_parser", "main"]
