"""The generations of expert iteration: self-play, fit, gate, log, save (resumable after each generation).

A generation plays ``games`` self-play games with the best network's guided
search, fits a copy of that network to the last ``replay`` generations'
records, and gates the copy: its search against the best network's on fixed
deals (the same deals at every gate), the candidate in every seat in turn.
It becomes the best only if it takes more than its fair share of the wins
(more than half, with two players). Every candidate is kept in ``models/``;
``model.zip`` is the best so far.

``state.json`` (written atomically after each generation) records where the
run is; ``--resume`` continues from there and plays exactly the games the
run would have played uninterrupted (games and fits are seeded by the run's
seed and the generation's number).
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from parallel.pool import chunks, parallel_map
from training.expert_iteration.learn import fit, load_records, merge, save_records
from training.expert_iteration.selfplay import play_gate, play_selfplay
from training.expert_iteration.settings import Settings, copy_model, elapsed, write_json
from training.win_rates import wilson_interval


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def run(settings: Settings, game, out: Path, command: str) -> dict[str, Any]:
    """Run (or continue) the generations; returns the final state (history and best model)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(1)
    (out / "models").mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    if settings.resume:
        import json

        state = json.loads((out / "state.json").read_text())
        print(f"resuming {out} after generation {state['generation']} (best: {state['best']})", flush=True)
    else:
        write_json(out / "settings.json", {k: v for k, v in dataclasses.asdict(settings).items() if k != "resume"})
        state = {
            "generation": 0,
            "best": "models/gen_000.zip",
            "history": [first_network(settings, game, out, command)],
        }
        write_json(out / "state.json", state)
    copy_model(out / state["best"], out / "model.zip")
    writer = SummaryWriter(str(out / "tb"))
    try:
        for generation in range(state["generation"] + 1, settings.generations + 1):
            row = one_generation(settings, game, out, generation, out / state["best"], command)
            if row["kept"]:
                state["best"] = row["model"]
                copy_model(out / row["model"], out / "model.zip")
            state["generation"] = generation
            state["history"].append(row)
            write_json(out / "state.json", state)
            log(writer, row)
            print(summary_line(row), flush=True)
    finally:
        writer.close()
    (out / "results.md").write_text(results_table(state, command))
    print(
        f"best network: {out / 'model.zip'} (from {state['best']}); play it with "
        f"make_agent('ismcts', game, network='ppo:{out / 'model.zip'}')",
        flush=True,
    )
    return state


def first_network(settings: Settings, game, out: Path, command: str) -> dict[str, Any]:
    """Generation 0: a heuristic-cloned fresh network, or a copy of ``--start``, saved as ``models/gen_000.zip``."""
    from agents.models.card import make_card
    from agents.models.network import load_network, network_from_policy
    from training.network import new_network, save_network
    from training.train_command import chosen_network

    started = time.time()
    training = {"expert_iteration": {"generation": 0, "start": settings.start}}
    if settings.start == "heuristic":
        from training.imitation import warm_start
        from training.settings import game_training

        defaults = game_training(game.name)
        description = chosen_network(defaults["network"], defaults["net_arch"], defaults["shared_layers"])
        import torch

        torch.manual_seed(settings.seed)
        network = new_network(game, description, command, "win", training)
        report = warm_start(
            network,
            game,
            "heuristic",
            settings.warm_start_games,
            seed=_seed(settings.seed, 0, 1),
            reward="win",
            processes=settings.processes,
            epochs=10,
            samples=defaults["warm_start_samples"],
        )
        training["expert_iteration"]["warm_start"] = report
        print(
            f"generation 0: the heuristic cloned from {report['train_moves']} moves, held-out accuracy "
            f"{report['held_out_accuracy']:.1%} ({report['seconds']:.0f} s)",
            flush=True,
        )
    else:
        network = load_network(settings.start, game)
    card = make_card(game, network.card["network"], command, "win", training)
    save_network(network_from_policy(network.module, card), str(out / "models" / "gen_000.zip"))
    return {"generation": 0, "model": "models/gen_000.zip", "kept": True, "seconds": elapsed(started)}


