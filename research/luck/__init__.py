"""The pair study of luck (v1): how much of a game the deal decides between two agents of known gap.

- :mod:`~research.luck.run`: the plan, the games and the command;
- :mod:`~research.luck.records`: a run as a record, and its pairs' data read back;
- :mod:`~research.luck.stats`: each pair's statistics (the deal's share, upsets, games until skill shows);
- :mod:`~research.luck.report`: the reports made from the records (``python -m research.luck.report``).

``python -m research.luck`` runs :func:`research.luck.run.main`; the package's modules are its parts.
"""

from research.luck.run import build_parser, main

__all__ = ["build_parser", "main"]
