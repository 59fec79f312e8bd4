"""``make run``'s default run, trained with a fixed seed and rated against the heuristic on test deals.

Why: the README says what ``make run`` (``python train.py``: Wakanda basic, ten minutes) ends at against the
heuristic; its own final table plays fixed deals that its settings were chosen beside. This command makes the
claim a record-backed figure, as :mod:`benchmarks.example_run` does for the batch example: it trains the
default run (only ``--seed`` and the folder given, so on a busy machine it reaches what a user's run reaches
there in its minutes), keeps its model (``model.zip``, the one its final table plays) at ``--model`` without
the optimizer, then rates it with ``benchmarks.rate`` against the heuristic alone on ``--deals`` fresh deals of
the protocol's test set, both seatings each, into ``--record``.

    python -m benchmarks.make_run --seed 1 --deals 200 --model benchmarks/records/make_run/wakanda_seed1.zip \
        --record benchmarks/records/make_run/wakanda.jsonl.gz

``--skip-training`` rates a model already at ``--model``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.core.records import ROOT
from benchmarks.example_run import trained_and_rated


def train(seed: int, model: Path) -> dict:
    """``python train.py --seed SEED`` (a process of its own, as ``make run`` runs it) in a scratch folder; its
    model exported to ``model``. Returns what the run reports of itself (steps, time, its final table)."""
    from training.model_files import export_model

    with tempfile.TemporaryDirectory() as scratch:
        command = [sys.executable, str(ROOT / "train.py"), "--seed", str(seed), "--out", scratch]
        subprocess.run([*command, "--progress-bar", "false"], check=True, cwd=ROOT)
        model.parent.mkdir(parents=True, exist_ok=True)
        export_model(str(Path(scratch) / "model.zip"), str(model))
        results = json.loads((Path(scratch) / "results.json").read_text())
    return {key: results[key] for key in ("timesteps", "train_seconds", "stopped_by_time_limit", "final")}


def rate_args(model: Path, deals: int, record: Path) -> list[str]:
    """``benchmarks.rate``'s arguments: the run's model against the heuristic alone on fresh test deals."""
    return [
        f"ppo:{model.as_posix()}", "--game", "wakanda", "--label", "make-run", "--rungs", "heuristic",
        "--deals", str(deals), "--record", record.as_posix(), "--processes", "1", "--no-progress",
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    return trained_and_rated(__doc__.split("\n\n")[0], train, rate_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
