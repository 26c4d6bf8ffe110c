"""Fixsliced AES-128/192/256 (ffs and sfs) encrypting two blocks, as generated Thumb-2.

``compile_encrypt2(keybits, slicing, core, seed=0, ...) -> Compiled``: the kernel ``(rk, out, in)``
and its figures; ecb_thumb2.py loops it over pairs, ctr_thumb2.py fuses it with the CTR XOR.
The trick: the kernel is spill-bound, so fixsliced.py's IR is scheduled in pieces (per round:
AddRoundKey + S-box, then the linear layer), each in an evaluation order searched offline
(thumb2_orders.py), and the passes after register allocation (gen/sched/) win back what they can:
pipelined loads, STRD spill pairs, recomputing instead of reloading.  ARMv7-M only, so one code
for M3 and M4; ``spill="fpu"`` (M4F) spills to s0-s15.  The six steps: docs/internals/aes-kernels.md.
"""
from __future__ import annotations

import dataclasses
import math
import random
from contextlib import contextmanager
from dataclasses import dataclass

from gen.circuits import aes_sbox
from gen.ir import Builder, Program
from gen.isa import thumb2 as t2
from gen.kernels.aes import fixsliced as AF
from gen.cores import timing as T
from gen.sched import listsched, regalloc, reload_pairs, strd_pairs

CORES = ("cortex-m4", "cortex-m3")
try:    # evaluation orders, written by `slicegen explore --space orders --write-orders` (gen/explore/orders.py)
    from gen.kernels.aes.thumb2_orders import ORDERS
except ImportError:       # pragma: no cover - before the first search
    ORDERS: dict = {}
try:    # the kernel's S-box circuit, written by `slicegen explore --space circuit --write-orders`
    from gen.kernels.aes.thumb2_orders import CIRCUIT
except ImportError:       # pragma: no cover - an orders file from before the choice
    CIRCUIT = aes_sbox.DEFAULT


def sbox_kind(circuit: str, base: str = "ark+sbox") -> str:
    """The orders key of an S-box segment evaluated with ``circuit``: the base kind for the
    reference circuit (aes_sbox.DEFAULT), 'base@circuit' for another (its ops are other ops)."""
    aes_sbox.circuit_gates(circuit)
    return base if circuit == aes_sbox.DEFAULT else f"{base}@{circuit}"


@contextmanager
def using_circuit(circuit: str):
    """The encrypt2 kernels (and their IR, build's default in compile_encrypt2) use ``circuit``
    inside the block, whatever the orders file's CIRCUIT says (explore scores a choice with it)."""
    global CIRCUIT
    aes_sbox.circuit_gates(circuit)
    old, CIRCUIT = CIRCUIT, circuit
    try:
        yield
    finally:
        CIRCUIT = old


#: orders-key prefix of the spill = "fpu" kernels' own orders ('fpu:ark+sbox@bpc113')
FPU_PREFIX = "fpu:"


def spill_orders(orders: dict, spill: str) -> dict:
    """The orders a kernel spilling to ``spill`` reads: with "fpu", every 'fpu:KIND' in
    ``orders`` stands for KIND (a kind without one keeps the stack kernels' order)."""
    if spill != "fpu":
        return orders
    n = len(FPU_PREFIX)
    return dict(orders, **{k[n:]: v for k, v in orders.items() if k.startswith(FPU_PREFIX)})


def variant_base(kind: str) -> str:
    """The kind of ops under an orders key: 'loop:' (the looped kernel's) and 'fpu:' (the spill =
    "fpu" kernels') name their own order of the same segment."""
    for prefix in ("loop:", FPU_PREFIX):
        if kind.startswith(prefix):
            return kind[len(prefix):]
    return kind


def kind_circuit(kind: str) -> tuple[str, str]:
    """(base kind, circuit) of an orders key (sbox_kind's inverse)."""
    base, _, circuit = kind.partition("@")
    return base, circuit or aes_sbox.DEFAULT

