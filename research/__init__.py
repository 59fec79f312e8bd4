"""Research: the studies of the games and of the agents, made with the benchmarks' library, and their records,
reports and pre-registrations (``research/records``, ``research/results``, ``research/preregistered``). Their
pages are ``docs/research.md`` and ``docs/research_exploratory.md``; the experiments' notes
(``docs/experiments/``) name the commands they ran.

Every command is ``python -m research.NAME``. Until issue 66 each was ``benchmarks.NAME`` (the library
``benchmarks.research``); a record keeps its command as typed, and its report shows it under today's names
(:mod:`research.core.renamed`).

- **The library**, :mod:`research.core`: the game-level measures, the variance components, the clairvoyant and the
  seer, the synthetic games that validate the estimators, the pre-registrations read, and the names the studies'
  commands had before (:mod:`~research.core.renamed`).
- **The luck-and-skill study** (``docs/research.md``; pre-registered): :mod:`research.relative_skill`,
  :mod:`research.skill_curve`, the rating model's check :mod:`research.rating_fit`, and
  :mod:`~research.replay_check` (its records' games played again).
- **The exploratory studies** (``docs/research_exploratory.md``): the v1 pair study of luck :mod:`research.luck`,
  the thinking-time curves :mod:`~research.ceiling`, the levels :mod:`~research.levels` (whose ratings the web
  page reads), and the search claims made before the protocol :mod:`~research.claims`.
- **The agents' strength in the experiments** (``docs/experiments/``), on the benchmarks' match runner and
  intervals: :mod:`~research.strength`; on the trainer's batched evaluator, :mod:`~research.training_strength`;
  one decision at a time, :mod:`~research.decision_gains`; and which network can imitate a heuristic,
  :mod:`~research.imitation_networks`.
- **Every report made again**: :mod:`~research.regenerate`, the studies' reports and the benchmarks'
  (:mod:`benchmarks.regenerate`), then SUMMARY.md and the pages' figures.
"""
