"""Golden games and golden decisions: what an engine and a reference agent *do*, recorded once and replayed.

Why: an engine or an anchor identified by its source changes identity with every speed-up, although it plays
the same games; one identified by what it plays keeps its identity while it plays them (issue 61).

- **Golden games** (``benchmarks/schema/golden/games.json``): for every configuration of a game
  (:func:`benchmarks.core.protocol.configurations`), :data:`GAMES_PER_CONFIG` games dealt from seeds 0, 1, 2 (as
  ``env().reset(seed)`` deals them) and played by random legal moves from a seeded generator (of numpy only, so
  that no agent's code enters an engine's identity). Each holds its actions, the player to act and the number of
  legal actions at every step, a digest of the observations the players to act saw (exact encodings, which the
  differential tests compare exactly too), and the final scores and winners. :func:`replay_games` plays them on
  this checkout's per-game engine *and* its batched engine (:func:`envs.core.batch.batch_games`, all of a
  configuration's games in one batch).
- **Golden decisions** (``benchmarks/schema/golden/decisions.json``): each *witness* (a ladder rung, and an
  ε-greedy heuristic for the ε-greedy levels) chooses a move at positions of the golden games, one fresh agent
  seeded with :data:`AGENT_SEED` per configuration, each position's view drawn by a generator of its step. Cheap
  witnesses answer at every position of a configuration's first game; a search at a few, spread along it
  (:data:`SEARCH_POSITIONS`), since a ``best-1000`` move takes a second or more. :func:`replay_decisions` asks again.

A witness whose decisions come back the same plays as it did when they were recorded (on those positions);
:mod:`benchmarks.core.anchors` makes the digests of these files the identities of engines and anchors.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

import envs
from benchmarks.core.protocol import LADDERS, configurations

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "benchmarks" / "schema" / "golden"
GAMES_FILE = FOLDER / "games.json"
DECISIONS_FILE = FOLDER / "decisions.json"
#: Golden games per configuration, dealt from seeds 0 .. GAMES_PER_CONFIG - 1 (one batch replays them).
GAMES_PER_CONFIG = 3
#: The seed of every witness's agent (one fresh agent per configuration).
AGENT_SEED = 61
#: The witnesses beyond the ladders' rungs: label -> (name, options). The levels' ε-greedy heuristics wrap it.
EXTRA_WITNESSES = {"heuristic~0.3": ("heuristic~0.3", ())}
#: The witnesses asked at every position of a configuration's first golden game (milliseconds a move).
EVERY_POSITION = ("random", "heuristic", "heuristic~0.3", "trained")
#: How many positions a search is asked at per configuration, by its iterations (a 1000-iteration move takes a
#: second or more); searches of other budgets are asked at ``DEFAULT_SEARCH_POSITIONS``.
SEARCH_POSITIONS = {1000: 1}
DEFAULT_SEARCH_POSITIONS = 3


def witnesses() -> dict[str, tuple[str, tuple]]:
    """Every witness: label -> (agent name, options); the rungs of every ladder and :data:`EXTRA_WITNESSES`."""
    rungs = {rung.label: (rung.name, rung.options) for ladder in LADDERS.values() for rung in ladder.rungs}
    return dict(sorted((rungs | EXTRA_WITNESSES).items()))


def digest(value: Any) -> str:
    """The sha256 of ``value`` as canonical JSON."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@functools.cache
def _game(name: str, config_json: str):
    return envs.describe(name).make(**json.loads(config_json))


def game_of(name: str, config: dict):
    """The configured game (built once per process)."""
    return _game(name, json.dumps(config, sort_keys=True))


def _observed(hasher, observation: np.ndarray) -> None:
    hasher.update(np.ascontiguousarray(observation, dtype=np.float32).tobytes())


def _play(name: str, config: dict, seed: int, choose) -> dict:
    """The deal of ``seed`` played on the per-game engine by ``choose(step, legal actions)`` (an action, or None
    to stop), kept as a golden game keeps it."""
    from envs.core.batch import new_game

    state, seen = new_game(game_of(name, config), seed), hashlib.sha256()
    played = {"config": config, "seed": seed, "actions": [], "players": [], "legal": []}
    while state.current_player is not None:
        options = sorted(state.legal_actions())
        action = choose(len(played["actions"]), options)
        if action is None:
            break
        played["players"].append(state.current_player)
        played["legal"].append(len(options))
        _observed(seen, state.observation(state.current_player))
        state.apply(action)
        played["actions"].append(int(action))
    over = state.current_player is None
    return played | {"observations": seen.hexdigest()[:32],
                     "scores": [float(x) for x in state.scores()] if over else None,
                     "winners": [int(w) for w in state.winners()] if over else None}  # fmt: skip


