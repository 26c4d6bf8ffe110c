"""`slicegen explore --space orders`: segment evaluation orders of the Thumb-2 AES kernel by
simulated annealing, as candidates that anyone can rerun.

The AES kernel evaluates each kind of segment ('ark+sbox', '-lin:e:v', ...) in a stored order
(gen/kernels/aes/thumb2_orders.py). One candidate is one annealing chain
(gen/kernels/aes/thumb2.search_order) over one kind's topological orders, started from the stored
order, seeded by the candidate number, run for ``iters`` steps; its cost (``--cost``) is either
``segment`` (the modelled cycles of the segment alone, allocated and post-scheduled like the
kernel: order_cycles), ``kernel`` (the whole kernel's modelled cycles with that order: the
widest window, ~0.4 s a step) or ``live`` (``kernel`` plus the segment's live-value peak above
the registers, gen/explore/cpsat.maxlive: the peak and the cycles searched together). The chain's best order is then scored on the whole kernel and run
in Unicorn (on the configuration's core) against the IR on random inputs: an order that computes
anything else cannot win. The stored order is the baseline and wins ties, so a search never makes
the kernel slower. Same seed, budget, iters and cost => same candidates, same log, same file.
"""
from __future__ import annotations

import dataclasses

import random
import sys
import tempfile
import time
from contextlib import contextmanager
from functools import partial
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gen import ir
from gen.circuits import aes_sbox
from gen.config import Config
from gen.errors import ConfigError
from gen.ir import Program
from gen.kernels.aes import ecb_thumb2 as aes_ecb_thumb2, thumb2 as aes_thumb2
from gen.kernels.thumb2_function import IN_AGAIN
from gen.kernels.aes.breakdown import breakdown, describe
from gen.explore.cpsat import REGISTERS

COSTS = ("segment", "kernel", "live")
BASELINE = "stored"
CPSAT = "cpsat"           # the candidate whose order CP-SAT finds (gen/explore/cpsat.py)


@dataclass(frozen=True)
class Family:
    """A kernel with stored segment orders: what the search needs to know of it."""
    orders: Callable[[], dict]                # the generator's live kind -> order table
    own: Callable[[], tuple]                  # the kinds its orders file holds
    kinds: Callable[[Config], list]           # the kinds this configuration's kernel uses
    segment_program: Callable[[str], Program]
    compile: Callable[[Config, dict], object]  # orders -> .insns, .cycles, .spills
    program: Callable[[Config], Program]      # the kernel's IR (what Unicorn must agree with)
    path: Path                                # its orders file
    what: str                                 # first lines of that file's docstring
    circuit: Callable[[], str | None] = lambda: None   # the S-box circuit its file names (AES)


def _aes_kinds(config: Config) -> list:
    """The kinds whose stored orders this configuration's kernel reads (the size objective's looped
    kernel has its own 'loop:ark+sbox'; a spill = "fpu" kernel its own 'fpu:KIND' of each, which
    until written is KIND's order: aes_thumb2.spill_orders)."""
    ks = aes_thumb2.segment_kinds(8 * config.spec.key_bytes, config.slicing)
    looped = config.objective == "size" and config.face == "off"
    sbox = {"loop:ark+sbox"} if looped else {aes_thumb2.sbox_kind(c) for c in aes_sbox.CIRCUITS}
    prefix = aes_thumb2.FPU_PREFIX if config.spill == "fpu" else ""
    return sorted(prefix + k for k in sbox | {ks[-1]} | {"-" + k for k in ks[:-1]})


def reads(config: Config, kind: str, fam: "Family") -> bool:
    """Whether the configuration's kernel reads ``kind``'s stored order: one of its kinds, or (a
    spill = "fpu" kernel) a kind whose 'fpu:' order is not written yet."""
    ks = fam.kinds(config)
    fpu = aes_thumb2.FPU_PREFIX + kind
    return kind in ks or (fpu in ks and fpu not in fam.orders())