#: the frame: r0 (rk), r1 (out) and r2 (in) are pushed with the callee-saved registers, so
#: all three pointers have a home on the stack and all 14 registers r0-r12, lr hold values
PUSHED = ("r0", "r1", "r2", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr")
POPPED = ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "pc")
HOME_OUT, HOME_IN, HOME_RK, HOME_MSG = -1, -2, -3, -4
HOME_REG = {HOME_RK: "r0", HOME_OUT: "r1", HOME_IN: "r2", HOME_MSG: "r3"}
#: the homes' FPU registers with ``fpu_homes`` (compile_encrypt2), above the spill slots s0-s11
HOME_SREG = {HOME_RK: 12, HOME_OUT: 13, HOME_IN: 14, HOME_MSG: 15}
#: the same, by argument register: 'r0' -> 's12', ...
FPU_HOME = {HOME_REG[slot]: f"s{k}" for slot, k in HOME_SREG.items()}
#: the first FPU register of the round keys kept there (``fpu_rk``): s16-s31, the callee-saved half
FPU_RK = 16
#: the rounds whose keys the looped Cortex-M4F kernels (ECB pairs, ctr_pairs) keep in s16-s31.
#: Measured (cycle model, seed 0, spill = fpu, per pair in the ECB loop), rounds (j, j+1) for
#: j = 0..9: AES-128 ffs 2305 without -> 2301 (j = 0: round 0's loads pipeline behind the input's
#: anyway), 2299 for j = 1, 2, 4, 5, 7, 8, 2300 for 3, 6, 9; AES-192 ffs 2737 -> 2731, AES-256
#: ffs 3177 -> 3171, AES-128 sfs 2385 -> 2379 (j = 1). The VPUSH, VLDM and VPOP cost 47 a call.
FPU_RK_ROUNDS = (1, 2)
BASES = {
    "rk": regalloc.BaseSpec("home", "r0", HOME_RK),
    "out": regalloc.BaseSpec("home", "r1", HOME_OUT),
    "in": regalloc.BaseSpec("home", "r2", HOME_IN),
}
#: the XOR-fused kernel (``xor=True``: out = msg ^ E(in)) has a fourth pointer, msg, in r3
PUSHED_XOR = ("r0", "r1", "r2", "r3") + PUSHED[3:]
BASES_XOR = dict(BASES, msg=regalloc.BaseSpec("home", "r3", HOME_MSG))
#: the earlier frame (rk pinned in r0, 13 registers for values), kept for comparison
BASES_PINNED_RK = {
    "rk": regalloc.BaseSpec("pinned", "r0"),
    "out": regalloc.BaseSpec("home", "r1", HOME_OUT),
    "in": regalloc.BaseSpec("home", "r2", HOME_IN),
}


def home_moves(frame: int, fpu_homes: bool = False, pushed=PUSHED_XOR) -> tuple:
    """(get, put): for an argument register, the instruction that reloads it from its home and the
    one that stores it back there - ``ldr``/``str`` at ``frame`` + its place in ``pushed``, or with
    ``fpu_homes`` a VMOV from/to its FPU register (FPU_HOME). What a loop's back edge is made of."""
    if fpu_homes:
        return (lambda r: t2.Insn("vmov", dst=r, srcs=(FPU_HOME[r],)),
                lambda r: t2.Insn("vmov", dst=FPU_HOME[r], srcs=(r,)))
    return (lambda r: t2.ldr(r, "sp", frame + 4 * pushed.index(r)),
            lambda r: t2.str_(r, "sp", frame + 4 * pushed.index(r)))


def home_offset(slot: int, frame: int, pushed=PUSHED) -> int:
    """sp offset of a home slot (negative id) or a spill slot, ``frame`` bytes of spill slots
    below the pushed registers."""
    if slot < 0:
        return frame + 4 * pushed.index(HOME_REG[slot])
    return 4 * slot


# --------------------------------------------------------------------------- the program

@dataclass
class Segmented:
    program: Program
    segment: list          # segment id of every op
    rank: list             # fixed position inside its segment (S-box ops) or None


def segment_kinds(keybits: int, slicing: str) -> list:
    """Kind of every round's linear segment: 'lin:<e>:<j>' (e = explicit packed ShiftRows^2
    or not, j = MixColumns variant, '-' in the last round)."""
    nr = AF.check_args(keybits, slicing)
    al = AF.alignments(nr, slicing)
    return [f"lin:{(al[j - 1] + 1 - al[j]) % 4}:{al[j] if j < nr else '-'}" for j in range(1, nr + 1)]


def _emit_linear(b: Builder, q: list, kind: str, j: int) -> list:
    _, e, v = kind.split(":")
    if e == "2":
        q = AF.emit_packed_shiftrows2(b, q)
    if v != "-":
        q = AF.emit_mixcolumns(b, q, int(v))
    return AF.emit_add_round_key(b, q, j)


