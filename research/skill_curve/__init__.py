"""The skill ceiling as a fitted curve: ``best``'s rating against log(budget), up to a clairvoyant.

- :mod:`~research.skill_curve.run`: the tables, the games, the records and the command;
- :mod:`~research.skill_curve.report`: the fitted curve, its test for curvature, and the report.

``python -m research.skill_curve`` runs :func:`research.skill_curve.run.main`; the package's modules are its parts.
"""

from research.skill_curve.run import build_parser, main

__all__ = ["build_parser", "main"]