def play_random(name: str, config: dict, seed: int) -> dict:
    """A golden game: the deal of ``seed`` played by random legal moves of a generator of ``seed``."""
    rng = np.random.default_rng([seed, 61])
    return _play(name, config, seed, lambda step, options: options[rng.integers(len(options))])


def record_games(name: str) -> list[dict]:
    """The golden games of every configuration of game ``name``."""
    return [play_random(name, config, seed) for _, config in configurations([name]) for seed in range(GAMES_PER_CONFIG)]


def _replay_one(name: str, golden: dict) -> dict:
    """A golden game played again on the per-game engine from its stored actions."""
    stored = golden["actions"]
    return _play(name, golden["config"], golden["seed"], lambda step, _: stored[step] if step < len(stored) else None)


def _replay_batch(name: str, goldens: list[dict]) -> list[dict]:
    """A configuration's golden games (seeds 0, 1, ...) played again together on the batched engine."""
    from envs.core.batch import batch_games

    batch = batch_games(game_of(name, goldens[0]["config"]), len(goldens), goldens[0]["seed"])
    out = [{"actions": [], "players": [], "legal": [], "observations": hashlib.sha256()} for _ in goldens]
    for step in range(max(len(g["actions"]) for g in goldens)):
        going = ~batch.terminated & np.array([step < len(g["actions"]) for g in goldens])
        players, mask, seen = batch.current_player, batch.legal_mask(), batch.observe()
        actions = np.zeros(len(goldens), dtype=np.int64)
        for i in np.flatnonzero(going):
            actions[i] = goldens[i]["actions"][step]
            out[i]["actions"].append(int(actions[i]))
            out[i]["players"].append(int(players[i]))
            out[i]["legal"].append(int(mask[i].sum()))
            _observed(out[i]["observations"], seen[i])
        batch.step_where(actions, going)
    scores, winners, over = batch.scores(), batch.winners(), batch.terminated
    for i, entry in enumerate(out):
        entry["observations"] = entry["observations"].hexdigest()[:32]
        entry["scores"] = [float(x) for x in scores[i]] if over[i] else None
        entry["winners"] = np.flatnonzero(winners[i]).tolist() if over[i] else None
    return out


def _differences(golden: dict, played: dict, engine: str) -> list[str]:
    where = f"{engine} engine, config {golden['config']} seed {golden['seed']}"
    return [f"{where}: its {key} differ from the golden game's" for key in played if played[key] != golden[key]]


def replay_games(name: str, goldens: list[dict]) -> list[str]:
    """What differs when this checkout's per-game and batched engines play the golden games of ``name`` again
    (empty: the engine plays them as recorded). An illegal stored action is a difference too."""
    from envs.core.engine import IllegalActionError

    expected = {(json.dumps(config, sort_keys=True), seed) for _, config in configurations([name])
                for seed in range(GAMES_PER_CONFIG)}  # fmt: skip
    stored = {(json.dumps(g["config"], sort_keys=True), g["seed"]) for g in goldens}
    problems = [f"no golden game of config {key[0]} seed {key[1]}" for key in sorted(expected - stored)]
    by_config = {}
    for golden in goldens:
        by_config.setdefault(json.dumps(golden["config"], sort_keys=True), []).append(golden)
        try:
            problems += _differences(golden, _replay_one(name, golden), "per-game")
        except IllegalActionError as error:
            problems.append(f"per-game engine, config {golden['config']} seed {golden['seed']}: {error}")
    for group in by_config.values():
        try:
            problems += [p for g, b in zip(group, _replay_batch(name, group)) for p in _differences(g, b, "batched")]
        except IllegalActionError as error:
            problems.append(f"batched engine, config {group[0]['config']}: {error}")
    return problems