@contextmanager
def kernel_circuit(kind: str):
    """'ark+sbox@NAME' is the S-box segment of circuit NAME, 'ark+sbox' the reference circuit's:
    inside the block the encrypt2 kernel (and the IR it is checked against) uses that circuit,
    whatever CIRCUIT stores, so a circuit's order can be searched before (or after) `--space
    circuit` chooses another."""
    base, circuit = aes_thumb2.kind_circuit(kind.removeprefix(aes_thumb2.FPU_PREFIX))
    if base != "ark+sbox":
        yield
        return
    with aes_thumb2.using_circuit(circuit):
        yield


@dataclass
class Looped:
    """The size objective's looped kernel as a candidate: ``cycles`` are its pair segments'
    (what `slicegen explore` compares for it), ``lines`` its function's assembly."""
    cycles: int
    spills: int
    instructions: int
    lines: list
    insns: None = None


def _aes_compile(config: Config, orders: dict):
    """The AES kernel this configuration builds, with ``orders``: [schedule] objective = size
    (without FACE) the looped kernel (gen/kernels/aes/compact_thumb2.py), balanced the XOR-fused
    encrypt2 its ctr_pairs runs, speed the kernel of ecb_encrypt's loop (its figure a loop step,
    gen/kernels/aes/ecb_thumb2.compile_loop), which the counter mode runs XOR-fused."""
    bits = 8 * config.spec.key_bytes
    if config.objective == "size" and config.face == "off":
        from gen.kernels.aes import compact_thumb2
        with _swapped(aes_thumb2.ORDERS, orders):
            k = compact_thumb2.thumb2(config.prefix, bits, config.slicing, config.target, config.seed)
        return Looped(k.pair_segment_cycles, k.spills, k.instructions, k.lines)
    if config.objective == "balanced" and config.face == "off":
        return aes_thumb2.compile_encrypt2(bits, config.slicing, config.target, config.seed, orders=orders,
                                           xor=True, spill=config.spill)
    return aes_ecb_thumb2.compile_loop(bits, config.slicing, config.target, config.seed, orders=orders,
                                       spill=config.spill)


@contextmanager
def _swapped(table: dict, new: dict):
    """``table`` holds ``new``'s entries inside the block (kernels that read the live table)."""
    old, new = dict(table), dict(new)
    table.clear()
    table.update(new)
    try:
        yield
    finally:
        table.clear()
        table.update(old)


def _aes_program(config: Config) -> Program:
    """The IR the kernel of ``_aes_compile`` computes (the looped kernel keeps the reference S-box
    circuit; the encrypt2 kernels use the stored choice, aes_thumb2.CIRCUIT)."""
    bits = 8 * config.spec.key_bytes
    looped = config.objective == "size" and config.face == "off"
    return aes_thumb2.build(bits, config.slicing, xor=config.objective != "speed" and config.face == "off",
                            circuit=aes_sbox.DEFAULT if looped else aes_thumb2.CIRCUIT).program


def figures(config: Config, c) -> dict:
    """A candidate kernel's log figures: cycles, spill stores, instructions and (straight-line
    kernels) the per-category cycle breakdown."""
    out = {"cycles": c.cycles, "spills": c.spills}
    if c.insns is None:
        return dict(out, instructions=c.instructions)
    return dict(out, instructions=len(c.insns), reloads=c.reloads, parts=breakdown(c.insns, config.target, c.cycles))


