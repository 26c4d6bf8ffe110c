"""`slicegen explore --space orders`: segment evaluation orders of the Thumb-2 AES kernel by
simulated annealing, as candidates that anyone can rerun.

The AES kernel evaluates each kind of segment ('ark+sbox', '-lin:e:v', ...) in a stored order
(gen/kernels/aes/thumb2_orders.py). One candidate is one annealing chain
(gen/kernels/aes/thumb2.search_order) over one kind's topological orders, started from the stored
order, seeded by the candidate number, run for ``iters`` steps; its cost (``--cost``) is either
``segment`` (the modelled cycles of the segment alone, allocated and post-scheduled like the
kernel: order_cycles) or ``kernel`` (the whole kernel's modelled cycles with that order: the
widest window, ~0.4 s a step). The chain's best order is then scored on the whole kernel and run
in Unicorn (on the configuration's core) against the IR on random inputs: an order that computes
anything else cannot win. The stored order is the baseline and wins ties, so a search never makes
the kernel slower. Same seed, budget, iters and cost => same candidates, same log, same file.
"""
from __future__ import annotations

import random
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from gen import ir
from gen.config import Config
from gen.errors import ConfigError
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.kernels.aes.breakdown import breakdown, describe

COSTS = ("segment", "kernel")
BASELINE = "stored"
ORDERS_FILE = Path(aes_thumb2.__file__).with_name("thumb2_orders.py")


def kinds(config: Config) -> list[str]:
    """The stored-order kinds the configuration's AES kernel uses (build(ark_in_sbox=True))."""
    ks = aes_thumb2.segment_kinds(8 * config.spec.key_bytes, config.slicing)
    return sorted({"ark+sbox", ks[-1]} | {"-" + k for k in ks[:-1]})


def check(config: Config, kind: str, iters: int, cost: str) -> None:
    if config.spec.family != "aes" or config.mode != "gcm" or config.target not in aes_thumb2.CORES:
        raise ConfigError(f"--space orders searches the stored orders of the Thumb-2 AES kernel; "
                          f"{config.name} has none (use --space seeds)")
    if kind not in kinds(config):
        raise ConfigError(f"--kind {kind}: {config.name}'s kernel has segments {', '.join(kinds(config))}")
    if cost not in COSTS:
        raise ConfigError(f"--cost {cost}: one of {', '.join(COSTS)}")
    if not 1 <= iters <= 10**6:
        raise ConfigError("--iters must be between 1 and 1000000")


def stored(kind: str) -> tuple:
    """The order the kernel uses today for ``kind`` (a '-lin' kind may be its lin order filtered)."""
    if kind in aes_thumb2.ORDERS:
        return tuple(aes_thumb2.ORDERS[kind])
    full = aes_thumb2.ORDERS[kind[1:]]
    return tuple(aes_thumb2._filtered(full, len(full)))


def compiled(config: Config, kind: str, order) -> aes_thumb2.Compiled:
    orders = dict(aes_thumb2.ORDERS, **{kind: tuple(order)})
    return aes_thumb2.compile_encrypt2(8 * config.spec.key_bytes, config.slicing, config.target,
                                       config.seed, orders=orders)


def runs_like_the_ir(config: Config, c: aes_thumb2.Compiled, cases: int = 2, seed: int = 1) -> bool:
    """The kernel assembled and run in Unicorn on the configuration's core, on random blocks and
    round keys: the same out words as the IR program (gen.ir.run)."""
    from emu import layout, toolchain
    from emu.machine import Machine
    keybits = 8 * config.spec.key_bytes
    prog = aes_thumb2.build(keybits, config.slicing).program
    n_rk = 8 * (AF.ROUNDS[keybits] + 1)
    with tempfile.TemporaryDirectory(prefix="slicegen-explore-") as tmp:
        code = toolchain.assemble("\n".join(i.text() for i in c.insns), config.target, Path(tmp))
    m = Machine(config.target, code + bytes(4))
    rng = random.Random(seed)
    for _ in range(cases):
        words = [rng.getrandbits(32) for _ in range(8)]
        rk = [rng.getrandbits(32) for _ in range(n_rk)]
        m.reset_buffers()
        src = m.alloc(32, b"".join(w.to_bytes(4, "little") for w in words))
        dst = m.alloc(32)
        rkp = m.alloc(4 * n_rk, b"".join(w.to_bytes(4, "little") for w in rk))
        m.call(layout.FLASH_BASE, rkp, dst, src)
        got = [int.from_bytes(m.read(dst + 4 * i, 4), "little") for i in range(8)]
        if got != ir.run(prog, {"in": words, "rk": rk})["out"]:
            return False
    return True


def chain(config: Config, kind: str, iters: int, cost: str, seed: int) -> tuple:
    """One annealing chain from the stored order -> the best order it met."""
    start = stored(kind)
    if cost == "segment":
        return aes_thumb2.search_order(kind, iters, seed=seed, start=start, cost="cycles")
    return aes_thumb2.search_order(kind, iters, seed=seed, start=start,
                                   cost=lambda prog, order: compiled(config, kind, order).cycles)


def score(config: Config, kind: str, iters: int, cost: str, candidate) -> dict:
    """One candidate's log line: the chain's order, its segment and whole-kernel cycles, and
    whether the kernel with it runs like the IR in Unicorn (``valid``)."""
    from gen.explore import worker_name
    t0 = time.perf_counter()
    order = stored(kind) if candidate == BASELINE else chain(config, kind, iters, cost, candidate)
    c = compiled(config, kind, order)
    return {"config": config.name, "search": search_name(kind, iters, cost), "candidate": candidate,
            "cycles": c.cycles, "segment_cycles": aes_thumb2.order_cycles(aes_thumb2.segment_program(kind), order,
                                                                          config.target),
            "spills": c.spills, "instructions": len(c.insns), "parts": breakdown(c.insns, config.target),
            "valid": runs_like_the_ir(config, c),
            "order": list(order), "worker": worker_name(), "seconds": round(time.perf_counter() - t0, 3)}