#: ops of an AddRoundKey (8 round-key loads, 8 XORs); the one before an S-box opens that
#: S-box's segment ('ark+sbox'), so the stored order can interleave the round-key loads with
#: the S-box's first XORs and some spill stores pipeline behind them (LDR;STR).  Measured: a
#: few cycles per call, not more (at a spill point no register is free for a load)
ARK_OPS = 16


def _filtered(order, n: int):
    """A lin order without its AddRoundKey (its last ARK_OPS ops): still topological."""
    return tuple(g for g in order if g < n - ARK_OPS) if order else order


def build(keybits: int, slicing: str, orders=None, ark_in_sbox: bool = False, xor: bool = False,
          circuit: str = aes_sbox.DEFAULT) -> Segmented:
    """encrypt2_ir with segment marks (see module docstring); ``orders`` maps a segment kind
    ('sbox', 'lin:...') to a fixed order of its ops (default ORDERS).

    ``ark_in_sbox`` (the kernel's choice, compile_encrypt2): every AddRoundKey that feeds an
    S-box belongs to the S-box's segment (kind 'ark+sbox', its stored order), the linear
    segments before it end with MixColumns (their stored order without the ARK ops).  The
    default keeps AddRoundKey at the end of the linear segments (the segmentation FACE reuses:
    segment 2j-1 starts with the S-box of round j).

    ``xor``: the counter-mode form, out = msg ^ E(in) (a memory ``msg`` of 8 words; each output
    word is its keystream word XORed with the message word).

    ``circuit``: the S-box circuit (aes_sbox.CIRCUITS); another than the reference one reads its
    own S-box order (``sbox_kind``: 'ark+sbox@bpc113')."""
    orders = ORDERS if orders is None else orders
    nr = AF.check_args(keybits, slicing)
    al = AF.alignments(nr, slicing)
    kinds = segment_kinds(keybits, slicing)
    b = Builder(f"aes{keybits}_{slicing}_encrypt2", is_imm=t2.is_imm)
    b.declare("in", 8, "r")
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("out", 8, "w")
    if xor:
        b.declare("msg", 8, "r")
    marks = []                                        # (start op, kind)
    words = [b.ld("in", i) for i in range(8)]
    q = AF.emit_pack(b, words)
    skind = sbox_kind(circuit, "ark+sbox" if ark_in_sbox else "sbox")
    if ark_in_sbox:
        marks.append((len(b.ops), skind))
    q = AF.emit_add_round_key(b, q, 0)
    for j in range(1, nr + 1):
        if not ark_in_sbox:
            marks.append((len(b.ops), skind))
        q = AF.emit_sbox(b, q, circuit)
        if ark_in_sbox and j < nr:
            marks.append((len(b.ops), "-" + kinds[j - 1]))
            _, e, v = kinds[j - 1].split(":")
            if e == "2":
                q = AF.emit_packed_shiftrows2(b, q)
            q = AF.emit_mixcolumns(b, q, int(v))
            marks.append((len(b.ops), skind))
            q = AF.emit_add_round_key(b, q, j)
        else:
            marks.append((len(b.ops), kinds[j - 1]))
            q = _emit_linear(b, q, kinds[j - 1], j)
    marks.append((len(b.ops), "final"))
    w = AF.emit_unpack(b, q)
    if al[nr] % 4 == 2:
        w = AF.emit_natural_shiftrows2(b, w)
    for i in range(8):
        b.st("out", i, b.eor(w[i], b.ld("msg", i)) if xor else w[i])
    n_raw = len(b.ops)
    prog = b.finish()
    assert len(prog.ops) == n_raw, "dead code in encrypt2: segment marks would be off"
    ref = AF.encrypt2_ir(keybits, slicing, circuit)
    n_ref = len(ref.ops) - 8                          # xor: the same program but for its last stores
    assert [str(o) for o in prog.ops[:n_ref]] == [str(o) for o in ref.ops[:n_ref]], "diverged from encrypt2_ir"
    assert xor or len(prog.ops) == len(ref.ops)
    segment, rank = [0] * n_raw, [None] * n_raw
    bounds = [m for m, _ in marks] + [n_raw]
    for s, (start, kind) in enumerate(marks):
        if kind.startswith("-"):                    # a linear segment without its AddRoundKey
            full = orders.get(kind[1:])
            order = orders.get(kind) or _filtered(full, len(full) if full else 0)
        else:
            order = sbox_order(orders, kind)
        pos = {g: k for k, g in enumerate(order)} if order else None
        if pos is not None:
            assert len(pos) == bounds[s + 1] - start, f"order for {kind} has the wrong length"
        for i in range(start, bounds[s + 1]):
            segment[i] = s + 1
            if pos is not None:
                rank[i] = pos[i - start]
    return Segmented(prog, segment, rank)


