"""A tournament's games as a record (``benchmarks.core.records``), and the tournament read back from one.

The run header carries what the report needs beyond the games (``tournament``: the game, its options in
the order given, the agents' labels in order, the tables, the seatings, the deals, the seed, where it ran);
each game line names its table by index (``tournament_table``). ``python -m benchmarks.tournament
--from-record RECORD --out FOLDER`` makes the report and plot again from the record alone.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.core import records
from benchmarks.core.matches import AgentSpec, Failure, GameRecord, Task, TaskResult, game_key
from benchmarks.core.rating import finishing_ranks


def _config_items(config: dict) -> list:
    """The game options as ``[name, value]`` pairs in their order; a dict value (Wapi's coins, int keys) as
    ``{"dict": [[key, value], ...]}``, which JSON keeps."""
    return [[k, {"dict": [[a, b] for a, b in v.items()]} if isinstance(v, dict) else v] for k, v in config.items()]


def _config(items: list) -> dict:
    return {k: ({a: b for a, b in v["dict"]} if isinstance(v, dict) else v) for k, v in items}


def tournament_run(plan, command: list[str]) -> dict:
    """The tournament's run header, made before its games (its commit and checkout are those they are played
    from), each level hashed as what it plays in the tournament's game."""
    agents = {spec.label: {"name": spec.name, "options": dict(spec.options)} for spec in plan.agents}
    return records.new_run(command, agents, plan.game_name)


def record_of(plan, results: list[TaskResult], run: dict, ran_on: str) -> records.Record:
    """The tournament ``plan`` played (``results``, one per task) as a record under its header ``run``."""
    run["tournament"] = {
        "game": plan.game_name,
        "config": _config_items(plan.config),
        "labels": [spec.label for spec in plan.agents],
        "tables": [[spec.label for spec in table] for table in plan.tables],
        "seatings": [list(s) for s in plan.seatings],
        "deals": plan.deals,
        "seed": plan.seed,
        "ran_on": ran_on,
    }
    common = {"run": run["run"], "game": plan.game_name, "config": json.loads(json.dumps(plan.config))}
    games, failures = [], []
    for r in results:
        where = common | {"tournament_table": r.task.key, "table": [spec.label for spec in r.task.table]}
        played, failed = records.task_lines(r, where)
        games += played
        failures += failed
    return records.Record([run], games, failures)


def tournament_of(record: records.Record) -> tuple[dict[str, Any], list[AgentSpec], list[TaskResult]]:
    """The tournament a record holds: its header's settings (``config`` as a dict), the agents in order, and
    the results per table and deal in the order played; ValueError when it holds no single tournament."""
    runs = [run for run in record.runs if "tournament" in run]
    if len(runs) != 1 or len(record.runs) != 1:
        raise ValueError(f"a tournament record holds one tournament run; this one has {len(record.runs)} run(s)")
    run = runs[0]
    settings = dict(run["tournament"], config=_config(run["tournament"]["config"]), command=run["command"])
    specs = {label: AgentSpec(label, a["name"], tuple(a["options"].items())) for label, a in record.agents().items()}
    agents = [specs[label] for label in settings["labels"]]
    key = game_key(settings["game"], settings["config"])
    seatings = tuple(tuple(s) for s in settings["seatings"])
    results: dict[tuple[int, int], TaskResult] = {}

    def result(line: dict) -> TaskResult:
        where = (line["tournament_table"], line["deal"])
        if where not in results:
            table = tuple(specs[label] for label in settings["tables"][where[0]])
            results[where] = TaskResult(Task(key, table, where[1], settings["seed"], seatings, key=where[0]))
        return results[where]

    for g in record.games:
        ranks = finishing_ranks(g["scores"], g["winners"])
        fields = (g["deal"], g["seed"], g["seating"], g["replay"], g["scores"], g["winners"], ranks)
        result(g).games.append(GameRecord(tuple(g["seats"]), *fields))
    for f in record.failures:
        result(f).failures.append(Failure(f["agent"], tuple(f["seats"]), f["seed"], f["message"]))
    return settings, agents, sorted(results.values(), key=lambda r: (r.task.key, r.task.deal))
