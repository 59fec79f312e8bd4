"""Records: what a benchmark played, as JSON Lines (gzip-compressed when the name ends in ``.gz``).

A record holds one or more *runs*. Each run is a header line followed by its
games (and failures, if any), every line a JSON object with a ``kind``:

- ``run``: ``run`` (an id unique to the run), ``protocol``, ``command``,
  ``version`` (``git describe`` of the checkout, else the package version),
  ``started`` (UTC), ``agents`` (label -> ``{"name", "options"}``);
- ``game``: ``run``, ``game``, ``config``, ``deal_set``, ``deal`` (position in
  the set), ``seed``, ``seating`` (index of the rotation), ``seats`` (agent
  label per seat), ``table`` (hero, opponent), ``scores``, ``winners``,
  ``moves`` and ``cpu_us`` (per seat, each move's CPU microseconds); a study
  that replays a deal with fresh agent seeds adds ``replay`` (the luck study's
  records, :mod:`benchmarks.luck_report`, also say which pair and study
  configuration a game belongs to, a tournament's, :mod:`benchmarks.tournament_record`,
  which table; neither times moves);
- ``failure``: ``run``, ``game``, ``config``, ``seed``, ``seats``, ``agent``,
  ``seat``, ``move``, ``message``: a game stopped because an agent broke the protocol.

Reports are made from records only; pooling runs is concatenating records
(``python -m benchmarks.records pool A B --out C``), refused when the runs
are of different protocol versions, give one label two agents, or hold a game twice.

    python -m benchmarks.records pool runs/a.jsonl.gz runs/b.jsonl.gz --out runs/pooled.jsonl.gz
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.protocol import PROTOCOL, deal_set_of

ROOT = Path(__file__).resolve().parent.parent


def project_version() -> str:
    """``git describe --always --dirty`` of this checkout, or the installed package's version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
        if out.returncode == 0 and out.stdout.strip():
            return "git " + out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return "drawluck " + version("drawluck")
    except PackageNotFoundError:
        return "unknown"


@dataclass
class Record:
    """The lines of one or more records, by kind, in file order."""

    runs: list[dict] = field(default_factory=list)
    games: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)

    def agents(self) -> dict[str, dict]:
        """Label -> agent spec over every run; ValueError when two runs give one label two agents."""
        found: dict[str, dict] = {}
        for run in self.runs:
            for label, spec in run["agents"].items():
                if found.setdefault(label, spec) != spec:
                    raise ValueError(f"agent label {label!r} means {found[label]} in one run and {spec} in another")
        return found

    def of_protocol(self, protocol: str) -> Record:
        """The runs of ``protocol`` with their games and failures (records of two versions never pool)."""
        keep = {run["run"] for run in self.runs if run["protocol"] == protocol}
        pick = lambda lines: [line for line in lines if line["run"] in keep]  # noqa: E731
        return Record([r for r in self.runs if r["run"] in keep], pick(self.games), pick(self.failures))

    def extend(self, other: Record) -> None:
        known = {run["run"] for run in self.runs}
        self.runs += [run for run in other.runs if run["run"] not in known]
        self.games += other.games
        self.failures += other.failures

    def check(self) -> None:
        """ValueError on a record that cannot be pooled: runs of two protocol versions, conflicting labels,
        or a game played twice."""
        protocols = sorted({run["protocol"] for run in self.runs})
        if len(protocols) > 1:
            raise ValueError(f"runs of different protocols cannot be pooled: {protocols}")
        self.agents()
        seen = set()
        for game in self.games:
            key = game_identity(game)
            if key in seen:
                raise ValueError(
                    f"game played twice: {game['game']} {game['config']} seed {game['seed']} {game['seats']}"
                )
            seen.add(key)

    def lines(self) -> Iterable[dict]:
        """Each run's header, then its games and failures: the file order."""
        for run in self.runs:
            yield run
            yield from (g for g in self.games if g["run"] == run["run"])
            yield from (f for f in self.failures if f["run"] == run["run"])