AES = Family(
    orders=lambda: aes_thumb2.ORDERS, own=lambda: tuple(aes_thumb2.ORDERS), kinds=_aes_kinds,
    segment_program=aes_thumb2.segment_program,
    compile=_aes_compile,
    program=_aes_program,
    path=Path(aes_thumb2.__file__).with_name("thumb2_orders.py"),
    what="Evaluation orders of the fixsliced AES segments (op positions inside each segment,\n"
         "see gen/kernels/aes/thumb2.py build(); 'ark+sbox' = AddRoundKey + S-box, '-lin:..' = a\n"
         "linear segment without its AddRoundKey; 'fill:ark+sbox' = the FACE fill's, its own since\n"
         "explore changed the kernel's: gen/kernels/face/thumb2.py; 'loop:ark+sbox' = the size\n"
         "objective's looped kernel's, gen/kernels/aes/compact_thumb2.py; 'fpu:KIND' = KIND's own\n"
         "order in the spill = \"fpu\" kernels (Cortex-M4F); 'ark+sbox@bpc113' = the S-box segment\n"
         "with the other proven circuit, gen/circuits/aes_sbox.py). CIRCUIT = the\n"
         "encrypt2 kernels' S-box circuit (`slicegen explore --space circuit`, gen/explore/circuit.py).",
    circuit=lambda: aes_thumb2.CIRCUIT)


def _r256():
    from gen.kernels.rijndael256 import thumb2 as r256
    return r256


def _r256_kinds(config: Config) -> list:
    from gen.kernels.rijndael256 import encrypt as E
    nr = config.spec.rounds
    al = E.alignments(nr, config.shiftrows)
    return sorted({_r256().lin_kind(al, j, nr) for j in range(1, nr + 1)} & set(_r256().OWN_ORDERS)
                  | {_r256().sbox_kind()})


def _r256_compile(config: Config, orders: dict):
    """The kernel as the drop compiles it; in ECB mode its cycles are a step of the loop
    (gen/kernels/block_ecb_thumb2.py, manifest ``encrypt_blocks_n_per_step``), else a call."""
    from gen.kernels import block_ecb_thumb2
    from gen.kernels.block_thumb2 import ENC_PARAMS
    loop = config.mode == "ecb"
    fn = _r256().compile_encrypt(config.spec, f"{config.prefix}_encrypt_blocks", ENC_PARAMS, config.target,
                                 config.seed, config.shiftrows, orders=orders, count=loop)
    if not loop:
        return fn
    step = 4 * _r256_program(config).mems["in"][0]
    return dataclasses.replace(fn, cycles=block_ecb_thumb2.figures(fn, step, config.target)[0])


def _r256_program(config: Config) -> Program:
    from gen.kernels.rijndael256 import encrypt as E
    return E.encrypt_program(config.spec, config.shiftrows)


RIJNDAEL256 = Family(
    orders=lambda: _r256().ORDERS, own=lambda: tuple(_r256().OWN_ORDERS), kinds=_r256_kinds,
    segment_program=lambda kind: _r256().segment_program(kind), compile=_r256_compile, program=_r256_program,
    path=Path(aes_thumb2.__file__).parent.parent / "rijndael256" / "thumb2_orders.py",
    what="Evaluation orders of the Rijndael-256 linear segments (op positions inside each\n"
         "segment, see gen/kernels/rijndael256/thumb2.py build(); 'lin:<e>:<a>' = packed SR^e\n"
         "then MixColumns variant M_a; 'ark+sbox' = AES's AddRoundKey + S-box segment, its own\n"
         "since explore gave AES's kernels an order that costs this one cycles).")


def family(config: Config) -> Family:
    if config.target in aes_thumb2.CORES and config.spec.family == "aes" and config.mode == "gcm":
        return AES
    if config.target in aes_thumb2.CORES and config.spec.family == "rijndael256":
        return RIJNDAEL256
    raise ConfigError(f"--space orders searches stored segment orders (the Thumb-2 AES and Rijndael-256 "
                      f"kernels); {config.name} has none (use --space seeds)")


def kinds(config: Config) -> list[str]:
    return family(config).kinds(config)


def default_kind(config: Config) -> str:
    """The S-box segment where there is one in the orders (most of the spill code), else the first
    kind (Rijndael-256: its first linear kind; its S-box order is AES's unless it keeps its own)."""
    ks = kinds(config)
    if family(config) is RIJNDAEL256:
        return next(k for k in ks if k != _r256().sbox_kind())
    mine = (aes_thumb2.FPU_PREFIX if config.spill == "fpu" else "") + aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)
    return mine if mine in ks else next((k for k in ks if k.endswith("ark+sbox")), ks[0])


