"""A training run's report: the learning curve (PNG) and the final win-rate table (markdown)."""

from __future__ import annotations

from typing import Any


def plot_curve(curve: list[dict[str, Any]], path: str, title: str = "") -> None:
    """Evaluation win rate (with its 95% interval) against learner timesteps, one line per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    names = [k for k in (curve[0] if curve else {}) if k != "timesteps"]
    for name in names:
        xs = [p["timesteps"] for p in curve]
        ax.plot(xs, [p[name]["win_rate"] for p in curve], marker="o", label=f"vs {name}")
        ax.fill_between(xs, [p[name]["ci_low"] for p in curve], [p[name]["ci_high"] for p in curve], alpha=0.2)
    ax.set(xlabel="learner timesteps", ylabel="evaluation win rate", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def time_shares(seconds: dict[str, float]) -> tuple[float, float, float]:
    """Shares of the training time (``results["seconds"]``): stepping the games, the learner's own
    moves and bookkeeping (the rest of the rollouts), PPO's updates."""
    spent = seconds["rollouts"] + seconds["updates"]
    return seconds["games"] / spent, (seconds["rollouts"] - seconds["games"]) / spent, seconds["updates"] / spent


def results_table(results: dict[str, Any]) -> str:
    """The final win-rate table (markdown), with the run's speed and warm start."""
    lines = [
        f"{results['game']} {results['config']}: {results['timesteps']} timesteps, trained in "
        f"{results['train_seconds']:.0f} s ({results['steps_per_second']:.0f} learner steps/s; best model at "
        f"{results['best_at_timesteps']} timesteps)"
    ]
    if results.get("seconds") and sum(results["seconds"].values()):
        games, learner, updates = time_shares(results["seconds"])
        lines.append(
            f"training time: {games:.0%} stepping the games (opponents' moves included), {learner:.0%} the "
            f"learner's moves, snapshots and evaluations, {updates:.0%} PPO updates"
        )
    if results.get("warm_start"):
        lines.append(warm_start_line(results["warm_start"]))
    lines += ["", "| opponent | games | win rate | 95% CI |", "|---|---|---|---|"]
    for row in results["final"]:
        lines.append(
            f"| {row['opponent']} | {row['games']} | {row['win_rate']:.1%} | "
            f"{row['ci_low']:.1%} – {row['ci_high']:.1%} |"
        )
    return "\n".join(lines)


def warm_start_line(warm: dict[str, Any]) -> str:
    """What the warm start did, in one line (``rollouts``: also the fit's gain over the heuristic; a
    network started from a model, ``--init-model``, is only fit)."""
    parts = []
    if "train_moves" in warm:
        teacher = "heuristic" if warm["agent"] == "rollouts" else warm["agent"]
        parts.append(
            f"{teacher} imitated on {warm['train_moves']} moves, held-out move accuracy {warm['held_out_accuracy']:.1%}"
        )
    if "rollouts" in warm:
        fit = warm["rollouts"]
        parts.append(
            f"fit to {fit['measured_positions']} positions' move values ({fit['samples']} paired samples each): "
            f"held-out gain per decision over the heuristic's move {fit['held_out_gain_before']:+.4f} -> "
            f"{fit['held_out_gain']:+.4f}"
        )
    return f"warm start ({warm['seconds']:.0f} s): " + "; then ".join(parts)


def write_report(results: dict[str, Any], out: str, note: str = "") -> str:
    """``results.json``, ``results.md`` (the table, then ``note``) and ``learning_curve.png`` in ``out``;
    returns the markdown, which the run prints."""
    import json
    import os

    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    table = results_table(results) + note
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table + "\n")
    plot_curve(results["curve"], os.path.join(out, "learning_curve.png"), title=results["run_name"])
    return table
