"""The generations of a distillation run: the teacher's games, the fit, the gate, the learning curve, the card.

A generation plays ``games`` teacher games (:mod:`.selfplay`), written in shards of
``shard_games`` games as they finish; fits a copy of the best network so far to the last
``replay`` generations' shards; and gates the copy on fixed tuning deals (the same at every gate), the
new one in every seat in turn: ``--gate network``, the network alone against the best network alone,
kept only with more than its fair share of the wins; ``--gate heuristic``, the network alone against
the heuristic(s), kept only with a larger share than the best network had on the same deals. Each
generation's network also plays the heuristic(s) alone on other fixed deals: the run's
learning curve. Every candidate is kept in ``models/``; ``model.zip`` is the best so far.

``state.json`` (written atomically after each generation) records where the run is; the
shards of an unfinished generation stay on disk, so ``--resume`` plays only the games still
missing, and exactly those the run would have played uninterrupted (games and fits are seeded
by the run's seed and the generation's number). ``card.md`` is the run's card: the command,
the settings, the data, the CPU-hours and the learning curve.
"""

from __future__ import annotations

import dataclasses
import math
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from parallel.pool import LocalBackend, RayBackend, chunks
from training.distill.learn import fit, load_records, save_records, shard_cpu_seconds
from training.distill.selfplay import play_match, play_selfplay
from training.distill.settings import STUDENT_NETWORKS, TRANSFER, Settings, copy_model, elapsed, write_json
from training.win_rates import wilson_interval

#: A teacher game's id is ``generation * GAME_IDS + i`` (the fit holds out whole games by it).
GAME_IDS = 1_000_000
#: Fixed streams of deals (tuning set: 32-bit seeds) of the gate and of the heuristic matches.
GATE_DEALS, HEURISTIC_DEALS = 999_999, 888_888


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def run(settings: Settings, game, out: Path, command: str) -> dict[str, Any]:
    """Run (or continue) the generations; returns the final state (history and best model)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(1)
    (out / "models").mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    writer = SummaryWriter(str(out / "tb"))
    with make_backend(settings) as backend:
        if settings.resume:
            import json

            state = json.loads((out / "state.json").read_text())
            print(f"resuming {out} after generation {state['generation']} (best: {state['best']})", flush=True)
        else:
            write_json(out / "settings.json", {k: v for k, v in dataclasses.asdict(settings).items() if k != "resume"})
            first = first_network(settings, game, out, command, backend)
            state = {"generation": 0, "best": first["model"], "history": [first]}
            write_json(out / "state.json", state)
            log(writer, first)
        copy_model(out / state["best"], out / "model.zip")
        try:
            for generation in range(state["generation"] + 1, settings.generations + 1):
                row = one_generation(settings, game, out, generation, state, command, backend)
                if row["kept"]:
                    state["best"] = row["model"]
                    copy_model(out / row["model"], out / "model.zip")
                state["generation"] = generation
                state["history"].append(row)
                write_json(out / "state.json", state)
                log(writer, row)
                print(summary_line(row), flush=True)
                (out / "card.md").write_text(run_card(state, settings, command))
        finally:
            writer.close()
    (out / "card.md").write_text(run_card(state, settings, command))
    print(f"best network: {out / 'model.zip'} (from {state['best']}); play it with make_agent('ppo:PATH', game)")
    return state


def make_backend(settings: Settings) -> LocalBackend | RayBackend:
    """Where the games are played: ``--processes`` processes here, or Ray (``--ray-address``)."""
    if settings.backend == "ray":
        return RayBackend(settings.ray_address or None)
    return LocalBackend(settings.processes)


def cpu_of_children() -> float:
    """CPU seconds of this process's finished child processes (the warm start's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_network(settings: Settings, game, out: Path, command: str, backend) -> dict[str, Any]:
    """Generation 0: a fresh network cloned from the heuristic, or a copy of ``--start``, saved as
    ``models/gen_000.zip``, and its share against the heuristic."""
    from agents.models.network import load_network

    started, cpu, children = time.time(), time.process_time(), cpu_of_children()
    training: dict[str, Any] = {"run": out.name, "generation": 0, "start": settings.start}
    if settings.start == "heuristic":
        network = cloned_heuristic(settings, game, command, training)
    elif settings.start.startswith(TRANSFER):
        from training.network import transferred_network

        network = transferred_network(settings.start.removeprefix(TRANSFER), game, command)
    else:
        network = load_network(settings.start, game)
    model = "models/gen_000.zip"
    cpu_seconds = time.process_time() - cpu + cpu_of_children() - children
    save(network, game, out / model, command, {**training, "cpu_hours": round(cpu_seconds / 3600, 4)})
    shares, match_cpu = match(settings, game, out / model, "heuristic", backend, 0)
    return {
        "generation": 0,
        "model": model,
        "kept": True,
        "heuristic_share": float(np.mean(shares)),
        "heuristic_games": len(shares),
        "cpu_seconds": round(cpu_seconds + match_cpu, 1),
        "seconds": elapsed(started),
    }


