"""The luck-and-skill study's own library (``docs/research.md``), shared by its commands.

- :mod:`~benchmarks.research.measures`: the game-level measures and their deal-clustered intervals;
- :mod:`~benchmarks.research.variance_components`: the crossed random-effects model of a ladder's results;
- :mod:`~benchmarks.research.clairvoyant`: the clairvoyant and the seer, the upper references (research only);
- :mod:`~benchmarks.research.synthetic_games`: games whose answer is known, to validate the estimators;
- :mod:`~benchmarks.research.preregistration`: the studies' pre-registrations, read.

Its commands are :mod:`benchmarks.relative_skill`, :mod:`benchmarks.skill_curve`, :mod:`benchmarks.rating_fit`
and the v1 pair study :mod:`benchmarks.luck`.
"""