def check(config: Config, kind: str, iters: int, cost: str, first: int = 0) -> None:
    if kind not in kinds(config):
        raise ConfigError(f"--kind {kind}: {config.name}'s kernel has segments {', '.join(kinds(config))}")
    if cost not in COSTS:
        raise ConfigError(f"--cost {cost}: one of {', '.join(COSTS)}")
    if not 1 <= iters <= 10**6:
        raise ConfigError("--iters must be between 1 and 1000000")
    n = len(family(config).segment_program(kind).ops) - 16
    if not 0 <= first < n:
        raise ConfigError(f"--from-op {first}: {kind} has ops 0..{n - 1}")


def stored(kind: str, fam: Family = AES) -> tuple:
    """The order the kernel uses today for ``kind`` (an AES '-lin' kind may be its lin order filtered)."""
    orders = fam.orders()
    if kind in orders:
        return tuple(orders[kind])
    if kind.startswith(("loop:", aes_thumb2.FPU_PREFIX)):    # a variant's, before it has its own
        return stored(aes_thumb2.variant_base(kind), fam)
    if "@" in kind:                                 # another S-box circuit before its first order
        return aes_thumb2.sbox_order(orders, kind)
    full = orders[kind[1:]]
    return tuple(aes_thumb2._filtered(full, len(full)))


def compiled(config: Config, kind: str, order):
    fam = family(config)
    return fam.compile(config, dict(fam.orders(), **{kind: tuple(order)}))


def runs_like_the_ir(config: Config, c, cases: int = 2, seed: int = 1) -> bool:
    """The kernel (rk, out, in), or (rk, out, in, msg) XOR-fused, or the looped (rk, out, cb, in, n)
    for one pair, or the ECB loop's out-stepped kernel (rk, out, in - out, out + 32: what its entry
    leaves in r0-r3, gen/kernels/thumb2_function.out_stepped), assembled and run in Unicorn on the configuration's core, on random blocks,
    messages and round keys: the same out words as its IR program (gen.ir.run)."""
    from emu.machines import layout
    from emu.machines import toolchain
    from emu.machines.machine import Machine
    prog = family(config).program(config)
    n_in, n_rk, n_out = (prog.mems[m][0] for m in ("in", "rk", "out"))
    text = "\n".join(c.lines) if c.insns is None else "\n".join(i.text() for i in c.insns)
    if config.spill == "fpu":     # VMOV to s0-s15: the M4F's FPU
        text = ".fpu fpv4-sp-d16\n" + text
    with tempfile.TemporaryDirectory(prefix="slicegen-explore-") as tmp:
        code = toolchain.assemble(text, config.target, Path(tmp))
    m = Machine(config.target, code + bytes(4))
    rng = random.Random(seed)
    for _ in range(cases):
        words = [rng.getrandbits(32) for _ in range(n_in)]
        rk = [rng.getrandbits(32) for _ in range(n_rk)]
        m.reset_buffers()
        src = m.alloc(4 * n_in, b"".join(w.to_bytes(4, "little") for w in words))
        dst = m.alloc(4 * n_out)
        rkp = m.alloc(4 * n_rk, b"".join(w.to_bytes(4, "little") for w in rk))
        mems = {"in": words, "rk": rk}
        if "msg" in prog.mems:
            mems["msg"] = [rng.getrandbits(32) for _ in range(prog.mems["msg"][0])]
            msg = m.alloc(4 * len(mems["msg"]), b"".join(w.to_bytes(4, "little") for w in mems["msg"]))
            args = (rkp, dst, src, msg, 1) if c.insns is None else (rkp, dst, src, msg)
        elif c.insns is not None and IN_AGAIN in c.insns:   # the ECB loop's kernel, out-stepped:
            args = (rkp, dst, (src - dst) & 0xFFFFFFFF, dst + 32)   # entered as its ENTRY leaves r2, r3
        else:
            args = (rkp, dst, src)
        m.call(layout.FLASH_BASE, *args)
        got = [int.from_bytes(m.read(dst + 4 * i, 4), "little") for i in range(n_out)]
        if got != ir.run(prog, mems)["out"]:
            return False
    return True


