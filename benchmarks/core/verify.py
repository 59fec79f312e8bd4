"""Checking a submitted record before it joins the leaderboard: ``python -m benchmarks.leaderboard verify RECORD``.

A record is accepted only if every check passes:

- **schema**: every line follows ``benchmarks/schema/record-v2.schema.json`` (checked on reading), and the
  record is of the current protocol (a v1 record cannot be verified: it holds no moves);
- **provenance**: every run names its commit and was made from a clean checkout;
- **identities**: every engine's identity, and every reference agent's anchor identity, is this checkout's
  (:mod:`benchmarks.core.anchors`: what it plays; a v2 source hash is read as the identity it maps to), and
  this checkout plays the golden games of the record's games, and its reference agents' witnesses choose their
  golden decisions there (a user's agent is identified by its ``sha256``, which only its code can confirm);
- **calibration**: every run holds its machine's calibration, measured, plausible, and the run's ``budgets``
  are its ``reference_budgets`` scaled by it (:func:`benchmarks.core.calibration.problems`);
- **budgets**: no move of an agent with a budget (the run's ``budgets``, CPU seconds of its machine) took more
  CPU than the protocol allows, unless a failure line says so;
- **replay**: every game is played again from its seed with its stored actions, each legal, to the stored
  scores and winners; a forfeited game's actions are legal, and a failure line of its deal names its agent;
- **whole deals**: every table of a run played the same deals, from the run's offset without a gap, as many
  as its header planned (``deals``), each in every rotation once (a deal cut short, or dropped, is what a
  failure must never buy);
- **the reference agents' moves** (``--replay-agents N``, N games drawn at random, secretly, from the games
  played to their end): the game is played again with each reference agent rebuilt from its seed (they think
  a fixed number of iterations, so they play the same moves on any machine) and the rated agent's stored
  moves (a user's, or a built-in one with a CPU budget); each reference move must be the one stored. A forger
  cannot know which games are drawn.
- **forfeits**: only an agent identified by its code (``sha256``: a user's, never a reference agent) forfeits,
  from its failure's rotation to the deal's last, each such game scored as a forfeit (its seats last, the
  others sharing the win), and no rotation after the failure is a played game.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Iterator

import envs
from agents import Agent
from agents.protocol import play_game, start_game
from benchmarks.core import anchors, calibration
from benchmarks.core.matches import AgentSpec, agent_seed, build_agent, game_key
from benchmarks.core.protocol import PROTOCOL, move_limit, protocol_seatings
from benchmarks.core.records import Record
from envs.core.engine import IllegalActionError


def check_runs(record: Record) -> Iterator[str]:
    """The problems of the runs' headers: protocol, provenance, engine and anchor identities."""
    games_of = {run["run"]: sorted({g["game"] for g in record.games if g["run"] == run["run"]}) for run in record.runs}
    for run in record.runs:
        name = f"run {run['run']}"
        if run["protocol"] != PROTOCOL:
            yield f"{name}: protocol {run['protocol']!r}, not {PROTOCOL!r}: it cannot be verified"
            continue
        origin = run["provenance"]
        if origin["dirty"] or not origin["commit"]:
            yield f"{name}: made from a dirty checkout (or outside git): not citable"
        yield from (f"{name}: {problem}" for problem in calibration.problems(run))
        for game in games_of[run["run"]]:
            if anchors.current_engine(game, run["engines"].get(game)) != anchors.engine_identity(game):
                yield f"{name}: the {game} engine's identity is not this checkout's"
            for label, entry in run["agents"].items():
                stored = anchors.current_anchor(entry.get("anchor"))
                if stored is not None and stored != anchors.anchor_identity(entry["name"], entry["options"], game):
                    yield f"{name}: {label}'s anchor identity is not what {entry['name']} is in this checkout"