def cloned_heuristic(settings: Settings, game, command: str, training: dict[str, Any]):
    """A fresh student network (:data:`STUDENT_NETWORKS`) cloned from the heuristic's moves."""
    import torch

    from training.imitation import warm_start
    from training.network import new_network
    from training.settings import game_training
    from training.train_command import chosen_network

    defaults = game_training(game.name)
    description = chosen_network(STUDENT_NETWORKS[game.name], defaults["net_arch"], defaults["shared_layers"])
    torch.manual_seed(settings.seed)
    network = new_network(game, description, command, "win")
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
    training["warm_start"] = report
    print(
        f"generation 0: the heuristic cloned from {report['train_moves']} moves, held-out accuracy "
        f"{report['held_out_accuracy']:.1%} ({report['seconds']:.0f} s)",
        flush=True,
    )
    return network


def save(network, game, path: Path, command: str, distill: dict[str, Any]) -> None:
    """The network as a safe model file whose card names the run that made it (``training.distill``)."""
    from agents.models.card import make_card
    from agents.models.network import network_from_policy
    from training.network import save_network

    card = make_card(game, network.card["network"], command, "win", {"distill": distill})
    save_network(network_from_policy(network.module, card), str(path))


def one_generation(
    settings: Settings, game, out: Path, generation: int, state: dict[str, Any], command: str, backend
) -> dict[str, Any]:
    """The teacher's games, a fitted copy of the best network, its gate and its curve; the history's row."""
    started = time.time()
    best = out / state["best"]
    shards = teacher_games(settings, game, out, generation, best, backend)
    played = time.time()
    network, data, report, fit_cpu = fit_copy(settings, game, out, generation, best)
    games_cpu = sum(shard_cpu_seconds(p) for p in shards)
    before = sum(row["cpu_seconds"] for row in state["history"])
    model = f"models/gen_{generation:03d}.zip"
    distill = {
        "run": out.name,
        "generation": generation,
        "parent": best.name,
        "teacher": {"kind": settings.teacher, **settings.search()},
        "data": {
            "generations": [max(1, generation - settings.replay + 1), generation],
            "games": len(np.unique(data["games"])),
            "positions": int(len(data["values"])),
        },
        "fit": report,
        "settings": {k: v for k, v in dataclasses.asdict(settings).items() if k not in ("resume", "out")},
        "cpu_hours": round((before + games_cpu + fit_cpu) / 3600, 4),
    }
    save(network, game, out / model, command, distill)
    fitted = time.time()
    shares, curve_cpu = match(settings, game, out / model, "heuristic", backend, generation)
    if settings.gate == "heuristic":  # against the heuristic(s), on the curve's deals: the best's share to beat
        gate_shares, gate_cpu = shares, 0.0
        bar = next(row["heuristic_share"] for row in state["history"] if row["model"] == state["best"])
    else:  # head to head: its fair share against the best network in the other seats
        gate_shares, gate_cpu = match(settings, game, out / model, str(best), backend, generation, gate=True)
        bar = 1 / game.num_players
    rate = float(np.mean(gate_shares))
    return {
        "generation": generation,
        "model": model,
        "teacher": settings.teacher,
        "iterations": settings.iterations,
        "games": settings.games,
        "positions": int((data["games"] // GAME_IDS == generation).sum()),  # this generation's, in the fit's data
        "fit": report,
        "gate_games": len(gate_shares),
        "gate_win_rate": rate,
        "gate_ci": list(wilson_interval(sum(gate_shares), len(gate_shares))),
        "kept": rate > bar,
        "heuristic_share": float(np.mean(shares)),
        "heuristic_games": len(shares),
        "cpu_seconds": round(games_cpu + fit_cpu + gate_cpu + curve_cpu, 1),
        "seconds": elapsed(started),
        "selfplay_seconds": round(played - started, 1),
        "fit_seconds": round(fitted - played, 1),
    }


def fit_copy(settings: Settings, game, out: Path, generation: int, best: Path):
    """A copy of the best network fitted to the last ``replay`` generations' shards: (the network, the data,
    the fit's report, the CPU seconds of the fit)."""
    from agents.models.network import load_network

    cpu = time.process_time()
    first = max(1, generation - settings.replay + 1)
    paths = sorted(p for g in range(first, generation + 1) for p in (out / "data" / f"gen_{g:03d}").glob("*.npz"))
    data = load_records(paths)
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
    return network, data, report, time.process_time() - cpu


def teacher_games(settings: Settings, game, out: Path, generation: int, best: Path, backend) -> list[Path]:
    """The generation's teacher games, in shards of ``shard_games`` games, each written as soon as its round
    of tasks is done; shards already on disk (an interrupted run) are kept, not played again."""
    from tqdm import tqdm

    folder = out / "data" / f"gen_{generation:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    games = [(_seed(settings.seed, generation, i), generation * GAME_IDS + i) for i in range(settings.games)]
    shards = [games[i : i + settings.shard_games] for i in range(0, len(games), settings.shard_games)]
    paths = [folder / f"shard_{k:04d}.npz" for k in range(len(shards))]
    missing = [k for k, path in enumerate(paths) if not path.exists()]
    task = (game.name, game.config(), settings.teacher, str(best), settings.search())
    per_round = 2 * backend.workers
    bar = tqdm(total=len(shards), initial=len(shards) - len(missing), unit="shard", dynamic_ncols=True,
               desc=f"generation {generation}: teacher games", disable=not settings.progress_bar)  # fmt: skip
    with bar:
        for start in range(0, len(missing), per_round):
            todo = missing[start : start + per_round]
            tasks = [(*task, shards[k], settings.explore_moves, "win") for k in todo]
            for k, records in zip(todo, backend.map(play_selfplay, tasks, bar.update), strict=True):
                save_records(records, paths[k])
    return paths


def match(
    settings: Settings, game, model: Path, opponent: str, backend, generation: int, gate: bool = False
) -> tuple[list[float], float]:
    """``model`` alone against ``opponent`` (the heuristic, or the best network in a gate) on the fixed deals
    of that match, in every seat in turn: its win share in each game, and the CPU seconds."""
    from tqdm import tqdm

    n = game.num_players
    games = settings.gate_games if gate else settings.heuristic_games
    stream = GATE_DEALS if gate else HEURISTIC_DEALS
    deals = [(_seed(settings.seed, stream, d), seat) for d in range(math.ceil(games / n)) for seat in range(n)]
    tasks = [(game.name, game.config(), str(model), opponent, chunk) for chunk in chunks(deals, backend.workers)]
    what = "gate" if gate else "against the heuristic"
    with tqdm(total=len(tasks), desc=f"generation {generation}: {what}", disable=not settings.progress_bar) as bar:
        results = backend.map(play_match, tasks, bar.update)
    return [s for shares, _ in results for s in shares], sum(cpu for _, cpu in results)


def log(writer, row: dict[str, Any]) -> None:
    """TensorBoard: the fit's losses and agreement, the gate's win rate, the share against the heuristic,
    the data and the CPU."""
    step = row["generation"]
    for key, value in row.get("fit", {}).items():
        if isinstance(value, float) and math.isfinite(value):
            writer.add_scalar(f"fit/{key}", value, step)
    if "gate_win_rate" in row:
        writer.add_scalar("gate/win_rate", row["gate_win_rate"], step)
        writer.add_scalar("gate/kept", float(row["kept"]), step)
        writer.add_scalar("data/positions", row["positions"], step)
    writer.add_scalar("network/heuristic_share", row["heuristic_share"], step)
    writer.add_scalar("cost/cpu_hours", row["cpu_seconds"] / 3600, step)
    writer.add_scalar("cost/generation_seconds", row["seconds"], step)
    writer.flush()


def summary_line(row: dict[str, Any]) -> str:
    fit_report = row["fit"]
    return (
        f"generation {row['generation']}: {row['positions']} positions; held-out policy loss "
        f"{fit_report['held_out_policy_loss_before']:.3f} -> {fit_report['held_out_policy_loss']:.3f}, value loss "
        f"{fit_report['held_out_value_loss_before']:.3f} -> {fit_report['held_out_value_loss']:.3f}, agreement "
        f"{fit_report['held_out_agreement']:.1%}; gate {row['gate_win_rate']:.1%} [{row['gate_ci'][0]:.1%}, "
        f"{row['gate_ci'][1]:.1%}] over {row['gate_games']} games: {'kept' if row['kept'] else 'dropped'}; "
        f"against the heuristic {row['heuristic_share']:.3f} ({row['seconds']:.0f} s, "
        f"{row['cpu_seconds'] / 3600:.2f} CPU-h)"
    )


def run_card(state: dict[str, Any], settings: Settings, command: str) -> str:
    """The run's card (``card.md``): the command, the settings, the data, the CPU-hours and the curve."""
    history = state["history"]
    cpu_hours = sum(row["cpu_seconds"] for row in history) / 3600
    positions = sum(row.get("positions", 0) for row in history)
    lines = [
        f"# Distillation run: {settings.game} {settings.game_options or ''}".rstrip(),
        "",
        f"Command: `{command}`",
        "",
        f"Best network: `{state['best']}` (copied to `model.zip`), after {state['generation']} generations; "
        f"{positions:,} teacher positions; {cpu_hours:.2f} CPU-hours in all (games where they ran, fits here).",
        "",
        "Settings: " + ", ".join(f"`{k}={v}`" for k, v in dataclasses.asdict(settings).items() if k != "resume"),
        "",
        "| generation | teacher | positions | held-out policy loss (before -> after) | held-out value loss | "
        "agreement with the teacher | gate win rate [95% CI] | kept | share against the heuristic | CPU-h |",
        "|---|---|---:|---|---|---:|---|---|---:|---:|",
        f"| 0 | {settings.start} |  |  |  |  |  |  | {history[0]['heuristic_share']:.3f} | "
        f"{history[0]['cpu_seconds'] / 3600:.2f} |",
    ]
    for row in history[1:]:
        f = row["fit"]
        lines.append(
            f"| {row['generation']} | {row['teacher']} {row['iterations']} | {row['positions']} | "
            f"{f['held_out_policy_loss_before']:.3f} -> {f['held_out_policy_loss']:.3f} | "
            f"{f['held_out_value_loss_before']:.3f} -> {f['held_out_value_loss']:.3f} | "
            f"{f['held_out_agreement']:.1%} | "
            f"{row['gate_win_rate']:.1%} [{row['gate_ci'][0]:.1%}, {row['gate_ci'][1]:.1%}] | "
            f"{'yes' if row['kept'] else 'no'} | {row['heuristic_share']:.3f} | {row['cpu_seconds'] / 3600:.2f} |"
        )
    return "\n".join(lines) + "\n"
