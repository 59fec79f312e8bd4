"""The batch example's default run, trained with a fixed seed and rated against the heuristic on test deals.

Why: ``examples/ppo_batch.py`` says its default run (Wakanda, against the heuristic, 1.5M learner steps)
beats the heuristic; its own evaluation plays deals of the tuning set, which the run was chosen on. This
command makes the claim a record-backed figure: it trains the default run (only ``--seed`` and the
folder given), keeps the model at ``--model``, then rates it with ``benchmarks.rate`` against the
heuristic alone (``--rungs heuristic``) on ``--deals`` fresh deals of the protocol's test set, each deal
in both rotations of the seats, into ``--record``. The rating's interval is clustered by deal, and the
win share against the heuristic comes with it; ``python -m benchmarks.report RECORD --out FILE`` makes
the report again from the record (``benchmarks/regenerate.py`` lists it).

    python -m benchmarks.example_run --seed 1 --deals 150 --model benchmarks/records/example/wakanda_seed1.pt \
        --record benchmarks/records/example/wakanda.jsonl.gz

Training takes about half an hour on a loaded two-core machine; the rating plays the model sealed, a
process of its own for each deal (a few seconds each there, mostly importing torch).

``--skip-training`` rates a model already at ``--model`` (made by this command before).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks import rate
from benchmarks.core.records import ROOT

EXAMPLE = "examples/ppo_batch.py"


def example_module():
    """``examples/ppo_batch.py`` as a module (the examples are files, not a package)."""
    spec = importlib.util.spec_from_file_location("ppo_batch_example", ROOT / EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def train(seed: int, model: Path) -> dict:
    """The example's default run with ``seed``, its TensorBoard folder in a scratch folder; the model kept at
    ``model``. Returns the run's summary (without its list of rewards)."""
    with tempfile.TemporaryDirectory() as scratch:
        result = example_module().main(["--seed", str(seed), "--out", scratch])
        model.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(result["model"], model)
    return {key: value for key, value in result.items() if key not in ("rewards", "model")}


def rate_args(model: Path, deals: int, record: Path) -> list[str]:
    """``benchmarks.rate``'s arguments: the example's agent against the heuristic alone on fresh test deals."""
    return [
        f"{EXAMPLE}:BatchPPOAgent", "--option", f"model={model.as_posix()}", "--game", "wakanda",
        "--label", "ppo-batch", "--rungs", "heuristic", "--deals", str(deals), "--record", record.as_posix(),
        "--processes", "1", "--no-progress",
    ]  # fmt: skip


def trained_and_rated(description: str, train, rate_args, argv: list[str] | None) -> int:
    """The command line of a default run rated on test deals (this one and :mod:`benchmarks.make_run`):
    ``train(seed, model)`` unless ``--skip-training``, then ``benchmarks.rate`` with ``rate_args(model, deals,
    record)``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, required=True, help="the training run's seed")
    parser.add_argument("--deals", type=int, required=True, help="test deals, each played in both seatings")
    parser.add_argument("--model", type=Path, required=True, help="where the trained model goes (or is)")
    parser.add_argument("--record", type=Path, required=True, help="the rating's record (JSON Lines)")
    parser.add_argument("--skip-training", action="store_true", help="rate the model already at --model")
    args = parser.parse_args(argv)
    if args.seed < 0 or args.deals < 2:
        parser.error(f"--seed must be non-negative and --deals at least 2, got {args.seed} and {args.deals}")
    if args.skip_training and not args.model.is_file():
        parser.error(f"--skip-training rates the model at --model, and there is none at {args.model}")
    if not args.skip_training:
        print("trained:", train(args.seed, args.model), flush=True)
    return rate.main(rate_args(args.model, args.deals, args.record))


def main(argv: list[str] | None = None) -> int:
    return trained_and_rated(__doc__.split("\n\n")[0], train, rate_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
