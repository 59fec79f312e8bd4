"""The rating model checked: Bradley–Terry's predicted head-to-head shares against those observed.

- :mod:`~research.rating_fit.fit`: the fit and the test per configuration;
- :mod:`~research.rating_fit.report`: the report, ``research/results/rating_fit.md``.

``python -m research.rating_fit`` runs :func:`research.rating_fit.report.main`.
"""

from research.rating_fit.report import main

__all__ = ["main"]