def check_goldens(record: Record) -> Iterator[str]:
    """Where this checkout does not play as the identities say: the golden games of each game the record played,
    and the golden decisions of its reference agents' witnesses there (each asked once per process)."""
    agents = {(game["game"], label) for game in record.games for label in game["seats"]}
    runs = {
        label: entry for run in record.runs if run["protocol"] == PROTOCOL for label, entry in run["agents"].items()
    }
    for game in sorted({game for game, _ in agents}):
        yield from (f"this checkout's {game} engine: {problem}" for problem in anchors.engine_problems(game)[:3])
    problems = {
        problem
        for game, label in sorted(agents)
        if runs.get(label, {}).get("anchor") is not None
        for problem in anchors.agent_problems(runs[label]["name"], runs[label]["options"], game)
    }
    yield from (f"this checkout's {problem}" for problem in sorted(problems))


def replay(line: dict) -> str | None:
    """Play a game line's actions from its seed (as :func:`agents.play_game` deals it); what is wrong, or None."""
    game = envs.describe(line["game"]).make_from_json(line["config"])
    state, _ = start_game(game, line["seed"])
    try:
        for action in line.get("actions", []):
            state.apply(action)
    except IllegalActionError as error:
        return f"an illegal stored action: {error}"
    if line.get("forfeit"):
        return None
    if state.current_player is not None:
        return "its stored actions do not finish the game"
    if len(line.get("actions", [])) != line.get("moves"):
        return "its move count is not its number of actions"
    if [float(x) for x in state.scores()] != line["scores"] or list(state.winners()) != line["winners"]:
        return f"the replay ends {state.scores()} won by {state.winners()}, not as recorded"
    return None


def check_games(record: Record) -> Iterator[str]:
    """The problems of the games: replays, budgets, and forfeits without their failure."""
    budgets = {run["run"]: run.get("budgets", {}) for run in record.runs}
    failed = {(f["run"], f["seed"], f["agent"], tuple(f.get("table", ()))) for f in record.failures}
    for number, line in enumerate(record.games, 1):
        where = f"game {number} ({line['game']} seed {line['seed']}, rotation {line.get('seating')})"
        problem = replay(line)
        if problem:
            yield f"{where}: {problem}"
        if line.get("forfeit") and (line["run"], line["seed"], line["forfeit"], tuple(line["table"])) not in failed:
            yield f"{where}: forfeited by {line['forfeit']} with no failure line"
        for label, cpu in zip(line["seats"], line.get("cpu_us", [])):
            budget = budgets[line["run"]].get(label)
            allowed = None if budget is None else move_limit(budget) * 1e6
            if allowed is not None and any(t > allowed for t in cpu) and not line.get("forfeit"):
                yield f"{where}: a move of {label} took {max(cpu) / 1e6:.3f} CPU s, over its budget of {budget} s"


def check_deals(record: Record) -> Iterator[str]:
    """The problems of whole deals: every rotation once, the same deals at every table from the run's offset
    without a gap, and forfeits only as a failure makes them (see the module docstring)."""
    deals: dict[tuple, list[dict]] = defaultdict(list)
    for line in record.games:
        deals[(line["run"], tuple(line["table"]), line["deal"])].append(line)
    failures = {(f["run"], tuple(f.get("table", ())), f["deal"]): f for f in record.failures}
    by_table: dict[tuple, set[int]] = defaultdict(set)
    for (run, table, deal), lines in deals.items():
        by_table[(run, table)].add(deal)
        where = f"run {run}, {' vs '.join(table)}, deal {deal}"
        rotations = sorted(line["seating"] for line in lines)
        if rotations != list(range(len(protocol_seatings(len(lines[0]["seats"]))))):
            yield f"{where}: rotations {rotations} were played, not each rotation once"
        yield from (f"{where}: {p}" for p in forfeit_problems(lines, failures.get((run, table, deal)), record, run))
    for run in record.runs:
        tables = {table: found for (name, table), found in by_table.items() if name == run["run"]}
        offset = run.get("deal_offset", min(map(min, tables.values()), default=0))
        planned = run.get("deals")  # absent from runs made before the header stored it
        for table, found in tables.items():
            if found != set(range(offset, offset + len(found))) or found != next(iter(tables.values())):
                yield f"run {run['run']}, {' vs '.join(table)}: its deals are not the run's, from its offset on"
            if planned is not None and len(found) != planned:
                yield f"run {run['run']}, {' vs '.join(table)}: {len(found)} deals played of the {planned} planned"