# --------------------------------------------------------------------------- compilation

@dataclass
class Compiled:
    insns: list            # the whole function, prologue to return, offsets resolved
    body: list             # the kernel between prologue and epilogue
    cycles: int            # gen.cores.timing model, whole function (push .. pop pc)
    spills: int
    reloads: int           # stack reloads of spilled values
    remats: int            # round-key words loaded again from rk
    base_reloads: int      # in/out pointer reloads
    stack_bytes: int
    n_ops: int             # IR ops
    core: str
    seed: int
    strd: int = 0          # pairs of spill stores written by one STRD
    moved: int = 0         # loads/stores moved next to a load by gen/sched/reload_pairs.py
    circuit: str = aes_sbox.DEFAULT   # the S-box circuit (aes_sbox.CIRCUITS)
    spill: str = "stack"   # where spilled values live: "stack" or "fpu" (s0-s15, t2.fpu_slots)
    fpu_homes: bool = False  # the argument registers' homes are s12-s15 (compile_encrypt2)

    @property
    def cycles_per_byte(self) -> float:
        return self.cycles / 32


def frame_size(n_slots: int, pushed=PUSHED) -> int:
    """Bytes subtracted from sp after the push: the spill slots, 8-byte aligned overall."""
    s = 4 * n_slots
    if (4 * len(pushed) + s) % 8:
        s += 4
    return s


def post(alloc, core: str, seed: int = 0) -> list:
    """Post-allocation schedule: the cheaper (cycle model) of listsched's two methods, each
    followed by listsched.polish (local moves priced by the pair terms of the timing table)."""
    best = None
    ro = {id(alloc.insns[k]) for k in alloc.readonly}
    for method in POST_METHODS:
        body = listsched.post_schedule(alloc.insns, core, seed, readonly=alloc.readonly, method=method)
        body = listsched.polish(body, readonly=frozenset(k for k, i in enumerate(body) if id(i) in ro))
        c = listsched.cycles(body, core)
        if best is None or c < best[0]:
            best = (c, body)
    return best[1]


POST_METHODS = ("greedy", "gaps")

#: where the kernel keeps spilled values: the stack frame, or the FPU's s0-s15 (Cortex-M4F)
SPILLS = ("stack", "fpu")

#: keyword arguments of regalloc.allocate for the kernel (its eviction knobs, clean_bonus and
#: pick, and ALU rematerialization: gen/sched/remat.py); the others are regalloc's defaults.
#: gen/explore/alloc.py searches them.  The same policy allocates every kernel that reads the
#: stored 'ark+sbox' order (compact_thumb2, Rijndael-256): the order was found with it.
#: Measured, AES-128 ffs M4: recompute alone 2,503 -> 2,503 cycles (10 reloads become EORs),
#: with the order annealed for it 2,483.
ALLOC_POLICY: dict = {"recompute": True, "remat_bonus": 2.0}


