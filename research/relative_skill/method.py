"""What the relative-skill report says of its method, and the standard work it cites: the prose that heads and
closes :mod:`research.relative_skill.report`, kept apart from the code that computes its tables."""

#: The report's statement of its design, outcomes, intervals and estimators.
INTRODUCTION = """\
Each hero sits in every seat of the same test deals against the heuristic in every other seat (the same seeds
whoever the hero is); `best-N` is the best agent at N iterations a move, `clairvoyant-N` the same search on the true
state (research only, `research/core/clairvoyant.py`). Settings, deals and claims were pre-registered in
`research/preregistered/relative_skill.toml` before the games. A result is the win share (1 for an outright win,
1/k for a win shared by k); Elo and upsets use the share of the field finished ahead of (ties half). The score
margin (the hero's score minus the best other score) is an exploratory second outcome, not capped at a win: it was
added, before any Samurai or Wapi game, when Wakanda's first deals showed `best` winning nearly every game against
the heuristic field, so that the clairvoyant had no room above it in win share. LE and RE: t intervals over per-deal
means; RS, Elo, upsets and the variance shares: percentile bootstrap over deals (2,000 resamples), widened by
sqrt(n/(n-1)); RS's second interval is Fieller's, the ratios a paired t test over deals does not reject (exact for
normal per-deal means, and unbounded where LE + RE is not shown away from 0), added after the runs as a check on the
registered bootstrap where the ratio's denominator is small; N*: the t interval of the mean difference over deals,
inverted (the variance taken as known; unbounded, ∞, when that interval holds 0); 95% throughout. An Elo marked ≤ or
≥ belongs to a player who beat none (all) of the field in every game: it is the continuity correction's, set by the
number of games, and so is a spread ending at it (a lower bound). RS is the skill share for players of best's
strength: LE is from below (best is not optimal), and so is RE (the clairvoyant uses the truth only as best's search
can, and a field it beats nearly always leaves no room above it). The variance components are those of a crossed
model of deal, seat, agent, their interactions and replay, each a variance of a new deal and, for the seats and the
four agents, the variance across these very seats and agents (divisor levels, not levels - 1: Gelman's
finite-population variance), so that a share is a share among these players. The study's estimator is the
unconstrained moments: each mean square equated to its expectation and solved, negative components kept as
covariances (Nelder 1954; a deal that favours one seat disfavours the others, so the deal's component comes out
below 0). Beside it: REML, the likelihood's fit with every component at least 0, which is a fit on the boundary of a
model the data reject where a moment is negative (its 0.000 [0.000, 0.000] rows are that boundary, not intervals);
and the floored ANOVA the study's code began with, each component floored at 0 as it is solved from the highest
interaction down, whose components add up to more than the model's total variance (the line under each table), so
that its shares were of an inflated sum. Intervals of the REML and floored-ANOVA shares are clipped to [0, 1]. None
of the variance components, the Elo spread, the upsets or N* was in the registration: they are estimates, not
claims. With one replay, "deal x seat x agent" also holds the agents' own chance. Upsets are duplicate upsets: how
often the weaker rung beat more of the field than the stronger on the same deal and seat (the ties column: how often
both did the same). N* is the games each of the two must play against the field before the better one's total leads
with probability 0.95 (normal approximation), with fresh deals (independent games) or duplicate deals (the same
deals and seats for both): z² var / mean² with z = 1.645, where var / mean² alone would be a lead only Phi(1) = 0.84
likely. The estimators are validated on synthetic games of known answer (pure chance: RS = 0; no chance: RS = 1; a
mixture of weight 0.6: RS = 0.6; known variance components, Elo spread, upsets and N*) in
`tests/test_luck_measures.py`."""

#: The standard work these measures come from (cited by ``docs/research.md``, which quotes this report).
REFERENCES = (
    "Borm, P. and van der Genugten, B. (2001). On a relative measure of skill for games with chance elements. "
    "TOP 9(1), 91-114. (Relative skill: learning effect against random effect, with a fictive player.)",
    "Duersch, P., Lambrecht, M. and Oechssler, J. (2020). Measuring skill and chance in games. European Economic "
    "Review 127, 103472. (Skill from the spread of Elo ratings.)",
    "Fiedler, I. C. and Rock, J.-P. (2009). Quantifying skill in games: theory and empirical evidence for poker. "
    "Gaming Law Review and Economics 13(1), 50-57. (The critical repetition frequency, close to N*.)",
    "Gilbert, D. E. and Wells, M. T. (2018). Ludometrics: luck, and how to measure it. arXiv:1811.00673. "
    "(Luck against the spread of effective skill, Bradley-Terry.)",
    "Ben-Naim, E., Vazquez, F. and Redner, S. (2006). Parity and predictability of competitions. Journal of "
    "Quantitative Analysis in Sports 2(4). (The upset frequency.)",
    "Burch, N., Schmid, M., Moravcik, M., Morrill, D. and Bowling, M. (2018). AIVAT: a new variance reduction "
    "technique for agent evaluation in imperfect information games. AAAI 2018. (Duplicate play and control variates.)",
    "Fieller, E. C. (1954). Some problems in interval estimation. Journal of the Royal Statistical Society B "
    "16(2), 175-185. (The interval of a ratio of means.)",
    "Nelder, J. A. (1954). The interpretation of negative components of variance. Biometrika 41(3/4), 544-548. "
    "(A negative component as a covariance.)",
    "Gelman, A. (2005). Analysis of variance: why it is more important than ever. Annals of Statistics 33(1), "
    "1-53. (Finite-population against superpopulation variances.)",
    "Jones, A. L. (2021). Scaling scaling laws with board games. arXiv:2104.03113. (Rating against search compute.)",
)
