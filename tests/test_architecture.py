"""The shape of the package: no import circle, no private name used across modules.

Every import of a msgcli module counts, at the top of a module or inside a function:
an import moved into a function still runs, and a circle it closes is still a circle
(only imports under ``if TYPE_CHECKING:`` never run, and are left out). Imports of
other packages (pyarrow, duckdb, dask, rich, ...) are not looked at: importing a heavy
module lazily is how start-up stays short.

A name that starts with one underscore is its module's own: no other module imports it
(``from msgcli.x import _name``) or reaches for it (``x._name``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "msgcli"

# Known violations: none. A test below fails for an entry that no longer holds, so that
# the lists stay true; they are kept (empty) for the day a circle must be let in on purpose.
#
#: imports that close a circle, as ``(importing module, imported module)``; with these
#: left out, the graph must have no circle
KNOWN_CIRCLE_EDGES: set[tuple[str, str]] = set()
#: private names used by another module, as ``(using module, "module.name")``
KNOWN_PRIVATE: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@dataclass(frozen=True)
class Import:
    """One import of a msgcli module: the module imported and the names taken from it."""

    target: str
    names: tuple[str, ...]
    line: int


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """The lines of imports under ``if TYPE_CHECKING:`` (never run)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
            if name == "TYPE_CHECKING":
                for child in node.body:
                    for sub in ast.walk(child):
                        if isinstance(sub, (ast.Import, ast.ImportFrom)):
                            lines.add(sub.lineno)
    return lines


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """Every msgcli import a module makes, wherever in the module it is written."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "msgcli" or alias.name.startswith("msgcli."):
                    yield Import(alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == "msgcli" or target.startswith("msgcli.")):
                continue
            plain = []
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:  # ``from . import x``: the module x
                    yield Import(sub, (), node.lineno)
                else:
                    plain.append(alias.name)
            if plain or target in known:
                yield Import(target, tuple(plain), node.lineno)


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for imp in imports_of(name, path, known):
            if imp.target in known and imp.target != name:
                edges[name].add(imp.target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, as a loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[tuple[str, ...]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        group.append(top)
                        if top == node:
                            break
                    if len(group) > 1:
                        found.append(tuple(sorted(group)))
    return sorted(found)


def private_uses() -> set[tuple[str, str]]:
    """``(importing module, "module.name")`` for every private name one module takes from
    another: imported by name, or read as an attribute of a module it imported."""
    known = modules()
    found: set[tuple[str, str]] = set()
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> msgcli module
        for imp in imports_of(name, path, known):
            if imp.target == name:
                continue
            for item in imp.names:
                if item.startswith("_") and not item.startswith("__"):
                    found.add((name, f"{imp.target}.{item}"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in known:
                        bound[alias.asname or alias.name] = sub
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("msgcli"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    if sub in known:
                        bound[alias.asname or alias.name] = sub
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("msgcli.") and alias.asname:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and bound[node.value.id] != name
            ):
                found.add((name, f"{bound[node.value.id]}.{node.attr}"))
    return found


def test_the_graph_counts_imports_inside_functions_and_not_type_hints() -> None:
    edges = graph()
    # the orchestrator imports the worker pool only for -j: still an import
    assert "msgcli.parallel" in edges["msgcli.pipeline"]
    # the engine names the progress bar's type only for the type checker: no import
    assert "msgcli.progress" not in edges["msgcli.engine"]


def test_no_import_circle() -> None:
    edges = graph()
    for importer, imported in KNOWN_CIRCLE_EDGES:
        edges[importer].discard(imported)
    found = circles(edges)
    assert found == [], "import circles among msgcli modules:\n" + "\n".join(
        " -> ".join(group) for group in found
    )


def test_known_circle_edges_are_still_there() -> None:
    # an entry that no longer holds is taken off the list, so the list stays true
    edges = graph()
    gone = sorted(edge for edge in KNOWN_CIRCLE_EDGES if edge[1] not in edges[edge[0]])
    assert gone == []


def test_no_private_name_across_modules() -> None:
    found = private_uses()
    new = sorted(found - KNOWN_PRIVATE)
    assert new == [], "private names used by another module:\n" + "\n".join(
        f"{who} uses {what}" for who, what in new
    )


def test_known_private_uses_are_still_there() -> None:
    gone = sorted(KNOWN_PRIVATE - private_uses())
    assert gone == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [("a", "b")]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [("a", "b", "c")]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_circle_finder(source: dict[str, set[str]], expected: list) -> None:
    assert circles(source) == expected
