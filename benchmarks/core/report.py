"""Reports made from records only: ratings, win shares and move times per configuration.

The command that writes one is ``python -m benchmarks.report``.

The report is a pure function of the records (their runs, games and
failures, in the order given): the same records give the same bytes, and no
timing of the machine that writes the report enters it. Nothing is written
but ``--out``. ``benchmarks.rate`` prints the same sections; the leaderboard
page (``docs/leaderboard.md``) is this report with the leaderboard's title
and introduction (``--leaderboard``).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import envs
from benchmarks.core import calibration, provenance, records
from benchmarks.core.protocol import ANCHOR_TABLE, ANCHORS, config_label, configurations
from benchmarks.core.rating import PRIOR_DRAWS, AnchoredRating, anchored_ratings, win_shares
from benchmarks.core.records import ROOT, Record

MAX_FAILURES_LISTED = 10

LEADERBOARD_INTRO = """The reference agents of the benchmark protocol `{protocol}` (`docs/benchmark.md`) at their
budgets, rated on every configuration played: random is 0 and the heuristic 1,000 by definition;
95% intervals by bootstrap over deals, expanded for small samples. Generated from the records listed below by
`python -m benchmarks.report --leaderboard RECORD... --out docs/{page}`
(`python -m benchmarks.leaderboard` plays them); never edited by hand. Each section says how many
test deals were played; each agent's budget is in its "plays" column. A quick run (the quick
ladder, 8 test deals a table) is an estimate: its intervals are wide, and rungs whose intervals
overlap are not ordered by it.

To submit your agent's rating: rate it with `python -m benchmarks.rate` from a clean checkout and
send the record; `python -m benchmarks.leaderboard verify RECORD` checks its schema, provenance,
identities and budgets and replays every game (`docs/benchmark.md`, "Submitting a rating"). A verified
record's games join its configuration's fit, so the reference agents' ratings move as games join;
the anchors, random 0 and the heuristic 1,000, never do."""


def leaderboard_intro(record: Record, page: str) -> str:
    """The leaderboard page's introduction, naming the protocol version of its records and the page (a file name
    under ``docs/``: each protocol's leaderboard is a page of its own)."""
    return LEADERBOARD_INTRO.format(protocol=records.protocols(record.runs), page=page)


def _num(x: float, digits: int = 0) -> str:
    return ("-∞" if x < 0 else "∞") if math.isinf(x) else f"{x:,.{digits}f}"


def _options(spec: dict) -> str:
    options = ", ".join(f"{k}={v}" for k, v in sorted(spec["options"].items()))
    return f"`{spec['name']}`" + (f" ({options})" if options else "")


def _config_json(game: str, config: dict) -> str:
    return json.dumps(json.loads(json.dumps(envs.describe(game).make(**config).config())), sort_keys=True)