def search_name(kind: str, iters: int, cost: str) -> str:
    return f"orders {kind} cost={cost} iters={iters}"


def best(lines: list[dict]) -> dict:
    """Fewest whole-kernel cycles among the lines that ran like the IR; a tie goes to the stored order."""
    valid = [line for line in lines if line["valid"]]
    return min(enumerate(valid), key=lambda il: (il[1]["cycles"], il[1]["candidate"] != BASELINE, il[0]))[1]


@contextmanager
def using(kind: str, order):
    """The kernel generators use ``order`` for ``kind`` inside the block (the build of the winner)."""
    old = aes_thumb2.ORDERS.get(kind)
    aes_thumb2.ORDERS[kind] = tuple(order)
    try:
        yield
    finally:
        if old is None:
            del aes_thumb2.ORDERS[kind]
        else:
            aes_thumb2.ORDERS[kind] = old


def orders_text(found: dict, command: str, what: str) -> str:
    """gen/kernels/aes/thumb2_orders.py: its header names the command that wrote it."""
    head = ('"""Evaluation orders of the fixsliced AES segments (op positions inside each segment,\n'
            'see gen/kernels/aes/thumb2.py build(); \'ark+sbox\' = AddRoundKey + S-box, \'-lin:..\' = a\n'
            'linear segment without its AddRoundKey). Any topological order is correct.\n\n'
            'The orders were found by simulated annealing (gen/kernels/aes/thumb2.search_order, cost =\n'
            'order_cycles: spill code and its pipelining; \'ark+sbox\' was refined with a window as cost).\n'
            f'Last written by:\n    {command}\n'
            f'({what}; gen/explore_orders.py.)\n"""\n\n')
    return head + "ORDERS = {\n" + "".join(f"    {k!r}: {tuple(found[k])!r},\n" for k in sorted(found)) + "}\n"


def write_orders(kind: str, order, command: str, what: str, path: Path = ORDERS_FILE) -> Path:
    found = dict(aes_thumb2.ORDERS, **{kind: tuple(order)})
    path.write_text(orders_text(found, command, what))
    return path


def candidates(budget: int, first_seed: int) -> list:
    """The stored order first (the baseline), then one annealing chain per seed."""
    return [BASELINE] + list(range(first_seed, first_seed + budget))


def search(config: Config, kind: str, iters: int, cost: str, budget: int, first_seed: int, jobs: int = 1,
           log: Path | None = None, resume: bool = False, say=lambda done, total, line: None,
           scheduler=None) -> list[dict]:
    from gen import explore
    check(config, kind, iters, cost)
    explore.check(config, budget, first_seed, jobs, scheduler)
    return explore.run(config, candidates(budget, first_seed), score, (kind, iters, cost), jobs, log, resume,
                       say, scheduler, search_name(kind, iters, cost))


def table(lines: list[dict], winner: dict) -> str:
    rows = [("candidate", "cycles", "segment", "valid", "")]
    for line in lines:
        mark = ", ".join((["best"] if line is winner else []) + (["baseline"] if line["candidate"] == BASELINE else []))
        rows.append((str(line["candidate"]), str(line["cycles"]), str(line["segment_cycles"]),
                     "yes" if line["valid"] else "NO", mark))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.rjust(w) if i < 4 else c for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in rows)


def explore(config: Config, command: str, kind: str, iters: int, cost: str, budget: int, first_seed: int,
            out_dir: Path, jobs: int = 1, log: Path | None = None, resume: bool = False, scheduler=None,
            write: Path | None = None):
    """Search, build the winner through the whole pipeline (with its order), write the drop;
    with ``write``, also the orders file (the winner's order for ``kind``, the others as stored)."""
    from gen.build import build
    from gen.explore_view import Bar, svg
    check(config, kind, iters, cost)
    log = log if log is not None else out_dir / f"explore-{config.name}-orders.jsonl"
    bar = Bar(f"{config.name}: {kind} chains")
    try:
        lines = search(config, kind, iters, cost, budget, first_seed, jobs, log, resume, bar, scheduler)
    finally:
        bar.close()
    winner = best(lines)
    base = lines[0]
    assert base["valid"], "the stored order does not run like the IR"
    with using(kind, winner["order"]):
        result = build(config, command, out_dir)
    plot = log.with_suffix(".svg")
    plot.write_text(svg([line["cycles"] for line in lines], f"{config.name}: {kind} orders, best kernel cycles"))
    print(table(lines, winner))
    print(f"{config.name}: {budget} annealing chains of {iters} steps on {kind} (cost {cost}); best "
          f"{winner['candidate']}: {winner['cycles']} cycles per encrypt2; the stored order: {base['cycles']}")
    print(f"where the cycles go, the stored order: {describe(base['parts'])}")
    print(f"where the cycles go, the winner:       {describe(winner['parts'])}")
    if write is not None:       # always written: the same command gives the same file
        write_orders(kind, winner["order"], command, f"{kind}: {base['cycles']} -> {winner['cycles']} "
                     f"cycles per {config.name} encrypt2, candidate {winner['candidate']}", write)
        print(f"wrote {write}")
    print(f"wrote {result.path}, log {log}, plot {plot}", file=__import__("sys").stderr)
    return lines, result