def protocols(runs: Iterable[dict]) -> str:
    """The protocol versions of ``runs`` as a report names them: a report states its records' version, not
    the version of the code that makes it."""
    return ", ".join(sorted({run["protocol"] for run in runs}))


def game_identity(game: dict) -> tuple:
    """What makes a game the same game: configuration, deal seed, who sat where, and the replay (a study
    that replays a deal with fresh agent seeds, as the luck study does, numbers them; 0 otherwise)."""
    config = json.dumps(game["config"], sort_keys=True)
    return game["game"], config, game["seed"], tuple(game["seats"]), game.get("replay", 0)


def new_run(command: list[str], agents: dict[str, dict]) -> dict:
    """A run header for ``command`` (argv of a ``python -m`` command) playing ``agents``."""
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = shlex.join(command)
    run_id = uuid.uuid4().hex[:12]
    return {
        "kind": "run",
        "run": run_id,
        "protocol": PROTOCOL,
        "command": text,
        "version": project_version(),
        "started": started,
        "agents": agents,
    }


def task_lines(result, common: dict) -> tuple[list[dict], list[dict]]:
    """The games and failures of one played deal (``matches.TaskResult``) as record lines without timings, each
    with the ``common`` fields (the run, the configuration, the table ...), in the order played."""
    games = [
        {"kind": "game"}
        | common
        | {"deal_set": deal_set_of(g.game_seed), "deal": g.deal, "seed": g.game_seed, "seating": g.seating}
        | {"replay": g.replay, "seats": list(g.seats), "scores": [float(x) for x in g.scores]}
        | {"winners": [int(w) for w in g.winners]}
        for g in result.games
    ]
    failures = [
        {"kind": "failure"}
        | common
        | {"deal_set": deal_set_of(f.game_seed), "deal": result.task.deal, "seed": f.game_seed, "seats": list(f.seats)}
        | {"agent": f.agent, "seat": f.seats.index(f.agent) if f.agent in f.seats else None}
        | {"move": None, "message": f.message}
        for f in result.failures
    ]
    return games, failures


def run_file(stem: str, suffix: str) -> Path:
    """A new file for a run's output, ``runs/bench/<stem>-<UTC time><suffix>``: the default of every
    benchmark's output, so that only an explicit ``--out`` ever writes over a committed report."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return ROOT / "runs" / "bench" / f"{stem}-{stamp}{suffix}"


def _open(path: Path, mode: str):
    return gzip.open(path, mode + "t", encoding="utf-8") if path.suffix == ".gz" else open(path, mode, encoding="utf-8")


def write(record: Record, path: str | Path, overwrite: bool = False) -> Path:
    """Write ``record``; an existing file is refused unless ``overwrite`` (records are never replaced by accident)."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise ValueError(f"{path} exists; records are not overwritten (choose another --record)")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":  # mtime 0: the same record gives the same bytes
        with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as f:
            f.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in record.lines()).encode())
    else:
        with _open(path, "w") as f:
            for line in record.lines():
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
    return path


def read(paths: Iterable[str | Path]) -> Record:
    """Read and pool records (in the order given); ValueError naming the file and line of a bad line."""
    record = Record()
    for path in paths:
        part = Record()
        with _open(Path(path), "r") as f:
            for number, text in enumerate(f, 1):
                try:
                    line = json.loads(text)
                    {"run": part.runs, "game": part.games, "failure": part.failures}[line["kind"]].append(line)
                except (json.JSONDecodeError, KeyError, TypeError) as error:
                    raise ValueError(f"{path}:{number}: not a record line ({error})") from None
        record.extend(part)
    record.check()
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.records", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pool = sub.add_parser("pool", help="pool records into one (refused on conflicting labels or repeated games)")
    pool.add_argument("records", nargs="+", help="record files (.jsonl or .jsonl.gz)")
    pool.add_argument("--out", required=True, help="the pooled record (must not exist)")
    args = parser.parse_args(argv)
    try:
        record = read(args.records)
        path = write(record, args.out)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    print(f"pooled {len(record.runs)} run(s), {len(record.games)} games into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
