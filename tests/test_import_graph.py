"""The package import graph, read from the sources with ast: no cycle between gen's subpackages
(gen/isa, gen/sched, gen/cores, gen/kernels, ..., each top-level module on its own), and the
generator never imports the emulator (emu/): only the build pipeline and the commands that run
it may."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the pipeline and the commands (they call the generator and the emulator, DESIGN.md)
PIPELINE = {"gen.build", "gen.cli", "gen.bench_cli", "gen.explore", "gen.__main__",
            "gen.explore_orders", "gen.explore_alloc", "gen.explore_circuit"}   # explore's spaces run candidates in Unicorn


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: str) -> dict:
    """module name -> the set of module names it imports (anywhere in the file, also inside
    functions); ``from a import b`` counts as a.b when that is a module, else as a."""
    files = {_module_name(p): p for p in (ROOT / package).rglob("*.py")}
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
        graph[name] = deps
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


def _unit(module: str) -> str:
    """gen.X for a module of subpackage gen/X/, the module itself for a top-level one."""
    parts = module.split(".")
    if parts[0] != "gen":
        return parts[0]
    return ".".join(parts[:2])


def test_no_cycle_between_gen_subpackages():
    graph = _modules("gen")
    units: dict = {}
    for mod, deps in graph.items():
        for d in deps:
            if d.startswith("gen.") and _unit(d) != _unit(mod):
                units.setdefault(_unit(mod), set()).add(_unit(d))
    assert _cycle(units) is None, " -> ".join(_cycle(units))


def test_the_generator_never_imports_the_emulator():
    graph = _modules("gen")
    bad = sorted(f"{m} imports {d}" for m, deps in graph.items() if m not in PIPELINE
                 for d in deps if d == "emu" or d.startswith("emu."))
    assert not bad, bad
    # and nothing it imports (transitively) does: only the pipeline reaches emu
    seen, todo = set(), [m for m in graph if m not in PIPELINE]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(d for d in graph.get(m, ()) if d in graph)
    assert not seen & PIPELINE, sorted(seen & PIPELINE)


def test_the_graph_reader_sees_imports():
    """The checks above would pass on an empty graph: make sure edges are found."""
    graph = _modules("gen")
    assert "gen.ir" in graph["gen.sched.listsched"] and "gen.cores.timing" in graph["gen.sched.listsched"]
    assert "gen.isa.thumb2" in graph["gen.kernels.thumb2_function"]
    assert "gen.kernels.ghash.asm" in graph["gen.kernels.ghash.thumb2"]       # a relative import
    assert any(d.startswith("emu") for d in graph["gen.build"])
