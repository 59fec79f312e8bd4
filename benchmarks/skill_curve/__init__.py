"""The skill ceiling as a fitted curve: ``best``'s rating against log(budget), up to a clairvoyant.

- :mod:`~benchmarks.skill_curve.run`: the tables, the games, the records and the command;
- :mod:`~benchmarks.skill_curve.report`: the fitted curve, its test for curvature, and the report.

``python -m benchmarks.skill_curve`` runs :func:`benchmarks.skill_curve.run.main`; the package's modules are its parts.
"""

from benchmarks.skill_curve.run import build_parser, main

__all__ = ["build_parser", "main"]
