"""Records: what a benchmark played, as JSON Lines (gzip-compressed when the name ends in ``.gz``).

A record holds one or more *runs*. Each run is a header line followed by its
games (and failures, if any), every line a JSON object with a ``kind``:

- ``run``: ``run`` (an id unique to the run), ``protocol``, ``command``,
  ``version`` (``git describe`` of the checkout, else the package version),
  ``started`` (UTC), ``agents`` (label -> ``{"name", "options"}``); from v2 also
  ``schema`` (2), ``provenance`` (:mod:`benchmarks.core.provenance`: commit, clean or
  dirty, versions, CPU), ``engines`` (game -> engine identity), each built-in agent's
  ``anchor`` identity and each user's agent's ``sha256`` (:mod:`benchmarks.core.anchors`: what an engine
  or agent plays, its golden games and decisions; a run made before holds source hashes, read as the
  identities they map to),
  and ``deal_offset`` where the run drew its deals at random;
- ``game``: ``run``, ``game``, ``config``, ``deal_set``, ``deal`` (position in
  the set), ``seed``, ``seating`` (index of the rotation), ``seats`` (agent
  label per seat), ``table`` (hero, opponent), ``scores``, ``winners``,
  ``moves`` and ``cpu_us`` (per seat, each move's CPU microseconds); a study
  that replays a deal with fresh agent seeds adds ``replay`` (the luck study's
  records, :mod:`research.luck.report`, also say which pair and study
  configuration a game belongs to, a tournament's, :mod:`benchmarks.tournament.record`,
  which table; neither times moves);
- ``failure``: ``run``, ``game``, ``config``, ``seed``, ``seats``, ``agent``,
  ``seat``, ``move``, ``message``: a game stopped because an agent broke the protocol;
  from v2 each game it lost (that one and the deal's remaining rotations) is a
  ``game`` line with ``forfeit`` (the agent's label), and a game line holds its
  ``actions``.

Every line of a v2 run is checked against ``benchmarks/schema/record-v2.schema.json``
when it is written and when it is read.

Reports are made from records only; pooling runs is concatenating records
(``python -m benchmarks.pool_records A B --out C``), refused when the runs
are of different protocol versions, give one label two agents (a different anchor identity is a different agent),
run on engines of different identities, or hold a game twice.
"""

from __future__ import annotations

import datetime
import functools
import gzip
import json
import shlex
import subprocess
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import envs
from benchmarks.core.protocol import PROTOCOL, deal_set_of

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "benchmarks" / "schema" / "record-v2.schema.json"
SCHEMA_VERSION = 2


@functools.cache
def _validator(kind: str):
    """The schema's validator of one kind of line (``run``, ``game``, ``failure``): its errors name the field."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    schema.pop("oneOf")
    return jsonschema.Draft202012Validator(schema | {"$ref": f"#/$defs/{kind}"})


def check_lines(lines: Iterable[dict], where: str) -> None:
    """ValueError naming ``where`` and the first line of a v2 run that does not follow the schema."""
    v2 = set()
    for number, line in enumerate(lines, 1):
        if line.get("kind") == "run" and line.get("protocol") == PROTOCOL:
            v2.add(line.get("run"))
        if line.get("run") in v2:
            kind = line.get("kind") if line.get("kind") in ("run", "game", "failure") else "run"
            error = next(iter(_validator(kind).iter_errors(line)), None)
            if error is not None:
                field = "/".join(map(str, error.absolute_path)) or "the line"
                raise ValueError(f"{where}: line {number} ({line.get('kind')}) breaks {SCHEMA.name}: {field}: "
                                 f"{error.message[:200]}")  # fmt: skip


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
        """Label -> agent spec over every run (an anchor as today's identity); ValueError when two runs give one
        label two agents."""
        from benchmarks.core.anchors import current_anchor

        found: dict[str, dict] = {}
        for run in self.runs:
            for label, spec in run["agents"].items():
                spec = spec | ({"anchor": current_anchor(spec["anchor"])} if "anchor" in spec else {})
                if found.setdefault(label, spec) != spec:
                    raise ValueError(f"agent label {label!r} means {found[label]} in one run and {spec} in another")
        return found

    def of_protocol(self, protocol: str) -> Record:
        """The runs of ``protocol`` with their games and failures (records of two versions never pool)."""
        return self.of_runs({run["run"] for run in self.runs if run["protocol"] == protocol})

    def of_runs(self, keep: set[str]) -> Record:
        """The runs whose ids are in ``keep``, with their games and failures."""

        def kept(lines: list[dict]) -> list[dict]:
            return [line for line in lines if line["run"] in keep]

        return Record(kept(self.runs), kept(self.games), kept(self.failures))

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
        from benchmarks.core.anchors import current_engine

        self.agents()
        engines: dict[str, str] = {}
        for run in self.runs:
            for game, stored in run.get("engines", {}).items():
                if engines.setdefault(game, current_engine(game, stored)) != current_engine(game, stored):
                    raise ValueError(f"runs on different {game} engines cannot be pooled (engine identities differ)")
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


def new_run(command: list[str], agents: dict[str, dict], game: str | None = None, own: Path | None = None) -> dict:
    """A run header for ``command`` (argv of a ``python -m`` command) playing ``agents``, made when the run starts
    (its commit is the one the games are played from): each built-in agent with its anchor identity (a level
    resolved in ``game``), every engine's identity, and the run's provenance (``own``: the record the run appends
    to, whose untracked file is its output, not a change to the checkout)."""
    from benchmarks.core import anchors, provenance

    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    hashed = {}
    for label, entry in agents.items():
        hashed[label] = dict(entry)
        if "sha256" not in entry:
            try:
                hashed[label]["anchor"] = anchors.anchor_identity(entry["name"], entry["options"], game)
            except ValueError:  # an agent without an anchor identity (an RLlib checkpoint): None says so
                hashed[label]["anchor"] = None
    return {
        "kind": "run",
        "run": uuid.uuid4().hex[:12],
        "protocol": PROTOCOL,
        "schema": SCHEMA_VERSION,
        "command": shlex.join(command),
        "version": project_version(),
        "started": started,
        "agents": hashed,
        "provenance": provenance.provenance(own),
        "engines": {name: anchors.engine_identity(name) for name in envs.GAMES},
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
    check_lines(record.lines(), str(path))
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
        check_lines(part.lines(), str(path))
        record.extend(part)
    record.check()
    return record