def chain(config: Config, kind: str, iters: int, cost: str, seed: int, first: int = 0) -> tuple:
    """One annealing chain from the stored order -> the best order it met (``first``: only the
    segment's ops from that one on move)."""
    fam = family(config)
    start, prog = stored(kind, fam), fam.segment_program(kind)
    if cost == "segment":
        return aes_thumb2.search_order(kind, iters, seed=seed, start=start, cost="cycles", prog=prog, first=first)
    if cost == "live":
        from gen.explore.cpsat import maxlive
        return aes_thumb2.search_order(kind, iters, seed=seed, start=start, prog=prog, first=first,
                                       cost=lambda _, order: live_cost(compiled(config, kind, order).cycles,
                                                                       maxlive(prog, order)))
    return aes_thumb2.search_order(kind, iters, seed=seed, start=start, prog=prog, first=first,
                                   cost=lambda _, order: compiled(config, kind, order).cycles)


def live_cost(cycles: int, live: int) -> int:
    """``--cost live``: the kernel's cycles plus each value of the segment's live-value peak above the
    registers (a value that must wait in memory there). The winner is still the fewest cycles."""
    return cycles + max(0, live - REGISTERS)


def score(config: Config, kind: str, iters: int, cost: str, cpsat: float | None, candidate,
          first: int = 0) -> dict:
    """One candidate's log line: the chain's order (or the stored one, or CP-SAT's), its segment
    and whole-kernel cycles, and whether the kernel with it runs like the IR in Unicorn (``valid``).
    ``first`` as in ``chain``."""
    with kernel_circuit(kind):
        return _score(config, kind, iters, cost, cpsat, candidate, first)


def _score(config: Config, kind: str, iters: int, cost: str, cpsat: float | None, candidate, first: int) -> dict:
    from gen.explore.search import worker_name
    t0 = time.perf_counter()
    fam = family(config)
    extra = {}
    if candidate == BASELINE:
        order = stored(kind, fam)
    elif candidate == CPSAT:
        from gen.explore.cpsat import maxlive, maxlive_order
        from gen.explore.pressure import certain_live
        prog = fam.segment_program(kind)
        order, live, bound, status = maxlive_order(prog, cpsat, hint=stored(kind, fam),
                                                   floor=certain_live(prog).bound)
        extra = {"maxlive": live, "maxlive_bound": bound, "status": status,
                 "stored_maxlive": maxlive(fam.segment_program(kind), stored(kind, fam))}
    else:
        order = chain(config, kind, iters, cost, candidate, first)
    c = compiled(config, kind, order)
    return {"config": config.name, "search": search_name(kind, iters, cost, cpsat, first), "candidate": candidate, **extra,
            **figures(config, c), "segment_cycles": aes_thumb2.order_cycles(fam.segment_program(kind), order,
                                                                            config.target),
            "valid": runs_like_the_ir(config, c),
            "order": list(order), "worker": worker_name(), "seconds": round(time.perf_counter() - t0, 3)}


def search_name(kind: str, iters: int, cost: str, cpsat: float | None = None, first: int = 0) -> str:
    return (f"orders {kind} cost={cost} iters={iters}" + (f" cpsat={cpsat:g}" if cpsat else "")
            + (f" from-op={first}" if first else ""))


def best(lines: list[dict]) -> dict:
    """Fewest whole-kernel cycles among the lines that ran like the IR; a tie goes to the stored order."""
    from gen.explore import search as explore
    return explore.best(lines, BASELINE)