def compile_encrypt2(keybits: int, slicing: str, core: str, seed: int = 0,
                     orders=None, xor: bool = False, circuit: str | None = None, spill: str = "stack",
                     count: bool = False, fpu_homes: bool = False, fpu_rk: tuple = ()) -> Compiled:
    """The kernel ``(rk, out, in)``; ``xor``: ``(rk, out, in, msg)``, out = msg ^ E(in).
    ``count``: r3 is pushed too, as the home of a loop count (the ECB loop of
    gen/kernels/aes/ecb_thumb2.py): the same body, other frame offsets.
    ``fpu_homes`` (with spill = "fpu"): the argument registers' homes are s12-s15 (``HOME_SREG``)
    instead of the stack: the prologue moves r0-r3 there (VMOV, notes "home") and pushes only
    the callee-saved registers, a pointer reload is a 1-cycle VMOV (gen/isa/thumb2.fpu_homes);
    spill slots then use s0-s11 only.
    ``fpu_rk`` (with fpu_homes): one or two consecutive rounds whose round keys live in
    s16-s23 / s16-s31 (``FPU_RK``): the prologue saves those registers (VPUSH, callee-saved
    under the AAPCS) and fills them by one VLDM, their loads in the body are 1-cycle VMOVs that
    need no rk pointer (regalloc ``fpu_words``), the epilogue restores them (VPOP).
    ``circuit``: the S-box circuit, default the stored choice ``CIRCUIT``. ``spill``: "stack",
    or "fpu" (Cortex-M4F: spill slots in s0-s15, moved there before the post-allocation
    schedule so that it orders the 1-cycle VMOVs, gen/isa/thumb2.fpu_slots)."""
    if core not in CORES:
        raise ValueError(f"core must be one of {', '.join(CORES)} (got {core!r})")
    if spill not in SPILLS:
        raise ValueError(f"spill must be one of {', '.join(SPILLS)} (got {spill!r})")
    if spill == "fpu" and not T.valid_on("vmov", core):
        raise ValueError(f"spill = fpu needs an FPU; {core} has none")
    if fpu_homes and spill != "fpu":
        raise ValueError("compile_encrypt2: fpu_homes needs spill = fpu")
    if fpu_rk and not fpu_homes:
        raise ValueError("compile_encrypt2: fpu_rk needs fpu_homes")
    nr = AF.check_args(keybits, slicing)
    if fpu_rk and (len(fpu_rk) > 2 or tuple(fpu_rk) != tuple(range(fpu_rk[0], fpu_rk[0] + len(fpu_rk)))
                   or not 0 <= fpu_rk[0] <= fpu_rk[-1] <= nr):
        raise ValueError(f"compile_encrypt2: fpu_rk must be one or two consecutive rounds of 0..{nr} (got {fpu_rk!r})")
    fpu_words = {("rk", 8 * j + i): f"s{FPU_RK + 8 * k + i}" for k, j in enumerate(fpu_rk) for i in range(8)}
    if xor and count:
        raise ValueError("compile_encrypt2: the XOR-fused kernel has no count register (r3 is msg)")
    circuit = CIRCUIT if circuit is None else circuit
    bases, pushed = (BASES_XOR, PUSHED_XOR) if xor else (BASES, PUSHED_XOR if count else PUSHED)
    orders = spill_orders(ORDERS if orders is None else orders, spill)
    seg = build(keybits, slicing, orders, ark_in_sbox=True, xor=xor, circuit=circuit)
    order = listsched.schedule(seg.program, seed, "pressure", segments=seg.segment, rank=seg.rank)
    alloc = regalloc.allocate(seg.program, order, bases, seed=seed, fpu_words=fpu_words, **ALLOC_POLICY)
    regalloc.check_allocation(seg.program, order, alloc, bases, fpu_words=fpu_words)
    if spill == "fpu":
        insns = t2.fpu_slots(alloc.insns, limit=min(HOME_SREG.values()) if fpu_homes else None)
        if fpu_homes:
            insns = t2.fpu_homes(insns, {slot: FPU_HOME[reg] for slot, reg in HOME_REG.items()})
            args = [r for r in pushed if r in FPU_HOME]
            pushed = tuple(r for r in pushed if r not in FPU_HOME)
        alloc = dataclasses.replace(alloc, insns=insns)
    body = post(alloc, core, seed)
    paired, n_strd = strd_pairs.pair(body, core)
    strd_pairs.check(body, paired)
    body, n_moved = reload_pairs.pair(paired, core)        # checked inside (reload_pairs.check)
    s = frame_size(strd_pairs.n_slots(body), pushed)

    body = [t2.resolve(i, lambda slot: home_offset(slot, s, pushed)) for i in body]
    sregs = tuple(f"s{FPU_RK + k}" for k in range(8 * len(fpu_rk)))
    pro = [t2.push(pushed)] + ([t2.Insn("vpush", regs=sregs)] if sregs else []) + ([t2.add_sp(-s)] if s else [])
    if fpu_homes:
        pro += [t2.Insn("vmov", dst=FPU_HOME[r], srcs=(r,), note="home") for r in args]
    if sregs:
        note = f"frame: round keys {fpu_rk[0]}" + (f"-{fpu_rk[-1]}" if len(fpu_rk) > 1 else "") + " in FPU registers"
        base = "r0"
        if fpu_rk[0]:
            pro.append(t2.Insn("add", dst="r12", srcs=("r0",), imm=32 * fpu_rk[0], note=note))
            base = "r12"
        pro.append(t2.Insn("vldm", base=base, regs=sregs, note=note))
    n_args = len(pushed) - len(POPPED)          # argument registers pushed (homes)
    epi = [t2.add_sp(s + 4 * n_args)] + ([t2.Insn("vpop", regs=sregs)] if sregs else []) + [t2.pop(POPPED)]
    insns = pro + body + epi
    t2.check_core(insns, core)
    return Compiled(insns=insns, body=body, cycles=listsched.cycles(insns, core),
                    spills=alloc.spills, reloads=alloc.reloads, remats=alloc.remats,
                    base_reloads=alloc.base_reloads, stack_bytes=4 * len(pushed) + 4 * len(sregs) + s,
                    n_ops=len(seg.program.ops), core=core, seed=seed, strd=n_strd, moved=n_moved,
                    circuit=circuit, spill=spill, fpu_homes=fpu_homes)


