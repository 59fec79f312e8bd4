"""``python -m benchmarks.calibration``: measure this machine's speed (library: :mod:`benchmarks.core.calibration`).

``--repeats N --out FILE`` writes the page of the factor's spread over N measurements.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
from pathlib import Path

from benchmarks.core.calibration import (
    CONFIGS,
    POSITIONS,
    REFERENCE_MACHINE,
    REFERENCE_SPEED,
    ROUNDS,
    SIMULATIONS,
    WORKLOAD,
    Calibration,
    measure,
)


def spread_page(measured: list[Calibration], command: str) -> str:
    """The page of ``--repeats``: each measurement's rounds and factor, and their spread."""
    from benchmarks.core.provenance import cpu_model

    factors = [c.factor for c in measured]
    spread = max(factors) / min(factors) - 1
    lines = [
        "# The calibration's spread",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {cpu_model()}, Python {platform.python_version()}. Workload `{WORKLOAD}`: plain ISMCTS, "
        f"{SIMULATIONS} simulations from seed 0 on each of {POSITIONS} positions of each of {len(CONFIGS)} games, "
        f"{ROUNDS} rounds, the fastest kept; factor = that speed over the reference's {REFERENCE_SPEED:,.0f} "
        f"simulations per CPU second ({REFERENCE_MACHINE}).",
        "",
        "| measurement | rounds (simulations/CPU s) | factor |",
        "|---:|---|---:|",
        *(f"| {i} | {', '.join(f'{r:,.0f}' for r in c.rounds)} | {c.factor:.3f} |" for i, c in enumerate(measured, 1)),
        "",
        f"Spread of the factor over {len(measured)} measurements (largest over smallest, less 1): {spread:.1%}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.calibration``: measure this machine; ``--repeats N --out FILE`` for the spread."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.calibration", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1, help="measurements to make (default 1)")
    parser.add_argument("--out", type=Path, help="write the measurements' page here (default: print one line each)")
    args = parser.parse_args(argv)
    if not 1 <= args.repeats <= 100:
        parser.error(f"--repeats must be from 1 to 100, got {args.repeats}")
    measured = [measure() for _ in range(args.repeats)]
    for calibration in measured:
        rounds = ", ".join(f"{s:,.0f}" for s in calibration.rounds)
        print(f"{WORKLOAD}: rounds {rounds} simulations/CPU s; factor {calibration.factor:.3f} "
              f"(reference {REFERENCE_SPEED:,.0f} on {REFERENCE_MACHINE})")  # fmt: skip
    if args.out is not None:
        command = shlex.join(["python", "-m", "benchmarks.calibration", *(argv if argv is not None else sys.argv[1:])])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(spread_page(measured, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
