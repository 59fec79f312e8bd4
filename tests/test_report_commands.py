"""What a reader of a clean clone can act on: every command a generated report prints parses with its
command's own options and finds every file it reads, and no file of the repository names a folder of a
development machine (a scratch folder that a clone does not have)."""

from __future__ import annotations

import gzip
import importlib
import importlib.util
import json
import re
import shlex
import subprocess

import pytest

from benchmarks import summary
from research.core import shown_commands

ROOT = summary.ROOT
#: The top folders of a development machine's scratch space (the pattern is built so this file names none).
SCRATCH_ROOTS = ("work", "tmp", "home", "Users", "root")
SCRATCH = re.compile(r"(?<![\w.~-])/(?:" + "|".join(SCRATCH_ROOTS) + r")/")
#: Text files a clone holds (records are gzip data: what a machine typed; their reports rewrite it).
TEXT = re.compile(r"\.(md|py|toml|txt|json|ya?ml|cfg|ini|sh|html|js|css)$|^Makefile$")
#: The generated reports, whose commands a reader copies.
REPORTS = sorted(
    [
        *ROOT.glob("benchmarks/results/**/*.md"),
        *ROOT.glob("research/results/**/*.md"),
        *(ROOT / "docs" / name for name in summary.GENERATED_DOCS),
    ]
)
COMMAND = re.compile(r"`((?:python -m |make )[^`]+)`")
#: Options whose value a command writes (a file or folder made if absent), and the placeholders reports use.
WRITTEN = {"--out", "--record", "--ratings"}
PLACEHOLDERS = {"FILE", "FOLDER", "RECORD", "RECORD...", "OUT"}
REPO_PATH = re.compile(r"^[\w.-]+(?:/[\w.*-]+)+/?$|^[\w.-]+\.(?:zip|gz|jsonl|json|md|py|pt)$")


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in out.splitlines() if TEXT.search(name.rsplit("/", 1)[-1])]


def test_no_file_names_a_scratch_folder_outside_the_repository():
    named = []
    for name in _tracked():
        path = ROOT / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            named += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in SCRATCH.finditer(text)]
    assert not named, f"files naming a folder outside the repository: {named}"


def printed_commands() -> list[tuple[str, str]]:
    """(report, command) for every command a generated report prints."""
    found = []
    for report in REPORTS:
        for command in COMMAND.findall(report.read_text(encoding="utf-8")):
            found.append((report.relative_to(ROOT).as_posix(), command))
    return sorted(set(found))


def missing_inputs(words: list[str]) -> list[str]:
    """The words of a command that name a file it reads and that a clean clone lacks, or a folder outside it."""
    missing = []
    for i, word in enumerate(words):
        written = i > 0 and words[i - 1] in WRITTEN
        value = word.split("=", 1)[1] if word.startswith("--") and "=" in word else word
        if value.startswith("/"):
            missing.append(value)
        elif not written and value not in PLACEHOLDERS and REPO_PATH.match(value) and "*" not in value:
            if not (ROOT / value).exists():
                missing.append(value)
    return missing


def _parser(module: str):
    """The command's argparse parser where the module exposes one, else None."""
    loaded = importlib.import_module(module)
    return loaded.build_parser() if hasattr(loaded, "build_parser") else None


@pytest.mark.parametrize(("report", "command"), printed_commands())
def test_every_printed_command_runs_as_written_from_a_clean_clone(report, command):
    words = shlex.split(command.replace("RECORD...", "RECORD"))
    if words[0] == "make":
        assert re.search(rf"^{re.escape(words[1])}:", (ROOT / "Makefile").read_text(), re.M), (report, command)
        return
    module = words[2]
    assert importlib.util.find_spec(module) is not None, f"{report}: no module {module}"
    assert not missing_inputs(words[3:]), f"{report}: `{command}` reads what a clone lacks"
    parser = _parser(module) if any(w.startswith("--") for w in words) else None  # else a mention, not a run
    if parser is not None:
        try:
            parser.parse_args(words[3:])
        except SystemExit as error:  # argparse's refusal of an option or value as written
            pytest.fail(f"{report}: `{command}` is refused by its command's options ({error})")


def test_the_check_finds_a_scratch_path_and_a_missing_input():
    assert missing_inputs(["--reuse", "runs/bench/a.jsonl.gz", "--out", "runs/bench/b.md"]) == ["runs/bench/a.jsonl.gz"]
    assert missing_inputs(["--out", "/" + SCRATCH_ROOTS[1] + "/x", "--records", "research/records/luck"]) != []
    assert missing_inputs(["--from-record", "RECORD", "--out", "FILE"]) == []


def test_a_report_shows_a_recorded_command_without_the_paths_a_clone_lacks():
    scratch = "/" + SCRATCH_ROOTS[1] + "/ceil"
    typed = f"python -m research.ceiling --configs 'samurai 2p' --reuse runs/bench/a.jsonl.gz --out {scratch}/x.md"
    shown = shown_commands.shown(typed, "research/records/ceiling/samurai_2p.jsonl.gz")
    assert shown == (
        "python -m research.ceiling --configs 'samurai 2p' "
        "--reuse research/records/ceiling/samurai_2p.jsonl.gz --out FILE"
    )
    assert shown_commands.shown(f"python -m research.luck --out={scratch}") == "python -m research.luck --out=FOLDER"
    assert not shown_commands.rewrites(["python -m research.luck --records research/records/luck"])


def test_a_recorded_command_of_a_study_is_shown_under_its_names_since_issue_66():
    """A record keeps its command as typed (``benchmarks.NAME`` before issue 66); its report shows the command that
    runs today, every moved module and file renamed, and nothing else."""
    from research.core.renamed import renamed

    typed = "python -m benchmarks.relative_skill play --record benchmarks/records/relative_skill/wapi4.jsonl.gz"
    assert (
        renamed(typed)
        == "python -m research.relative_skill play --record research/records/relative_skill/wapi4.jsonl.gz"
    )
    typed = (
        "python -m benchmarks.luck.report benchmarks/records/luck_strong/a.jsonl --out=benchmarks/results/luck_strong"
    )
    assert (
        renamed(typed)
        == "python -m research.luck.report research/records/luck_strong/a.jsonl --out=research/results/luck_strong"
    )
    unmoved = (
        "python -m benchmarks.rate trained --record benchmarks/records/models/w.jsonl --out benchmarks/results/m.md"
    )
    assert renamed(unmoved) == unmoved


def test_every_studys_recorded_command_names_a_module_that_runs():
    """Every run of every record under research/records, its command renamed, names a command module of today."""
    from research.core.renamed import renamed

    paths = sorted((ROOT / "research" / "records").rglob("*.jsonl*"))
    commands = set()
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8") as lines:
            commands |= {line["command"] for line in map(json.loads, lines) if line["kind"] == "run"}
    modules = {shlex.split(renamed(command))[2] for command in commands}
    assert paths and modules and all(importlib.util.find_spec(module) for module in modules), sorted(modules)
