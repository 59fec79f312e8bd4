"""The rating model checked: Bradley–Terry's predicted head-to-head shares against those observed.

- :mod:`~benchmarks.rating_fit.fit`: the fit and the test per configuration;
- :mod:`~benchmarks.rating_fit.report`: the report, ``benchmarks/results/rating_fit.md``.

``python -m benchmarks.rating_fit`` runs :func:`benchmarks.rating_fit.report.main`.
"""

from benchmarks.rating_fit.report import main

__all__ = ["main"]