# --------------------------------------------------------------------------- S-box order search

def segment_program(kind: str) -> Program:
    """One segment alone: its 8 inputs loaded first (as if left in registers by the segment
    before), its 8 results stored last (as if handed to the next)."""
    kind, circuit = kind_circuit(variant_base(kind))     # 'loop:', 'fpu:': own orders of the same ops
    b = Builder(kind, is_imm=t2.is_imm)
    b.declare("in", 8, "r")
    b.declare("rk", 16, "r", constant=True)
    b.declare("out", 8, "w")
    q = [b.ld("in", i) for i in range(8)]
    if kind == "ark+sbox":
        q = AF.emit_sbox(b, AF.emit_add_round_key(b, q, 1), circuit)
    elif kind.startswith("-"):                      # MixColumns (and ShiftRows^2) without ARK
        _, e, v = kind[1:].split(":")
        if e == "2":
            q = AF.emit_packed_shiftrows2(b, q)
        q = AF.emit_mixcolumns(b, q, int(v))
    else:
        q = AF.emit_sbox(b, q, circuit) if kind == "sbox" else _emit_linear(b, q, kind, 1)
    for i in range(8):
        b.st("out", i, q[i])
    prog = b.finish()
    assert len(prog.ops) == len(b.ops)
    return prog


def order_cost(prog: Program, order) -> int:
    """Memory instructions the allocator adds to ``prog`` evaluated in segment order ``order``
    (spill stores, reloads, round-key reloads), with the registers of the kernel."""
    n = len(prog.ops)
    full = list(range(8)) + [8 + g for g in order] + list(range(n - 8, n))
    a = regalloc.allocate(prog, full, BASES)
    return a.spills + a.reloads + a.remats