@contextmanager
def using(fam: Family, kind: str, order):
    """The kernel generator uses ``order`` for ``kind`` inside the block (the build of the winner)."""
    orders = fam.orders()
    old = orders.get(kind)
    orders[kind] = tuple(order)
    try:
        yield
    finally:
        if old is None:
            del orders[kind]
        else:
            orders[kind] = old


def orders_text(fam: Family, found: dict, history: tuple, circuit: str | None = None) -> str:
    """An orders file: its header and ``HISTORY`` name the commands that wrote it, in order (run
    one after the other from the orders before the first, they give this file again)."""
    head = (f'"""{fam.what} Any topological order is correct.\n\n'
            'Found by simulated annealing over topological orders (gen/kernels/aes/thumb2.search_order;\n'
            'cost: the modelled cycles of the segment alone, spill code and its pipelining, or of the\n'
            'whole kernel) and by CP-SAT (gen/explore/cpsat.py). Rewritten by `slicegen explore ...\n'
            '--write-orders` (gen/explore/orders.py); HISTORY lists those runs, in order, each with\n'
            'what it changed."""\n\n')
    circuit = fam.circuit() if circuit is None else circuit
    return (head + "HISTORY = (\n" + "".join(f"    {h!r},\n" for h in history) + ")\n\n"
            + (f"CIRCUIT = {circuit!r}\n\n" if circuit else "")
            + "ORDERS = {\n" + "".join(f"    {k!r}: {tuple(found[k])!r},\n" for k in sorted(found)) + "}\n")


def history(path: Path) -> tuple:
    """The HISTORY of an orders file (empty for a file written before it had one)."""
    space: dict = {}
    if path.is_file():
        exec(compile(path.read_text(), str(path), "exec"), space)
    return tuple(space.get("HISTORY", ()))


def write_orders(fam: Family, kind: str | None, order, command: str, what: str, path: Path | None = None,
                 circuit: str | None = None) -> Path:
    """The family's orders file (or ``path``) with ``order`` for ``kind`` (none: ``kind`` None), its
    other kinds as stored, ``circuit`` as its CIRCUIT (default: as stored), ``command  # what``
    added to its HISTORY.  A kind without an order of its own whose winner is the order it already
    reads (``stored``: an 'fpu:' or 'loop:' kind reads its base kind's) gets no entry: the run
    changed nothing but HISTORY."""
    path = fam.path if path is None else path
    orders = fam.orders()
    found = {k: orders[k] for k in fam.own()}
    if kind is not None and (kind in found or tuple(order) != stored(kind, fam)):
        found[kind] = tuple(order)
    path.write_text(orders_text(fam, found, history(path) + (f"{command}  # {what}",), circuit))
    return path


def effect(fam: Family, kind: str, order, configs=None) -> list[tuple]:
    """Every kernel that reads the family's orders (one configuration per distinct kernel among the
    presets, or among ``configs``) -> (name, cycles with the stored orders, with ``order`` for ``kind``).
    Beside the family's own kernels this covers those that read AES's orders file too: the size
    objective's looped kernel (its pair segments), the speed drops' counter-mode loop (``ctr_pairs``, GCM's
    bulk: the kernel XOR-fused), the FACE functions (fill, encrypt2 and for r2 the
    cached kernel and the s planes; the fill keeps 'fill:ark+sbox' when it has one) and, for
    'ark+sbox', Rijndael-256's kernels (its S-box segment is AES's). An S-box kind is priced with its
    own circuit (``kernel_circuit``): 'ark+sbox' moves the encrypt2 kernels as if bp115 were chosen."""
    with kernel_circuit(kind):
        return _effect(fam, kind, order, configs)


