"""The import rules of docs/architecture.md, checked on the source: which package may import which, and no
module that imports (directly or through others) a module that imports it back.

Every ``import`` statement counts, those inside functions too: an import delayed into a function still ties
the two modules together, and a circle is a circle however late it closes. Only the imports under
``if TYPE_CHECKING:`` are left out: they name a type for the annotations and never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "envs", "agents", "parallel", "training", "web", "benchmarks", "research")

#: The sub-packages that are layers of their own: the read side of model files sits below the players, so that
#: a player reads a model file without importing training code, and training writes the same format.
SUB_LAYERS = ("agents.models",)
#: layer -> the layers it may import (its own always). The layers of docs/architecture.md (``train``, the script,
#: beside ``training``: ``benchmarks.make_run`` runs it); ``cli``, the command lines' shared parts, imports nothing
#: of the project and every package with commands may import it.
MAY_IMPORT = {
    "cli": set(),
    "envs": set(),
    "agents.models": {"envs"},
    "agents": {"cli", "envs", "agents.models"},
    "parallel": {"envs"},
    "training": {"cli", "envs", "agents.models", "agents", "parallel"},
    "web": {"cli", "envs", "agents.models", "agents", "parallel", "training"},
    "benchmarks": {"cli", "envs", "agents.models", "agents", "parallel", "training", "web"},
    "research": {"cli", "envs", "agents.models", "agents", "parallel", "training", "web", "benchmarks"},
    "train": {"cli", "envs", "agents.models", "agents", "parallel", "training"},
}


def _module_files() -> dict[str, Path]:
    files = {"train": ROOT / "train.py"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


MODULES = _module_files()


def _owner(name: str) -> str | None:
    """The project module a dotted import name lands in (``agents.ismcts.ISMCTSAgent`` -> ``agents.ismcts``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import statements under ``if TYPE_CHECKING:``."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }


def _imported_by_name(node: ast.AST) -> list[str]:
    """The module a call ``importlib.import_module(NAME)`` imports: NAME itself, or for an f-string the
    package its constant start names (``f"envs.{game}_v0"`` -> ``envs``); ``[]`` for any other node."""
    if not (isinstance(node, ast.Call) and node.args and getattr(node.func, "attr", None) == "import_module"):
        return []
    name = node.args[0]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return [name.value]
    if isinstance(name, ast.JoinedStr) and name.values and isinstance(name.values[0], ast.Constant):
        return [name.values[0].value.rpartition(".")[0]]
    return []


def _named_module(node: ast.AST) -> list[str]:
    """A string that is exactly a dotted project module's name (``"agents.models.graph_network"``): a module
    imported later by that name, a dependency as real as an import."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
        return [node.value] if node.value in MODULES else []
    return []


def _imports(path: Path) -> set[str]:
    """The project modules one source file imports, anywhere in it (but for the annotations' imports): its
    ``import`` statements, its ``importlib.import_module`` calls and the module names it holds as strings."""
    found = set()
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            names = _imported_by_name(node) or _named_module(node)
        found |= {owner for owner in map(_owner, names) if owner}
    return found


GRAPH = {module: _imports(path) - {module} for module, path in MODULES.items()}


def _package(module: str) -> str:
    """The layer a module belongs to: its sub-layer (``agents.models``) or its top-level package."""
    return next(
        (layer for layer in SUB_LAYERS if module == layer or module.startswith(layer + ".")), module.split(".")[0]
    )


def test_the_graph_sees_the_known_imports():
    """The checker itself: it finds imports at module level and inside functions."""
    assert "envs.core.engine" in GRAPH["agents.protocol"]
    assert "agents" in GRAPH["agents.opponents"]
    assert any(module.startswith("training") for module in GRAPH["train"])
    assert "envs.samurai.rules" not in GRAPH["envs.samurai.actions"]  # only under TYPE_CHECKING
    assert "agents.models.graph_network" in GRAPH["agents.models.policies"]  # named as a string, imported by name
    assert _package("agents.models.card") == "agents.models" and _package("agents.ismcts") == "agents"


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_each_package_imports_only_the_layers_below_it(package):
    allowed = MAY_IMPORT[package] | {package}
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if _package(module) == package
        for target in targets
        if _package(target) not in allowed
    )
    assert not wrong, "\n".join(wrong)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back():
    """A package's ``__init__`` importing its own submodules is how a package is built, not a circle: a
    submodule importing its package's ``__init__`` (which imports the submodule back) is one."""
    circles = _circles(GRAPH)
    assert not circles, "\n".join(" <-> ".join(circle) for circle in circles)


#: The most lines a function may have (its ``def`` to its last line) unless its docstring says why.
MAX_FUNCTION_LINES = 60


def _long_functions(source: str, where: str) -> list[str]:
    """``where:line name (N lines)`` for each function (methods and nested ones too) longer than
    ``MAX_FUNCTION_LINES`` whose docstring does not say "Long because"."""
    return [
        f"{where}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and "Long because" not in (ast.get_docstring(node) or "")
    ]


def test_the_length_check_finds_a_long_function():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert _long_functions(f"def long():\n{body}", "m.py") == [f"m.py:1 long ({MAX_FUNCTION_LINES + 1} lines)"]
    assert _long_functions(f"def short():\n{body[: body.rindex('    x')]}", "m.py") == []
    explained = f'def long():\n    """Long because a table reads best whole."""\n{body}'
    assert _long_functions(explained, "m.py") == []
    method = f"class C:\n    def long(self):\n{body.replace('    ', '        ')}"
    assert _long_functions(method, "m.py") == [f"m.py:2 long ({MAX_FUNCTION_LINES + 1} lines)"]


#: The examples are read as the project's code is: short functions, short modules.
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
#: A module's most lines (docs/architecture.md: one idea per module, a module under about 400 lines).
MAX_MODULE_LINES = 400


def test_no_function_is_long_without_saying_why():
    """Short functions (docs/architecture.md); one longer than 60 lines says in its docstring why ("Long because")."""
    paths = [*MODULES.values(), *EXAMPLES]
    long = [found for path in paths for found in _long_functions(path.read_text(), str(path.relative_to(ROOT)))]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines without 'Long because' in their docstring: {long}"


def test_no_module_is_long():
    """One idea per module: none of the project's modules nor the examples passes MAX_MODULE_LINES."""
    sizes = {path.relative_to(ROOT): len(path.read_text().splitlines()) for path in [*MODULES.values(), *EXAMPLES]}
    long = sorted(f"{path} ({lines} lines)" for path, lines in sizes.items() if lines > MAX_MODULE_LINES)
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_the_graph_sees_imports_by_name():
    """``importlib.import_module`` with a constant name, or an f-string's constant start, counts as an import."""
    tree = ast.parse('importlib.import_module("agents.ismcts")\nimportlib.import_module(f"envs.{name}_v0")')
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert [_imported_by_name(call) for call in calls] == [["agents.ismcts"], ["envs"]]


def test_every_file_the_architecture_page_names_exists():
    """docs/architecture.md names modules and folders as its homes; each one it names by its path is there."""
    import re

    page = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`([\w/.<>]+(?:\.py|/))`", page))
    missing = sorted(name for name in named if "/" in name and "<" not in name and not (ROOT / name).exists())
    assert named and not missing, missing


@pytest.mark.parametrize("package", ["benchmarks", "research"])
def test_the_map_names_every_command_and_package(package):
    """``benchmarks/__init__.py`` and ``research/__init__.py`` are the maps of their commands
    (docs/architecture.md): a module or package added beside the others and left off its map fails here."""
    import importlib

    top = ROOT / package
    modules = [p.stem for p in top.glob("*.py") if p.stem != "__init__"]
    names = modules + [p.parent.name for p in top.glob("*/__init__.py")]
    text = importlib.import_module(package).__doc__
    missing = [name for name in sorted(names) if f"{package}.{name}`" not in text]
    assert len(names) > 8 and not missing, f"not on the map in {package}/__init__.py: {missing}"
