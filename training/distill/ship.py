"""Shipping a distilled network: ``python -m training.distill.ship RUN FILE.zip``, and the table of the
distilled networks in ``agents/models/README.md``, made from their cards.

The run's best network (``RUN/model.zip``) is copied into the package (``agents/models/FILE.zip``) without
anything but its card and weights, and becomes ``trained`` for its configuration. A run's starting network
(generation 0) is shipped only where it is a transfer (``--start transfer:PATH``) that no generation beat. A
configuration has one shipped model: a file of another name for the same configuration is refused (replace it
by its own name).
Then the README's table between its markers is written again from every distilled card in the package, so
the table says what the cards say: the run, its generation, the teacher, the data and the CPU-hours.
``--check`` exits 1 when the table is not what the cards give (a test runs it); ``--write`` writes it again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import envs
from agents.models.card import card_game
from agents.models.files import SHIPPED_DIR, read_card
from training.distill.settings import TRANSFER

README = SHIPPED_DIR / "README.md"
BEGIN, END = "<!-- distilled: made by python -m training.distill.ship -->", "<!-- /distilled -->"


def ship(run: Path, destination: Path) -> Path:
    """Copy ``run``'s best network (or ``run`` itself, one of its ``models/gen_NNN.zip``) to ``destination`` in
    the package and write the table again."""
    from training.model_files import export_model

    source = run if run.is_file() else run / "model.zip"
    card = read_card(str(source))
    distill = card.get("training", {}).get("distill")
    if distill is None:
        raise ValueError(f"{source} was not made by training.distill (its card has no training.distill)")
    if distill["generation"] < 1 and not distill["start"].startswith(TRANSFER):
        raise ValueError(f"{source} is its run's starting network (generation 0): nothing distilled into it yet")
    if destination.resolve().parent != SHIPPED_DIR:
        raise ValueError(f"the destination must be a file in {SHIPPED_DIR}, got {destination}")
    for other in SHIPPED_DIR.glob("*.zip"):
        shipped = read_card(str(other))
        if other.name != destination.name and (shipped["game"], shipped["config"]) == (card["game"], card["config"]):
            raise ValueError(f"{other.name} is shipped for this configuration already: replace it by its name")
    export_model(str(source), str(destination))
    README.write_text(with_table(README.read_text()))
    return destination


def table() -> str:
    """The distilled networks' table, one row per shipped file whose card names a distillation run."""
    rows = [
        "| file | configuration | made by | teacher | data | CPU-hours |",
        "|---|---|---|---|---|---:|",
    ]
    for path in sorted(SHIPPED_DIR.glob("*.zip")):
        card = read_card(str(path))
        distill = card.get("training", {}).get("distill")
        if distill is None:
            continue
        game, made = card_game(card), f"`{card['command']}`, generation {distill['generation']}"
        label = envs.describe(game.name).label(game.config())
        if distill["generation"] == 0:  # a transfer start that no distilled generation beat
            rows.append(
                f"| `{path.name}` | {label} | {made}: the start, `{distill['start']}` | "
                f"none (no generation of the run beat it) | none | {distill['cpu_hours']:.2f} |"
            )
            continue
        teacher, data = distill["teacher"], distill["data"]
        rows.append(
            f"| `{path.name}` | {label} | {made} of run `{distill['run']}` | {teacher['kind']}, "
            f"{teacher['iterations']} simulations a move | {data['positions']:,} positions of {data['games']:,} "
            f"games (generations {data['generations'][0]} to {data['generations'][1]}) | {distill['cpu_hours']:.2f} |"
        )
    return "\n".join(rows)


def with_table(text: str) -> str:
    """``text`` (the README) with the table between its markers made again."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{README} lacks the markers {BEGIN} ... {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    from cli import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="python -m training.distill.ship", description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter
    )
    parser.add_argument(
        "run", nargs="?", type=Path, help="a distillation run (its model.zip is shipped) or one of its models"
    )
    parser.add_argument("destination", nargs="?", type=Path, help="agents/models/NAME.zip")
    parser.add_argument("--check", action="store_true", help="exit 1 if the README's table is not the cards'")
    parser.add_argument("--write", action="store_true", help="write the README's table again from the cards")
    args = parser.parse_args(argv)
    text = README.read_text()
    if args.write:
        README.write_text(with_table(text))
        return 0
    if args.check:
        if with_table(text) != text:
            print(f"{README}: the distilled networks' table is stale; run python -m training.distill.ship --write")
            return 1
        return 0
    if args.run is None or args.destination is None:
        parser.error("give RUN and DESTINATION (or --check)")
    try:
        print(ship(args.run, args.destination))
    except (ValueError, OSError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