def _effect(fam: Family, kind: str, order, configs=None) -> list[tuple]:
    from gen import presets
    seen, out = set(), []
    for config in presets.all_presets() if configs is None else configs:
        try:
            own = family(config) is fam and reads(config, kind, fam)
        except ConfigError:
            own = False
        if config.target not in aes_thumb2.CORES:
            continue
        sliced = config.slicing if config.spec.family == "aes" else config.shiftrows
        readers = []            # functions: the live orders table -> {name suffix: cycles}
        if own and (config.cipher, sliced, config.target, config.objective, config.spill) not in seen:
            seen.add((config.cipher, sliced, config.target, config.objective, config.spill))   # balanced: XOR-fused
            readers.append(lambda orders, config=config: {"": fam.compile(config, orders).cycles})
        other = (config.cipher, sliced, config.target, config.face, config.objective, config.spill)
        if fam is AES and other not in seen:
            seen.add(other)
            readers += _readers_of_aes_orders(config, kind)
        for cycles in readers:      # each reads the live table, which `using` swaps
            old = cycles(fam.orders())
            with using(fam, kind, order):
                new = cycles(fam.orders())
            out += [(config.name + suffix, old[suffix], new[suffix]) for suffix in old]
    return out


def _readers_of_aes_orders(config: Config, kind: str) -> list:
    """Functions (the live AES orders table -> {name suffix: cycles}) for the kernels outside the AES
    family's compile that read gen/kernels/aes/thumb2_orders.py; ``using`` swaps that table."""
    bits = 8 * config.spec.key_bytes
    if config.spec.family == "rijndael256" and kind == _r256().sbox_kind() and kind not in _r256().OWN_ORDERS:
        r256 = _r256()
        return [lambda orders: {f" (AES's {kind})": _r256_compile(
            config, dict(r256.ORDERS, **{kind: aes_thumb2.sbox_order(orders, kind)})).cycles}]
    if config.spec.family != "aes" or config.mode != "gcm":
        return []
    if config.objective == "speed" and config.face == "off" and reads(config, kind, AES):   # GCM's bulk
        from gen.kernels.aes import ctr_thumb2
        return [lambda orders: {" ctr_pairs": ctr_thumb2.thumb2(
            config.prefix, bits, config.slicing, config.target, config.seed, config.spill).pair_cycles}]
    if config.objective == "size" and config.face == "off":
        from gen.kernels.aes import compact_thumb2
        return [lambda orders: {" looped pair segments": compact_thumb2.thumb2(
            config.prefix, bits, config.slicing, config.target, config.seed).pair_segment_cycles}]
    if config.face != "off":
        from gen.kernels.face import thumb2 as face_thumb2

        def face(orders):
            fns = face_thumb2.face_functions(config.prefix, bits, config.slicing, config.face, config.target,
                                             config.seed, config.spill)
            return {f" face_{w}": fns[w].cycles for w in ("fill", "encrypt2", "encrypt2c", "sv") if w in fns}
        return [face]
    return []


def candidates(budget: int, first_seed: int, cpsat: float | None = None) -> list:
    """The stored order first (the baseline), CP-SAT's order if asked, then one annealing chain per seed."""
    return [BASELINE] + ([CPSAT] if cpsat else []) + list(range(first_seed, first_seed + budget))


def search(config: Config, kind: str, iters: int, cost: str, budget: int, first_seed: int, jobs: int = 1,
           log: Path | None = None, resume: bool = False, say=lambda done, total, line: None,
           scheduler=None, cpsat: float | None = None, first: int = 0) -> list[dict]:
    """``budget`` annealing chains (0 allowed when ``cpsat``, the CP-SAT deterministic time limit, is given);
    ``first``: only the segment's ops from that one on move (chain)."""
    from gen.explore import search as explore
    check(config, kind, iters, cost, first)
    if cpsat is not None and not 0 < cpsat <= 3600:
        raise ConfigError("--cpsat must be a deterministic time limit in (0, 3600]")
    explore.check(config, max(budget, 1) if cpsat else budget, first_seed, jobs, scheduler)
    fn = partial(score, first=first) if first else score       # picklable: the pool and Dask take it
    return explore.run(config, candidates(budget, first_seed, cpsat), fn, (kind, iters, cost, cpsat), jobs,
                       log, resume, say, scheduler, search_name(kind, iters, cost, cpsat, first))


