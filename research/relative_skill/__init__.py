"""Relative skill against a fixed field (Borm and van der Genugten), with the ladder's variance components.

- :mod:`~research.relative_skill.run`: the tables, the games, the records and the command;
- :mod:`~research.relative_skill.report`: the report from the records (its method in
  :mod:`~research.relative_skill.method`, its plot in :mod:`~research.relative_skill.plot`).

``python -m research.relative_skill`` runs :func:`research.relative_skill.run.main`; the package's modules are
its parts.
"""

from research.relative_skill.run import build_parser, main

__all__ = ["build_parser", "main"]