def by_configuration(games: Sequence[dict]) -> dict[tuple[str, str], list[dict]]:
    """Games grouped by (game, configuration as JSON), in the protocol's order of configurations
    (``benchmarks.core.protocol.configurations``; any other configuration after them)."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for game in games:
        groups[(game["game"], json.dumps(game["config"], sort_keys=True))].append(game)
    order = {(game, _config_json(game, config)): i for i, (game, config) in enumerate(configurations())}
    return dict(sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order))))


def label_of(game: str, config_json: str) -> str:
    """The configuration's short name: the options with choices that differ from their default, and any
    other option (Wapi's coins) only where the game would not have chosen that value itself."""
    description = envs.describe(game)
    config = description.make_from_json(json.loads(config_json)).config()
    given = {o.name: config[o.name] for o in description.options if o.choices and config[o.name] != o.default}
    for option in description.options:
        if description.make(**given).config()[option.name] != config[option.name]:
            given[option.name] = config[option.name]
    return config_label(game, given)


def cpu_per_move(games: Sequence[dict]) -> dict[str, tuple[int, float, float]]:
    """Per agent: moves timed, mean and 99th-percentile CPU milliseconds a move."""
    times: dict[str, list[int]] = defaultdict(list)
    for game in games:
        for label, cpu in zip(game["seats"], game["cpu_us"]):
            times[label] += cpu
    return {
        label: (len(t), float(np.mean(t)) / 1000, float(np.percentile(t, 99)) / 1000) for label, t in times.items() if t
    }


def ratings_of(games: Sequence[dict]) -> list[AnchoredRating] | None:
    """The configuration's anchored ratings, or None when the anchors did not both play."""
    seated = {label for game in games for label in game["seats"]}
    if not all(anchor in seated for anchor in ANCHORS):
        return None
    return anchored_ratings(games)


#: The interval columns' names, in every report's tables: the small-sample intervals (``benchmarks.core.rating``,
#: :data:`~benchmarks.core.rating.SMALL_SAMPLE`) of every record, v1's and v2's alike.
RATING_INTERVAL = "95% interval (deal bootstrap, expanded for n deals)"
SHARE_INTERVAL = "95% interval (t, deals − 1 df)"


def _cell(r: AnchoredRating) -> str:
    return f"{_num(r.value)} [{_num(r.low)}, {_num(r.high)}]"


def summary_table(sections: dict[str, list[AnchoredRating] | None], order: Sequence[str]) -> list[str]:
    """One row per configuration, one column per agent (in ``order``): the ratings at a glance."""
    shown = [label for label in order if any(r.name == label for rs in sections.values() for r in rs or ())]
    lines = ["| configuration | " + " | ".join(shown) + " |", "|---|" + "---:|" * len(shown)]
    for heading, ratings in sections.items():
        by_name = {r.name: r for r in ratings or ()}
        lines.append(f"| {heading} | " + " | ".join(_cell(by_name[s]) if s in by_name else "" for s in shown) + " |")
    return lines + [""]


def configuration_section(
    games: Sequence[dict],
    agents: dict[str, dict],
    heading: str,
    ratings: list[AnchoredRating] | None,
) -> list[str]:
    """The ratings, the win shares and the move times of one configuration's games (the intervals' kinds named
    in the tables' headers)."""
    deals = {g["seed"] for g in games}
    sets = sorted({g["deal_set"] for g in games})
    lines = [f"## {heading}", "", f"{len(games)} games on {len(deals)} deals of the {' and '.join(sets)} set."]
    lines += [""]
    if ratings is not None:
        lines += [f"| agent | plays | rating | {RATING_INTERVAL} | games |", "|---|---|---:|---|---:|"]
        for r in ratings:
            interval = f"[{_num(r.low)}, {_num(r.high)}]"
            lines.append(f"| {r.name} | {_options(agents[r.name])} | {_num(r.value)} | {interval} | {r.games} |")
    else:
        lines.append(f"(no rating: the anchors {list(ANCHORS)} did not both play)")
    lines += swept_anchor_note(games)
    n = len(games[0]["seats"])
    lines += ["", f"Win share of the hero at its table (shared wins count 1/k; an even share is {1 / n:.3f}):", ""]
    lines += [f"| hero | opponents | win share | {SHARE_INTERVAL} | games | deals |", "|---|---|---:|---|---:|---:|"]
    for s in win_shares(games):
        lines.append(
            f"| {s.hero} | {s.opponent} | {s.value:.3f} | [{s.low:.3f}, {s.high:.3f}] | {s.games} | {s.deals} |"
        )
    lines += ["", "CPU time a move (milliseconds, as recorded on the machine that played):", ""]
    lines += ["| agent | moves | mean | 99th percentile |", "|---|---:|---:|---:|"]
    for label, (moves, mean, p99) in sorted(cpu_per_move(games).items()):
        lines.append(f"| {label} | {moves} | {mean:.2f} | {p99:.2f} |")
    return lines + [""]


def swept_anchor_note(games: Sequence[dict]) -> list[str]:
    """A warning where the heuristic won every game against random (Samurai): the games then do not fix the
    scale's unit, and the ratings' distances rest on the rating's prior."""
    swept = [g for g in games if g["table"] == ANCHOR_TABLE]
    if not swept or not all(g["winners"] == [g["seats"].index(ANCHOR_TABLE[0])] for g in swept):
        return []
    return [
        "",
        f"Note: the heuristic won all {len(swept)} of its games against random, so the data do not fix the "
        f"scale's unit: it rests on the rating's prior ({PRIOR_DRAWS:g} virtual drawn game a pair, "
        "`benchmarks/core/rating.py`): the more anchor games, the wider the heuristic's modelled lead over random, "
        "and the smaller every other distance on this scale. The order of the agents and the win shares below "
        "do not depend on it; the ratings' distances from the heuristic do.",
    ]


def failure_lines(failures: Sequence[dict]) -> list[str]:
    """One line per game stopped because an agent broke the protocol."""
    out = []
    for f in failures[:MAX_FAILURES_LISTED]:
        where = label_of(f["game"], json.dumps(f["config"], sort_keys=True))
        out.append(
            f"- {f['agent']} broke the protocol in {where}, seat {f['seat']}, {f['deal_set']} deal {f['deal']} "
            f"(seed {f['seed']}), rotation {f['seating']}: {f['message']}"
        )
    if len(failures) > MAX_FAILURES_LISTED:
        out.append(f"- ... and {len(failures) - MAX_FAILURES_LISTED} more")
    return out


def shown_path(path: str | Path) -> str:
    """A record's path as a report shows it: relative to the repository when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def provenance_note(origin: dict) -> str:
    """A v2 run's commit, checkout, versions and CPU, for its line in the list of runs."""
    state = "DIRTY checkout: not citable" if origin["dirty"] else "clean checkout"
    torch = f", torch {origin['torch']}" if origin["torch"] else ""
    return (
        f"; commit {str(origin['commit'])[:12]}, {state}; Python {origin['python']}, numpy {origin['numpy']}"
        f"{torch}; {origin['cpu']}"
    )


def refuse_dirty(record: Record, source: Path | None = None, former: Path | None = None) -> None:
    """ValueError naming the runs of ``record`` made from a dirty checkout: no published report rests on them.
    ``source``: the record's one file, for a study that appends to its record a deal at a time: a run dirty only
    through that file, untracked while it was played, is clean (:func:`provenance.dirty_by_own_record_only`);
    ``former``: where that file was while its runs were played, if it has moved since."""
    own = [path for path in (source, former) if path is not None]
    dirty = [
        run["run"]
        for run in record.runs
        if run.get("provenance", {}).get("dirty")
        and not any(provenance.dirty_by_own_record_only(run["provenance"], path) for path in own)
    ]
    if dirty:
        raise ValueError(
            f"runs {dirty} were made from a dirty checkout (uncommitted changes): refused; play them again from a "
            "clean one, or pass --allow-dirty to look at them (never to publish)"
        )


def markdown(record: Record, title: str, intro: str = "", sources: Sequence[str | Path] = ()) -> str:
    """The report of a record (see the module docstring); ``sources``: the record files, to name them."""
    agents = record.agents()
    lines = [f"# {title}", ""] + ([intro, ""] if intro else [])
    if sources:
        lines += ["Records: " + ", ".join(f"`{shown_path(p)}`" for p in sources) + ".", ""]
    lines += ["## Runs", ""]
    for run in record.runs:
        count = sum(1 for g in record.games if g["run"] == run["run"])
        lines.append(f"- `{run['command']}` ({run['protocol']}, {run['version']}, {run['started']}): {count} games")
        if "provenance" in run:  # v2: the run's origin, and a mark no one can miss on a dirty one
            lines[-1] += provenance_note(run["provenance"])
        lines[-1] += calibration.describe(run)  # a rating's machine and budgets (benchmarks.core.calibration)
    if record.failures:
        lines += ["", "## Protocol violations", ""] + failure_lines(record.failures)
    lines.append("")
    groups = {label_of(game, config): games for (game, config), games in by_configuration(record.games).items()}
    ratings = {heading: ratings_of(games) for heading, games in groups.items()}
    if len(groups) > 1 and any(r is not None for r in ratings.values()):  # else the table would be empty
        lines += [
            "## Ratings at a glance",
            "",
            f"Rating [{RATING_INTERVAL}] by configuration (random 0, heuristic 1,000).",
            "",
        ]
        lines += summary_table(ratings, list(agents))
    for heading, games in groups.items():
        lines += configuration_section(games, agents, heading, ratings[heading])
    return "\n".join(lines).rstrip() + "\n"
