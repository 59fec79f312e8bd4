"""Where the batched side's time goes: the vector env's step and MaskablePPO's learning, split by part.

Why: issue 51's targets (the vector env 20x ``env()``, MaskablePPO on the SB3 adapter 3x the single-agent
view) did not move after two attempts, and the project's rule is then to measure why: what each part
costs, and the ceiling it puts on the ratio. ``benchmarks.batch`` adds these tables to its report.

- **vector env**: one burst of :class:`benchmarks.batch.VectorRunner` (1,024 games, random opponents, a random
  learner move), the batch engine's methods and the opponents' policy wrapped in clocks that keep each
  call's own CPU time (a nested clocked call's time is its own part's). The parts: the engine's moves
  (``step``, ``step_where``: the learner's move and every opponents' pass), the random opponents' fused moves
  (``play_kth_legal``: legality, choice and move in one call, each pass of an engine that fuses them; and
  ``play_random_opponents``, every pass in one call, whose passes are then not counted: nan),
  legality (``legal_mask``, ``check_actions``), dealing (``reset_done``: new games from their seeds),
  observations, rewards and scores, the opponents' policy, and the rest (the vector env's own Python and the
  learner's choice).
  Its ceiling: the ratio if everything but the engine's moves (fused ones included) and dealing were free.
- **MaskablePPO**: one burst of :class:`benchmarks.batch.LearnerRunner` on each env, clocked in the env's
  ``step`` and mask reads (``env_method``, ``action_masks``), the rollout (``collect_rollouts``, less the
  env) and the update (``train``). With ``f`` the env's share of the reference run (the SB3 rows' other side), no env,
  however fast, can make that run more than ``1 / (1 - f)`` times faster (Amdahl's law).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict

#: The vector env's parts: the batch engine's methods, by part (the opponents' policy is clocked apart).
ENGINE_PARTS = {
    "engine moves": ("step", "step_where"),
    "opponents' fused moves": ("play_kth_legal",),
    "opponents' turns in one call": ("play_random_opponents",),
    "legality": ("legal_mask", "legal_mask_where", "check_actions"),
    "dealing": ("reset_done",),
    "observations": ("observe", "observe_rows"),
    "rewards and scores": ("rewards", "scores", "winners"),
}


class Clock:
    """The CPU time spent in wrapped callables, by part: each call's own time, less its clocked inner calls."""

    def __init__(self):
        self.spent: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._inner: list[float] = []

    def wrap(self, part: str, function):
        def clocked(*args, **kwargs):
            start = time.process_time()
            self._inner.append(0.0)
            try:
                return function(*args, **kwargs)
            finally:
                total, inner = time.process_time() - start, self._inner.pop()
                self.spent[part] += total - inner
                self.calls[part] += 1
                if self._inner:
                    self._inner[-1] += total

        return clocked


def clock_methods(target, parts: dict[str, tuple[str, ...]], clock: Clock) -> None:
    """Replace ``target``'s methods named in ``parts`` by clocked ones (on this object only)."""
    for part, names in parts.items():
        for name in names:
            if hasattr(target, name):
                setattr(target, name, clock.wrap(part, getattr(target, name)))


def vector_shares(runner, seconds: float) -> dict:
    """One clocked burst of a :class:`benchmarks.batch.VectorRunner`: each part's share of the time, the
    opponents' passes per learner step, and the ceiling's factor (the time over the engine's moves and dealing)."""
    clock = Clock()
    clock_methods(runner.env.batch, ENGINE_PARTS, clock)
    runner.env.opponent = clock.wrap("opponents' policy", runner.env.opponent)
    steps, games, elapsed = runner.burst(seconds)
    shares = {part: clock.spent[part] / elapsed for part in [*ENGINE_PARTS, "opponents' policy"]}
    shares["the rest"] = 1.0 - sum(shares.values())
    learner_steps = steps / runner.env.num_envs
    moves = clock.calls["engine moves"] + clock.calls["opponents' fused moves"]
    passes = moves / learner_steps - 1  # each step: the learner's move, then passes
    if clock.calls["opponents' turns in one call"]:
        passes = float("nan")  # every pass inside one engine call: not counted from here
    fused = ("opponents' fused moves", "opponents' turns in one call")
    moving = shares["engine moves"] + sum(shares[part] for part in fused)  # their legality counts as moves
    return {"shares": shares, "passes": passes, "ceiling": 1 / (moving + shares["dealing"])}


