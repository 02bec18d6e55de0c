"""The layers: every import runs downward, imports inside functions included.

    settings  <-  kb  <-  verification, upstream, http  <-  web apps  <-  entry points
    (the domain apps: kb, verification, upstream; the web apps: web, admin, lookup, search)
    trainer imports nothing of errorkb; verification may run it.

The root package (errorkb/__init__.py) holds the release number and, by Celery's
convention, loads the Celery app; anyone may read the release from it.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Which layers each layer may import, besides itself and the root package.
ALLOWED = {
    "settings": set(),
    "kb": {"settings"},
    "verification": {"settings", "kb", "trainer"},
    "upstream": {"settings", "kb"},
    "http": {"settings", "kb"},
    "web": {"settings", "kb", "verification", "upstream", "http"},
    "admin": {"settings", "kb", "verification", "upstream", "http"},
    "lookup": {"settings", "kb", "verification", "upstream", "http"},
    "search": {"settings", "kb", "verification", "http"},
    "entry": {
        *("settings", "kb", "verification", "upstream", "http", "web", "admin", "lookup"),
        "search",
        "trainer",
    },
    "trainer": set(),
}
ENTRY_POINTS = {"errorkb.celery", "errorkb.urls", "errorkb.wsgi"}
# settings.py hands each raw environment value to these parsers, and names the embedded
# broker's transport: one layer.
SETTINGS = {"errorkb.settings", "errorkb.env", "errorkb.broker"}


def layer_of(module: str) -> str | None:
    """The layer a dotted module name belongs to, or None outside the project."""
    parts = module.split(".")
    if parts[0] == "trainer":
        return "trainer"
    if parts[0] != "errorkb":
        return None
    if len(parts) == 1:
        return "root"
    if ".".join(parts[:2]) in ENTRY_POINTS:
        return "entry"
    if ".".join(parts[:2]) in SETTINGS:
        return "settings"
    return parts[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) for every import in the file, relative ones resolved."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(text: str, package: list[str]) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if node.module:
                found.append((node.lineno, module))
            # `from . import x` and `from errorkb import kb` name modules, too.
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def project_files() -> list[Path]:
    files = [*(ROOT / "errorkb").rglob("*.py"), *(ROOT / "trainer").rglob("*.py")]
    return sorted(p for p in files if "migrations" not in p.parts)


def import_graph() -> dict[tuple[str, str], list[str]]:
    """(from layer, to layer) -> where, for every import crossing layers."""
    graph: dict[tuple[str, str], list[str]] = {}
    for path in project_files():
        source = layer_of(module_name(path))
        for line, module in imports_of(path):
            target = layer_of(module)
            if target is None or target == source or _names_a_value(module):
                continue
            graph.setdefault((source, target), []).append(
                f"{path.relative_to(ROOT)}:{line} imports {module}"
            )
    return graph


def _names_a_value(module: str) -> bool:
    # `from errorkb import __version__` reads the root package, not a layer.
    return module.rsplit(".", 1)[-1].startswith("__")


def test_every_project_module_belongs_to_a_known_layer():
    layers = {layer_of(module_name(path)) for path in project_files()}
    assert layers <= {*ALLOWED, "root"}, layers - {*ALLOWED, "root"}


def test_every_import_runs_downward():
    wrong = [
        where
        for (source, target), places in import_graph().items()
        if source != "root" and target != "root" and target not in ALLOWED[source]
        for where in places
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("package", "text", "expected"),
    [
        ("errorkb.kb", "def f():\n    from errorkb.verification import state\n", "verification"),
        ("errorkb.kb", "from ..web import views\n", "web"),
        ("errorkb.verification", "from errorkb.admin import entries\n", "admin"),
        ("trainer", "import errorkb.kb.models\n", "kb"),
    ],
)
def test_it_sees_an_upward_import_even_inside_a_function(package, text, expected):
    source = layer_of(package)
    layers = {layer_of(module) for _, module in imports_in(text, package.split("."))}
    assert expected in layers
    assert expected not in ALLOWED[source]


def test_no_module_imports_itself_round_a_loop():
    modules = {module_name(path): path for path in project_files()}
    edges = {
        name: {
            module
            for _, imported in imports_of(path)
            # `from x import y` names module x.y, or a value of module x.
            if (module := imported if imported in modules else imported.rsplit(".", 1)[0])
            in modules
            and module != name
        }
        for name, path in modules.items()
    }
    assert [loop for loop in _loops(edges) if len(loop) > 1] == []


def _loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan), each a list of module names."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found
