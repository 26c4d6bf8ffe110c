"""The import direction the design promises (gen/__init__.py and emu/__init__.py draw it), read
from the sources with ast, imports inside functions included:
- no import cycle anywhere: not between modules, not between packages;
- only the pipeline (gen.build), the explorer (gen.explore) and the CLI (gen.cli) import emu, and
  nothing else in gen reaches them; circuits, ciphers, isa, sched and kernels never reach emu;
- emu never reaches gen's kernels (it knows drops and manifests, not how they were made);
- emu's rooms import only down the list vendoring > checks > ct > bench > machines > platforms."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the pipeline and the commands (they call the generator and the emulator, DESIGN.md)
PIPELINE_UNITS = ("gen.build", "gen.cli", "gen.explore", "gen.__main__")
#: emu's rooms, top to bottom: a room may import the rooms below it, never above
EMU_ROOMS = ("emu.vendoring", "emu.checks", "emu.ct", "emu.bench", "emu.machines", "emu.platforms")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict:
    """module name -> the set of project module names it imports; ``from a import b`` counts as
    a.b when that is a module, else as a (and a package's import runs its __init__: a.b counts a)."""
    files = {_module_name(p): p for pkg in ("gen", "emu") for p in (ROOT / pkg).rglob("*.py")}
    known = set(files)
    graph = {}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        here = name if is_pkg else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[:len(here.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:
                    deps.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
        graph[name] = {d for d in deps if d in known and d != name}
    return graph


def _cycle(edges: dict):
    """One cycle of the directed graph ``edges`` (node -> set of nodes), or None."""
    state: dict = {}
    stack: list = []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = "done"
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def _reach(graph: dict, start) -> set:
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return seen


def _in(module: str, units) -> bool:
    return any(module == u or module.startswith(u + ".") for u in units)


def _unit(module: str) -> str:
    """The package a module's job belongs to: gen.X / emu.X for a subpackage, else the module."""
    return ".".join(module.split(".")[:2])


def test_no_cycle_between_modules():
    """A package __init__ that only documents (or re-exports a child) is not a dependency of its
    children, so edges into package __init__s from their own children are not counted."""
    graph = _modules()
    edges = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}
    assert _cycle(edges) is None, " -> ".join(_cycle(edges))


def test_no_cycle_between_packages():
    graph = _modules()
    units: dict = {}
    for mod, deps in graph.items():
        for d in deps:
            if _unit(d) != _unit(mod):
                units.setdefault(_unit(mod), set()).add(_unit(d))
    assert _cycle(units) is None, " -> ".join(_cycle(units))


def test_only_the_pipeline_explorer_and_cli_reach_emu():
    graph = _modules()
    others = [m for m in graph if m.startswith("gen") and not _in(m, PIPELINE_UNITS)]
    bad = sorted(f"{m} imports {d}" for m in others for d in graph[m] if d.startswith("emu"))
    assert not bad, bad
    reached = _reach(graph, others)
    assert not any(_in(m, PIPELINE_UNITS) or m.startswith("emu") for m in reached), \
        sorted(m for m in reached if _in(m, PIPELINE_UNITS) or m.startswith("emu"))
    for lib in ("gen.circuits", "gen.ciphers", "gen.isa", "gen.sched", "gen.kernels"):
        assert any(m.startswith(lib) for m in others)


def test_emu_never_reaches_kernels():
    graph = _modules()
    reached = _reach(graph, [m for m in graph if m.startswith("emu")])
    assert not sorted(m for m in reached if m.startswith("gen.kernels") or _in(m, PIPELINE_UNITS))


def test_emu_rooms_import_downwards():
    graph = _modules()
    rank = {room: i for i, room in enumerate(EMU_ROOMS)}
    assert set(_unit(m) for m in graph if m.startswith("emu.")) == set(EMU_ROOMS)
    bad = sorted(f"{m} imports {d}" for m, deps in graph.items() if m.startswith("emu.")
                 for d in deps if d.startswith("emu.") and rank[_unit(d)] < rank[_unit(m)])
    assert not bad, bad


def test_the_graph_reader_sees_imports():
    """The checks above would pass on an empty graph: make sure edges are found."""
    graph = _modules()
    assert "gen.ir" in graph["gen.sched.listsched"] and "gen.cores.timing" in graph["gen.sched.listsched"]
    assert "gen.isa.thumb2" in graph["gen.kernels.thumb2_function"]
    assert "gen.kernels.ghash.asm" in graph["gen.kernels.ghash.thumb2"]       # a relative import
    assert any(d.startswith("emu") for d in graph["gen.build"])
    assert "emu.machines.machine" in graph["emu.checks.runner"]
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