def learner_shares(runner) -> dict[str, float]:
    """One clocked rollout-and-update of a :class:`benchmarks.batch.LearnerRunner`: the env's share (its steps
    and mask reads), the rest of the rollout's (the policy's forward passes, the buffer) and the update's."""
    model, clock = runner.model, Clock()
    clock_methods(model.env, {"env": ("step", "env_method", "action_masks")}, clock)
    clock_methods(model, {"rollout": ("collect_rollouts",), "update": ("train",)}, clock)
    start = time.process_time()
    model.learn(runner.rollout, reset_num_timesteps=False)
    elapsed = time.process_time() - start
    shares = {part: clock.spent[part] / elapsed for part in ("env", "rollout", "update")}
    shares["other"] = 1.0 - sum(shares.values())
    return shares


#: The row of ``benchmarks.batch`` whose step is split by part.
VECTOR_ROW = "vector env, random opponents"


def vector_table(results: dict[str, dict]) -> list[str]:
    """The vector env's parts by game (``results``: game label -> :func:`vector_shares` with the measured
    ``ratio`` to ``env()``), and the ratio's ceiling were everything but the engine's moves and dealing free."""
    parts = list(next(iter(results.values()))["shares"])
    lines = [
        "| game | " + " | ".join(parts) + " | opponents' passes per learner step | vector env / env() "
        "| ceiling: only moves and dealing cost |",
        "|---|" + "---:|" * (len(parts) + 3),
    ]
    for game, result in results.items():
        shares = " | ".join(f"{result['shares'][part]:.0%}" for part in parts)
        ratio = result["ratio"]
        passes = "in one call" if math.isnan(result["passes"]) else f"{result['passes']:.1f}"
        lines.append(f"| {game} | {shares} | {passes} | {ratio:.1f} | {ratio * result['ceiling']:.1f} |")
    return lines


def breakdown(rows: list[dict]) -> list[str]:
    """The report's section on where the time goes, from ``benchmarks.batch``'s rows that carry ``shares``."""
    vector = {
        r["game"]: {**r["shares"], "ratio": r["ratio"]} for r in rows if r["what"] == VECTOR_ROW and "shares" in r
    }
    learner = {r["game"]: r["shares"] for r in rows if "shares" in r and r["what"].startswith("MaskablePPO")}
    lines = ["", "## Where the time goes", ""]
    if vector:
        lines += [
            "The vector env's step, one clocked burst per game (`benchmarks/batch_time.py`): each part's share of the "
            "CPU time. Its ceiling is the ratio were everything but the engine's moves and dealing free. Random "
            "opponents move in passes over the games still waiting; an engine may play a pass, or all of a learner "
            "step's passes, in one compiled call (the fused parts; the passes are then not counted from here).",
            "",
            *vector_table(vector),
        ]
    if learner:
        lines += [
            "",
            "MaskablePPO, one clocked rollout and update on each env at train.py's settings: the env's share "
            "(its steps and mask reads), the rollout's own (the policy's forward passes, the buffer) and the "
            "update's. With f the env's share of the reference run (the SB3 rows' other side), no env can make "
            "that run more than 1 / (1 - f) times faster (Amdahl's law): the ceiling of "
            "the SB3 rows' MaskablePPO ratio.",
            "",
            *learner_table(learner),
        ]
    return lines


def learner_table(results: dict[str, dict[str, dict]]) -> list[str]:
    """MaskablePPO's parts by game and env (``results``: game -> env -> :func:`learner_shares`), with the
    Amdahl ceiling of the reference run."""
    lines = [
        "| game | env | env step and masks | rollout (forward passes, buffer) | update | other "
        "| most speed-up from a faster env, 1 / (1 - env share) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for game, by_env in results.items():
        for env, shares in by_env.items():
            ceiling = 1 / (1 - shares["env"])
            lines.append(
                f"| {game} | {env} | {shares['env']:.0%} | {shares['rollout']:.0%} | {shares['update']:.0%} "
                f"| {shares['other']:.0%} | {ceiling:.2f} |"
            )
    return lines


__all__ = ["Clock", "breakdown", "clock_methods", "learner_shares", "learner_table", "vector_shares", "vector_table"]