def forfeit_problems(lines: list[dict], failure: dict | None, record: Record, run: str) -> Iterator[str]:
    """What is wrong with a deal's forfeits (``lines``: its games) given its ``failure`` line."""
    forfeits = [line for line in lines if line.get("forfeit")]
    if not forfeits or failure is None:  # a forfeit without its failure is check_games's
        return
    label = failure["agent"]
    agents = next(r["agents"] for r in record.runs if r["run"] == run)
    if "sha256" not in agents.get(label, {}):
        yield f"forfeited by {label}, which is not an agent identified by its code (reference agents never fail)"
    if {line["seating"] for line in forfeits} != {
        line["seating"] for line in lines if line["seating"] >= failure["seating"]
    }:
        yield f"its forfeits are not the rotations from its failure's ({failure['seating']}) on"
    for line in forfeits:
        seats = line["seats"]
        if line["forfeit"] != label or line["scores"] != [0.0 if seat == label else 1.0 for seat in seats]:
            yield f"rotation {line['seating']}: not scored as {label}'s forfeit"
        elif line["winners"] != [i for i, seat in enumerate(seats) if seat != label]:
            yield f"rotation {line['seating']}: its winners are not those of {label}'s forfeit"


class _Replayed(Agent):
    """A seat of a game played again: the next stored action (``stored``, the game's log, shared by the seats);
    a reference agent (``inner``) must choose it itself, and a move that differs is noted in ``differ``."""

    def __init__(self, inner: Agent | None, label: str, stored: Iterator[int], differ: list[str]):
        self.inner, self.label, self.stored, self.differ = inner, label, stored, differ

    def reset(self) -> None:
        if self.inner is not None:
            self.inner.reset()

    def act(self, view) -> int:
        expected = next(self.stored)
        if self.inner is not None and (chosen := self.inner.act(view)) != expected and not self.differ:
            self.differ.append(f"{self.label} chose {chosen} where the record holds {expected}")
        return expected


def replay_agents(line: dict, run: dict) -> str | None:
    """Play ``line`` again with its reference agents rebuilt from their seeds (as the arena seeded them) and the
    other agents' stored moves: the first reference move that is not the stored one, or None."""
    game = envs.describe(line["game"]).make_from_json(line["config"])
    key = game_key(line["game"], dict(game.config()))  # as the arena keyed it (JSON turned Wapi's coin keys to text)
    stored, differ = iter(line["actions"]), []
    seats = []
    for seat, label in enumerate(line["seats"]):
        entry = run["agents"][label]
        spec = AgentSpec(label, entry["name"], tuple(sorted(entry["options"].items())))
        seed = agent_seed(0, line["seed"], line["seating"], seat)
        # the rated agent plays its stored moves: a user's code is not run here, a built-in one thinks on a clock
        rated = "sha256" in entry or label in run.get("budgets", {})
        seats.append(_Replayed(None if rated else build_agent(spec, key, seed), label, stored, differ))
    play_game(game, seats, seed=line["seed"])
    return differ[0] if differ else None


def check_agents(record: Record, count: int) -> Iterator[str]:
    """The reference agents' moves of ``count`` games drawn at random (``secrets``) among those played out."""
    runs = {run["run"]: run for run in record.runs}
    played = [line for line in record.games if not line.get("forfeit")]
    drawn = sorted(secrets.SystemRandom().sample(range(len(played)), min(count, len(played))))
    for number in drawn:
        line = played[number]
        problem = replay_agents(line, runs[line["run"]])
        if problem:
            yield f"{line['game']} seed {line['seed']}, rotation {line['seating']}: {problem}"


def verify(record: Record, replay_agents_count: int = 0) -> list[str]:
    """Every problem of ``record`` (see the module docstring); empty when it is accepted. ``replay_agents_count``:
    the games whose reference agents are played again (each as long as the game was to play)."""
    if not record.runs:
        return ["no run in the record"]
    problems = list(check_runs(record)) + list(check_goldens(record)) + list(check_games(record))
    problems += list(check_deals(record))
    return problems + (list(check_agents(record, replay_agents_count)) if not problems else [])