def one_generation(settings: Settings, game, out: Path, generation: int, best: Path, command: str) -> dict[str, Any]:
    """Self-play with ``best``, fit a copy, gate it; returns the generation's row of the history."""
    from agents.models.card import make_card
    from agents.models.network import load_network, network_from_policy
    from training.network import save_network

    started = time.time()
    n = game.num_players
    records = self_play(settings, game, best, generation)
    save_records(records, out / "data" / f"gen_{generation:03d}.npz")
    played = time.time()
    # --- fit a copy of the best network -------------------------------------------------------------
    first = max(1, generation - settings.replay + 1)
    data = load_records([out / "data" / f"gen_{g:03d}.npz" for g in range(first, generation + 1)])
    network = load_network(str(best), game)
    report = fit(
        network,
        data,
        settings.epochs,
        settings.batch_size,
        settings.learning_rate,
        settings.value_weight,
        seed=_seed(settings.seed, generation, 2),
        search_value_weight=settings.search_value_weight,
    )
    model = f"models/gen_{generation:03d}.zip"
    training = {
        "expert_iteration": {
            "generation": generation,
            "parent": best.name,
            "fit": report,
            "positions": int(len(data["values"])),
        }
    }
    save_network(
        network_from_policy(network.module, make_card(game, network.card["network"], command, "win", training)),
        str(out / model),
    )
    fitted = time.time()
    shares = gate(settings, game, out / model, best, generation)
    rate = sum(shares) / len(shares)
    low, high = wilson_interval(sum(shares), len(shares))
    return {
        "generation": generation,
        "model": model,
        "positions": int(len(records["values"])),
        "selfplay_games": settings.games,
        "fit": report,
        "gate_games": len(shares),
        "gate_win_rate": rate,
        "gate_ci": [low, high],
        "kept": rate > 1 / n,
        "seconds": elapsed(started),
        "selfplay_seconds": round(played - started, 1),
        "fit_seconds": round(fitted - played, 1),
    }


def self_play(settings: Settings, game, best: Path, generation: int) -> dict[str, Any]:
    """The generation's self-play games with ``best``'s guided search, in worker processes: their records."""
    games = [(_seed(settings.seed, generation, i), generation * 1_000_000 + i) for i in range(settings.games)]
    search = settings.search(settings.iterations)
    tasks = [
        (game.name, game.config(), str(best), search, chunk, settings.explore_moves, "win")
        for chunk in chunks(games, settings.processes)
    ]
    return merge(_run(play_selfplay, tasks, settings, f"generation {generation}: self-play"))


def gate(settings: Settings, game, candidate: Path, best: Path, generation: int) -> list[float]:
    """The candidate's search against the best's on fixed deals (the same at every gate), the candidate in
    every seat in turn: its share of each game's win."""
    n = game.num_players
    deals = [
        (_seed(settings.seed, 999_999, d), seat) for d in range(math.ceil(settings.gate_games / n)) for seat in range(n)
    ]
    tasks = [
        (game.name, game.config(), str(candidate), str(best), settings.search(settings.gate_iterations), chunk)
        for chunk in chunks(deals, settings.processes)
    ]
    return [s for part in _run(play_gate, tasks, settings, f"generation {generation}: gate") for s in part]


def _run(work, tasks: list[tuple], settings: Settings, description: str) -> list:
    return parallel_map(work, tasks, settings.processes, progress=settings.progress_bar, desc=description)


def log(writer, row: dict[str, Any]) -> None:
    """TensorBoard: the fit's losses and agreement, the gate's win rate, whether the generation was kept."""
    step = row["generation"]
    for key, value in row["fit"].items():
        if isinstance(value, float) and math.isfinite(value):
            writer.add_scalar(f"fit/{key}", value, step)
    writer.add_scalar("gate/win_rate", row["gate_win_rate"], step)
    writer.add_scalar("gate/kept", float(row["kept"]), step)
    writer.add_scalar("selfplay/positions", row["positions"], step)
    writer.add_scalar("time/generation_seconds", row["seconds"], step)
    writer.flush()


def summary_line(row: dict[str, Any]) -> str:
    fit_report = row["fit"]
    return (
        f"generation {row['generation']}: {row['positions']} positions; held-out policy loss "
        f"{fit_report['held_out_policy_loss_before']:.3f} -> {fit_report['held_out_policy_loss']:.3f}, value loss "
        f"{fit_report['held_out_value_loss_before']:.3f} -> {fit_report['held_out_value_loss']:.3f}, agreement "
        f"{fit_report['held_out_agreement']:.1%}; gate {row['gate_win_rate']:.1%} [{row['gate_ci'][0]:.1%}, "
        f"{row['gate_ci'][1]:.1%}] over {row['gate_games']} games: {'kept' if row['kept'] else 'dropped'} "
        f"({row['seconds']:.0f} s)"
    )


def results_table(state: dict[str, Any], command: str) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        f"Best network: `{state['best']}` (copied to `model.zip`)",
        "",
        "| generation | positions | held-out policy loss (before -> after) | held-out value loss | "
        "agreement with the search | gate win rate [95% CI] | kept | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in state["history"][1:]:
        f = row["fit"]
        lines.append(
            f"| {row['generation']} | {row['positions']} | {f['held_out_policy_loss_before']:.3f} -> "
            f"{f['held_out_policy_loss']:.3f} | {f['held_out_value_loss_before']:.3f} -> "
            f"{f['held_out_value_loss']:.3f} | {f['held_out_agreement']:.1%} | {row['gate_win_rate']:.1%} "
            f"[{row['gate_ci'][0]:.1%}, {row['gate_ci'][1]:.1%}] | {'yes' if row['kept'] else 'no'} | "
            f"{row['seconds']:.0f} |"
        )
    return "\n".join(lines) + "\n"