def positions(label: str, golden: dict) -> list[int]:
    """The steps of a golden game at which witness ``label`` is asked: every one for a cheap witness
    (:data:`EVERY_POSITION`), else a few spread over those with a choice."""
    if label in EVERY_POSITION:
        return list(range(len(golden["actions"])))
    choices = [step for step, legal in enumerate(golden["legal"]) if legal > 1]  # a forced move shows nothing
    iterations = dict(witnesses()[label][1]).get("iterations", 0)
    count = SEARCH_POSITIONS.get(iterations, DEFAULT_SEARCH_POSITIONS)
    return sorted({choices[len(choices) * (k + 1) // (count + 1)] for k in range(count)})


def applies(label: str, name: str, config: dict) -> bool:
    """Whether witness ``label`` exists in a configuration (a rung's :meth:`~benchmarks.core.protocol.Rung.applies`)."""
    rung = next((r for ladder in LADDERS.values() for r in ladder.rungs if r.label == label), None)
    return rung is None or rung.applies(game_of(name, config))


def decide(label: str, name: str, golden: dict, steps: list[int]) -> list[int]:
    """Witness ``label``'s moves at ``steps`` of a golden game (one agent of seed :data:`AGENT_SEED`, asked in
    order; each position's view drawn by a generator of its step)."""
    from agents.protocol import PlayerView
    from benchmarks.core.matches import AgentSpec, build_agent, game_key
    from envs.core.batch import new_game

    game = game_of(name, golden["config"])
    agent_name, options = witnesses()[label]
    agent = build_agent(AgentSpec(label, agent_name, options), game_key(name, dict(game.config())), AGENT_SEED)
    agent.reset()
    state, chosen, wanted = new_game(game, golden["seed"]), [], set(steps)
    for step, action in enumerate(golden["actions"][: max(steps) + 1]):
        if step in wanted:
            chosen.append(int(agent.act(PlayerView(state, np.random.default_rng([golden["seed"], step])))))
        state.apply(action)
    return chosen


def record_decisions(label: str, name: str, goldens: list[dict]) -> list[dict]:
    """Witness ``label``'s golden decisions in game ``name``: at :func:`positions` of each configuration's first
    golden game (where the witness applies)."""
    firsts = [g for g in goldens if g["seed"] == 0 and applies(label, name, g["config"])]
    out = []
    for golden in firsts:
        steps = positions(label, golden)
        out.append({"config": golden["config"], "seed": golden["seed"], "steps": steps,
                    "actions": decide(label, name, golden, steps)})  # fmt: skip
    return out


def replay_decisions(label: str, name: str, goldens: list[dict], decisions: list[dict]) -> list[str]:
    """Where witness ``label`` now chooses otherwise than its golden decisions in game ``name`` (empty: as
    recorded)."""
    by_key = {(json.dumps(g["config"], sort_keys=True), g["seed"]): g for g in goldens}
    expected = {k for k, g in by_key.items() if g["seed"] == 0 and applies(label, name, g["config"])}
    stored = {(json.dumps(e["config"], sort_keys=True), e["seed"]) for e in decisions}
    problems = [f"{label} in {name}: no golden decisions in config {key[0]}" for key in sorted(expected - stored)]
    for entry in decisions:
        if (json.dumps(entry["config"], sort_keys=True), entry["seed"]) not in by_key:
            problems.append(f"{label} in {name} {entry['config']}: its golden game is gone")
            continue
        golden = by_key[(json.dumps(entry["config"], sort_keys=True), entry["seed"])]
        chosen = decide(label, name, golden, entry["steps"])
        if chosen != entry["actions"]:
            step = next(s for s, a, b in zip(entry["steps"], chosen, entry["actions"]) if a != b)
            problems.append(f"{label} in {name} {entry['config']}, seed {entry['seed']}: another move at step {step}")
    return problems


def load(path: Path) -> dict:
    """A committed golden file ({} when there is none yet)."""
    return json.loads(path.read_text()) if path.is_file() else {}


def _lines(value: Any, indent: int) -> str:
    """``value`` as JSON with one golden entry (a dict in a list) a line, so that a re-recorded entry is a line of
    the diff."""
    pad = " " * indent
    if isinstance(value, dict) and value and all(isinstance(v, (dict, list)) for v in value.values()):
        items = [f"{pad} {json.dumps(k)}: {_lines(v, indent + 1)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = [f"{pad} {json.dumps(v, sort_keys=True, separators=(',', ':'))}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def save(path: Path, value: dict) -> None:
    """Write a golden file (:func:`_lines`' layout)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(value, 0) + "\n")
