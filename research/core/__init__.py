"""The luck-and-skill study's own library (``docs/research.md``), shared by its commands.

- :mod:`~research.core.measures`: the game-level measures and their deal-clustered intervals;
- :mod:`~research.core.variance_components`: the crossed random-effects model of a ladder's results;
- :mod:`~research.core.clairvoyant`: the clairvoyant and the seer, the upper references (research only);
- :mod:`~research.core.synthetic_games`: games whose answer is known, to validate the estimators;
- :mod:`~research.core.preregistration`: the studies' pre-registrations, read;
- :mod:`~research.core.shown_commands`: a recorded command as a report prints it, one that runs from a clean clone;
  :mod:`~research.core.renamed`: a recorded command under the names its module and files have had since issue 66.

Its commands are :mod:`research.relative_skill`, :mod:`research.skill_curve`, :mod:`research.rating_fit`
and the v1 pair study :mod:`research.luck`.
"""
