"""The luck study's records: a run's games as record lines (``research.luck`` writes them) and, read back,
each pair's duplicate results (``research.luck.report`` makes its reports from them). See
:mod:`research.luck.report` for what a record's lines carry."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from benchmarks.core import records
from benchmarks.core.records import Record


def game_lines(results) -> tuple[list[dict], list[dict]]:
    """A luck run's games and failures (``matches.TaskResult`` of tasks keyed (configuration, pair index,
    strong, weak)) as record lines without a run id, in the order played."""
    from benchmarks.core.matches import configured_game

    games, failures = [], []
    for r in results:
        config_name, p, strong, weak = r.task.key
        name, frozen = r.task.game
        config = json.loads(json.dumps(dict(configured_game(name, frozen).config())))
        common = {"game": name, "config": config, "study_config": config_name, "pair": p, "table": [strong, weak]}
        played, failed = records.task_lines(r, common)
        games += played
        failures += failed
    return games, failures


def pair_data(games: Sequence[dict], failures: Sequence[dict] = ()) -> tuple[list, list[str]]:
    """The games of each (configuration, pair) as ``luck.PairData``, d[deal, replay, seating], in the order of
    the configurations and pairs; and a note per deal left out because an agent failed."""
    from benchmarks.core.rating import ahead, finishing_ranks, win_share
    from research.luck.stats import CONFIGS_ORDER, PairData

    notes, failed = [], set()
    for f in failures:
        if (f["study_config"], f["pair"], f["deal"]) not in failed:
            failed.add((f["study_config"], f["pair"], f["deal"]))
            notes.append(f"{f['study_config']}: deal seed {f['seed']} left out, {f['agent']} failed: {f['message']}")
    grouped: dict[tuple, list[dict]] = {}
    for g in games:
        grouped.setdefault((g["study_config"], g["pair"], *g["table"]), []).append(g)
    out = []
    for (config, p, strong, weak), group in grouped.items():
        deals = {deal: i for i, deal in enumerate(sorted({g["deal"] for g in group}))}
        replays, seatings = (1 + max(g[key] for g in group) for key in ("replay", "seating"))
        d = np.zeros((len(deals), replays, seatings))
        wins = {strong: 0.0, weak: 0.0}
        for g in group:
            a, b = g["seats"].index(strong), g["seats"].index(weak)
            d[deals[g["deal"]], g["replay"], g["seating"]] = (
                2 * ahead(finishing_ranks(g["scores"], g["winners"]), a, b) - 1
            )
            for who, seat in ((strong, a), (weak, b)):
                wins[who] += win_share(g["winners"], seat)
        data = PairData(config, strong, weak, len(group[0]["seats"]), d, wins[strong] / d.size, wins[weak] / d.size)
        out.append((CONFIGS_ORDER.index(config), p, data))
    out.sort(key=lambda item: item[:2])
    return [data for _, _, data in out], notes


def luck_run(plan, command: list[str]) -> dict:
    """A luck run's header, made before its games, so that its commit and checkout are those they are played
    from (the run's configurations may be of several games: a label is hashed as its agent outside a game)."""
    agents = {spec.label: {"name": spec.name, "options": dict(spec.options)} for t in plan.tasks for spec in t.table}
    return records.new_run(command, agents)


def record_of(results, plan, run: dict, elapsed: float, ran_on: str) -> Record:
    """A luck run as a record: its games, failures, and its header (:func:`luck_run`) with the study's settings
    and notes."""
    run["study"] = {"settings": plan.settings, "notes": plan.notes, "elapsed_s": elapsed, "ran_on": ran_on}
    games, failures = game_lines(results)
    for line in games + failures:
        line["run"] = run["run"]
    return Record([run], games, failures)


def record_name(record: Record) -> str:
    """The file name of a luck run's record: its configurations and its run id."""
    run = record.runs[0]
    return f"luck-{'_'.join(run['study']['settings']['configs'])}-{run['run']}.jsonl.gz"