def order_cycles(prog: Program, order, core: str = "cortex-m4") -> int:
    """Modelled cycles of segment ``prog`` evaluated in ``order``: allocated with the kernel's
    registers, post-scheduled like the kernel (``post``), counted from the last input load to
    the first output store (the loads/stores of the harness are not part of the segment)."""
    n = len(prog.ops)
    full = list(range(8)) + [8 + g for g in order] + list(range(n - 8, n))
    a = regalloc.allocate(prog, full, BASES)
    ins = a.insns
    lo = max(k for k, i in enumerate(ins) if i.mnem == "ldr" and not i.note and k not in a.readonly
             and k < len(ins) // 2) + 1
    hi = min(k for k, i in enumerate(ins) if i.mnem == "str" and not i.note)
    mid = regalloc.Allocation(ins[lo:hi], a.n_slots, 0, 0, 0, 0,
                              readonly=frozenset(k - lo for k in a.readonly if lo <= k < hi))
    return listsched.cycles(post(mid, core), core)


def transplant(order, circuit: str) -> tuple:
    """An 'ark+sbox' order of the reference circuit made an order of ``circuit``'s segment: every
    circuit shares the reference's gates up to its bottom layer (aes_sbox: the top layer and the
    middle, in the same positions), which keep their places; each slot of a reference bottom gate
    takes the first of ``circuit``'s bottom gates (in its gate-list order) whose operands are
    ready, and the rest follow at the end.  A deterministic start for annealing that circuit.
    A circuit with another top layer (me111) shares nothing: its gates also wait for the
    AddRoundKey ops they read, which keep their places."""
    ref, own = aes_sbox.GATES, aes_sbox.circuit_gates(circuit)
    shared = next((k for k, (g, h) in enumerate(zip(ref, own)) if g != h), min(len(ref), len(own)))
    n_ark = ARK_OPS
    prog = segment_program(sbox_kind(circuit))
    assert len(prog.ops) == 16 + n_ark + len(own)
    preds = listsched.dependences(prog)
    deps = {q: [p - 8 for p in preds[8 + q] if 8 <= p < 8 + n_ark + len(own)] for q in range(n_ark, n_ark + len(own))}
    queue = list(range(n_ark + shared, n_ark + len(own)))
    out, done = [], set()

    def take():
        for q in queue:
            if all(d in done for d in deps[q]):
                queue.remove(q)
                out.append(q)
                done.add(q)
                return True
        return False
    for p in order:
        if p < n_ark + shared:
            out.append(p)
            done.add(p)
        else:
            take()
    while queue:
        assert take(), "no bottom gate ready: not a circuit"
    assert sorted(out) == list(range(n_ark + len(own)))
    return tuple(out)


def sbox_order(orders: dict, kind: str):
    """The stored order of ``kind``; for another circuit's 'ark+sbox@NAME' without one yet, the
    reference circuit's 'ark+sbox' order transplanted (``transplant``); else None."""
    order = orders.get(kind)
    base, circuit = kind_circuit(kind)
    if order is None and base == "ark+sbox" and circuit != aes_sbox.DEFAULT and base in orders:
        return transplant(orders[base], circuit)
    return order


def search_order(kind: str, iters: int = 20000, seed: int = 1, start=None, t0: float = 3.0,
                 cost: str = "memops", prog: Program | None = None, first: int = 0) -> tuple:
    """Simulated annealing over topological orders of one segment's ops (a move takes one op
    to another place between its last operand and its first consumer), minimizing
    ``order_cost``.  Deterministic for a given seed; about 1 ms per step, so it runs offline
    (``slicegen explore --space orders``, gen/explore/orders.py) and its result is kept in
    gen/kernels/aes/thumb2_orders.py.
    ``prog``: another cipher's segment (8 words in, 8 out) in place of ``segment_program(kind)``;
    ``cost``: 'memops' (order_cost), 'cycles' (order_cycles) or a function (prog, order) -> cost
    (gen/explore/orders.py passes the whole kernel's cycles); ``first``: only the ops from that one
    on (the segment's op numbering) move, the others keep their relative order."""
    prog = segment_program(kind) if prog is None else prog
    m = len(prog.ops) - 16
    preds = listsched.dependences(prog)
    gpreds = [[p - 8 for p in preds[8 + g] if 8 <= p < 8 + m] for g in range(m)]
    gsuccs = [[] for _ in range(m)]
    for g, ps in enumerate(gpreds):
        for p in ps:
            gsuccs[p].append(g)
    rng = random.Random(seed)
    movable = list(range(first, m))
    if start is None:
        full = listsched.schedule(prog, 0, "pressure")
        start = [i - 8 for i in full if 8 <= i < 8 + m]
    f = cost if callable(cost) else order_cost if cost == "memops" else order_cycles
    cur = list(start)
    cost = f(prog, cur)
    best = (cost, list(cur))
    for it in range(iters):
        temp = t0 * (1 - it / iters) + 0.05
        where = {g: k for k, g in enumerate(cur)}
        if first:
            g = rng.choice(movable)
            k = where[g]
        else:
            k = rng.randrange(m)
            g = cur[k]
        lo = max([where[p] + 1 for p in gpreds[g]] + [0])
        hi = min([where[s] for s in gsuccs[g]] + [m]) - 1
        if hi <= lo:
            continue
        j = rng.randint(lo, hi)
        if j == k:
            continue
        new = cur[:k] + cur[k + 1:]
        new.insert(j, g)
        c = f(prog, new)
        if c <= cost or rng.random() < math.exp((cost - c) / temp):
            cur, cost = new, c
            if c < best[0]:
                best = (c, list(new))
    return tuple(best[1])


# --------------------------------------------------------------------------- printing

#: what a spill = "fpu" kernel's header says about its instructions
FPU_WORDS = ("ARMv7-M instructions plus VMOV, VPUSH, VLDM and VPOP of FPU registers: it keeps spilled\n"
             " * values (the loops also their pointers) in s0-s15 of a Cortex-M4F's FPU, 1 cycle a move\n"
             f" * where STR/LDR to the stack cost 2, and the loops the keys of rounds {FPU_RK_ROUNDS[0]}-{FPU_RK_ROUNDS[-1]} in s16-s31")
