"""The layout of DESIGN section 1, read from the code: every module's imports (top level and inside
functions) run downward only, no two files import each other round a circle, and the escape hatches
that once hid upward imports stay shut."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Lowest first; an app may import those before it, never those after it, and ingestion and toolhub
# not each other. config, the composition root, is imported by none.
FLOORS = [
    ["core"],
    ["identity"],
    ["integrations"],
    ["vault"],
    ["knowledge"],
    ["ingestion", "toolhub"],
    ["ops"],
]
APPS = [app for floor in FLOORS for app in floor]
FLOOR_OF = {app: n for n, floor in enumerate(FLOORS) for app in floor} | {"config": len(FLOORS)}


def _modules() -> dict[str, Path]:
    found = {}
    for app in [*APPS, "config"]:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path):
    """(line, imported module of this tree, inside a function) for every import of the file."""
    tree = ast.parse(path.read_text())
    nested = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in {_resolve(name) for name in names} - {None}:
            yield node.lineno, target, id(node) in nested


GRAPH = {
    module: {(line, target, inside) for line, target, inside in _imports(path) if target != module}
    for module, path in MODULES.items()
}


def _app(module: str) -> str:
    return module.split(".", 1)[0]


def test_every_app_imports_only_the_floors_below_it():
    upward = [
        f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}"
        for module, imports in GRAPH.items()
        for line, target, _ in imports
        if _app(target) != _app(module)
        and (FLOOR_OF[_app(target)] >= FLOOR_OF[_app(module)] or _app(target) == "config")
    ]
    assert upward == []


def test_no_files_import_each_other_round_a_circle():
    edges = {module: {target for _, target, _ in imports} for module, imports in GRAPH.items()}
    circles = [sorted(group) for group in _strongly_connected(edges) if len(group) > 1]
    assert circles == []


def test_imports_of_this_tree_sit_at_the_top_of_their_module():
    """But in an AppConfig.ready() (Django's place for them) and in the Celery app, which loads with
    the settings, before the app registry."""
    hidden = [
        f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}"
        for module, imports in GRAPH.items()
        for line, target, inside in imports
        if inside and MODULES[module].name != "apps.py" and module != "config.celery"
    ]
    assert hidden == []


def test_no_escape_hatch_reaches_another_app_by_name():
    hatches = [
        f"{path.relative_to(ROOT)}: {text}"
        for path in MODULES.values()
        for text in ("import_string(", "apps.get_model(")
        if text in path.read_text()
    ]
    assert hatches == []


def test_the_old_rooms_are_gone():
    # Only their code counts: a checkout that had them may keep their git-ignored __pycache__.
    assert not list((ROOT / "adminops").rglob("*.py"))
    assert not list((ROOT / "config" / "api").rglob("*.py"))
    assert sorted(path.name for path in ROOT.joinpath("config").glob("*.py")) == [
        "__init__.py",
        "asgi.py",
        "celery.py",
        "gunicorn.py",
        "settings.py",
        "urls.py",
        "wsgi.py",
    ]


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