def table(rows: list[tuple]) -> str:
    """Right-aligned columns but the last (the marks)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    last = len(widths) - 1
    return "\n".join("  ".join(c.rjust(w) if i < last else c for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                      for r in rows)


def finish(config: Config, command: str, out_dir: Path, log: Path, lines: list[dict], winner: dict,
           rows: list[tuple], summary: str):
    """Build the winner through the whole pipeline (the caller has put its knob in place), write the
    plot of best cycles over candidates, print the table, the summary, where the cycles go."""
    from gen.build import build
    from gen.explore.view import svg
    assert lines[0]["valid"], "the baseline does not run like the IR"
    result = build(config, command, out_dir)
    plot = log.with_suffix(".svg")
    plot.write_text(svg([line["cycles"] for line in lines], f"{config.name}: {lines[0].get('search')}, best cycles"))
    print(table(rows))
    print(summary)
    if "parts" in winner:                   # straight-line kernels (not the looped one)
        print(f"where the cycles go, the baseline: {describe(lines[0]['parts'])}")
        print(f"where the cycles go, the winner:   {describe(winner['parts'])}")
    print(f"wrote {result.path}, log {log}, plot {plot}", file=sys.stderr)
    return result


def explore(config: Config, command: str, kind: str, iters: int, cost: str, budget: int, first_seed: int,
            out_dir: Path, jobs: int = 1, log: Path | None = None, resume: bool = False, scheduler=None,
            write: Path | bool | None = None, cpsat: float | None = None, first: int = 0):
    """Search, build the winner through the whole pipeline (with its order), write the drop;
    with ``write``, also the orders file (``True``: the family's own; the winner's order for
    ``kind``, the others as stored)."""
    from gen.explore.view import Bar
    check(config, kind, iters, cost)
    log = log if log is not None else out_dir / f"explore-{config.name}-orders.jsonl"
    bar = Bar(f"{config.name}: {kind} chains")
    try:
        lines = search(config, kind, iters, cost, budget, first_seed, jobs, log, resume, bar, scheduler, cpsat, first)
    finally:
        bar.close()
    winner, base, fam = best(lines), lines[0], family(config)
    rows = [("candidate", "cycles", "segment", "valid", "")] + [
        (str(line["candidate"]), str(line["cycles"]), str(line["segment_cycles"]), "yes" if line["valid"] else "NO",
         ", ".join((["best"] if line is winner else []) + (["baseline"] if line["candidate"] == BASELINE else [])))
        for line in lines]
    with using(fam, kind, winner["order"]), kernel_circuit(kind):
        result = finish(config, command, out_dir, log, lines, winner, rows,
                        f"{config.name}: {budget} annealing chains of {iters} steps on {kind} (cost {cost}); best "
                        f"{winner['candidate']}: {winner['cycles']} modelled cycles; the stored order: {base['cycles']}")
    for line in lines:
        if line["candidate"] == CPSAT:
            print(f"CP-SAT on {kind}: MAXLIVE {line['maxlive']} ({line['status']}, bound {line['maxlive_bound']}; "
                  f"{REGISTERS} registers), the stored order's {line['stored_maxlive']}; segment "
                  f"{line['segment_cycles']} cycles against {base['segment_cycles']}, kernel {line['cycles']} against "
                  f"{base['cycles']}")
    if write:           # the same command gives the same file, unless another kernel would be slower
        effects = effect(fam, kind, winner["order"])
        slower = [(name, old, new) for name, old, new in effects if new > old]
        for name, old, new in effects:
            print(f"  with it, {name}: {old} -> {new} modelled cycles")
        if slower:
            print(f"orders file not written: {', '.join(n for n, _, _ in slower)} would be slower")
            return lines, result
        write = write_orders(fam, kind, winner["order"], command, f"{kind}: {base['cycles']} -> {winner['cycles']} "
                             f"cycles per {config.name} call, candidate {winner['candidate']}",
                             None if write is True else write)
        print(f"wrote {write}")
    return lines, result
