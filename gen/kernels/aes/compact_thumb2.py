"""Counter mode with the rounds looped: the AES kernel of the "size" objective (issue 19).

The trick: the speed kernels are straight line (one S-box copy per round, about 0.8 KB each);
here every piece (packing, 'ark+sbox', one linear segment per round kind, the last round) exists
once in one Thumb-2 function that loops over the rounds, the 8 planes staying in r4-r11 across
segment boundaries.  Branches depend on the round number and the pair count only (public), so it
stays constant time.  The layout of aadomn/aes's armcortexm/fixslicing, without calls.
Segments and boundaries: docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.ir import Builder
from gen.isa import thumb2 as t2
from gen.kernels.aes import ctr_thumb2
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import thumb2 as A
from gen.sched import listsched, regalloc, reload_pairs, strd_pairs

PUSHED = A.PUSHED_XOR              # r0 rk, r1 out, r2 cb, r3 in, r4-r11, lr (ctr_thumb2's frame)
POPPED = A.POPPED
#: home slots (negative ids): the four register arguments, n on the caller's stack, and the
#: frame's current round-key pointer and round number
HOME_RK, HOME_OUT, HOME_CB, HOME_IN, HOME_N, HOME_RKC, HOME_J = -1, -2, -3, -4, -5, -7, -8
ARG_REG = {HOME_RK: "r0", HOME_OUT: "r1", HOME_CB: "r2", HOME_IN: "r3"}


def _home(slot):
    return regalloc.BaseSpec("home", "sp", slot)      # "sp": not in a register at segment entry


def _state_in(b: Builder) -> list:
    """The planes as memory "si" (in r4-r11 when compiled: regs_in)."""
    b.declare("si", 8, "r")
    return [b.ld("si", i) for i in range(8)]


def _state_out(b: Builder, q: list) -> None:
    for i in range(8):
        b.st("so", i, q[i])


def first_program():
    b = Builder("aes_first", is_imm=t2.is_imm)
    b.declare("so", 8, "w")
    b.declare("cb", 8, "r")
    _state_out(b, AF.emit_pack(b, [b.ld("cb", i) for i in range(8)]))
    return b.finish(), None, None


def arksbox_program():
    """AddRoundKey (rk[0..7], the current round key) and the S-box, in the stored order: the looped
    kernel's own ('loop:ark+sbox') when it has one (a new order for the unrolled kernels made it
    slower: its rounds start and end with the planes in r4-r11), else the unrolled kernels'."""
    b = Builder("aes_ark_sbox", is_imm=t2.is_imm)
    b.declare("so", 8, "w")
    b.declare("rk", 8, "r", constant=True)
    q = _state_in(b)
    lo = len(b.ops)
    q = AF.emit_sbox(b, AF.emit_add_round_key(b, q, 0))
    hi = len(b.ops)
    _state_out(b, q)
    return _ranked(b.finish(), lo, hi, A.ORDERS.get(LOOP_KIND) or A.ORDERS.get("ark+sbox"))


#: the looped kernel's own kind of the AddRoundKey + S-box segment in the orders file
LOOP_KIND = "loop:ark+sbox"


def linear_program(kind: str):
    """The linear layer of round kind ``kind`` ('lin:e:v', without its AddRoundKey)."""
    b = Builder(f"aes_{kind}", is_imm=t2.is_imm)
    b.declare("so", 8, "w")
    q = _state_in(b)
    lo = len(b.ops)
    _, e, v = kind.split(":")
    if e == "2":
        q = AF.emit_packed_shiftrows2(b, q)
    q = AF.emit_mixcolumns(b, q, int(v))
    hi = len(b.ops)
    _state_out(b, q)
    full = A.ORDERS.get(kind)
    return _ranked(b.finish(), lo, hi, A.ORDERS.get("-" + kind) or A._filtered(full, len(full or ())))


def last_program(nr: int, slicing: str):
    """The final AddRoundKey (rk[0..7]), unpacking, the leftover ShiftRows^2, out = msg ^ E."""
    b = Builder("aes_last", is_imm=t2.is_imm)
    b.declare("out", 8, "w")
    b.declare("rk", 8, "r", constant=True)
    b.declare("msg", 8, "r")
    w = AF.emit_unpack(b, AF.emit_add_round_key(b, _state_in(b), 0))
    if AF.alignments(nr, slicing)[nr] % 4 == 2:
        w = AF.emit_natural_shiftrows2(b, w)
    for i in range(8):
        b.st("out", i, b.eor(w[i], b.ld("msg", i)))
    return b.finish(), None, None


def _ranked(prog, lo, hi, order):
    """Segments (loads 0, the stored-order part 1, stores 2) and ranks for listsched."""
    assert len(prog.ops) >= hi, "dead code in a segment"
    segment = [0] * lo + [1] * (hi - lo) + [2] * (len(prog.ops) - hi)
    rank = [None] * len(prog.ops)
    if order and len(order) == hi - lo:
        for k, g in enumerate(order):
            rank[lo + g] = k
    return prog, segment, rank


BASES = {"rk": _home(HOME_RKC), "cb": _home(HOME_CB), "out": _home(HOME_OUT), "msg": _home(HOME_IN)}
#: the 8 planes between segments stay in registers (regalloc's regs_in / regs_out): the
#: dispatch between segments uses r0-r2 only, the pair loop's back edge runs after the last
#: segment, when nothing is live
STATE_REGS = ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")


@dataclass
class Segment:
    name: str
    body: list                # allocated, scheduled instructions, slots symbolic
    cycles: int
    spills: int


def compile_segment(name, built, core: str, seed: int) -> Segment:
    prog, segment, rank = built
    bases = {m: BASES[m] for m in prog.mems if m in BASES}
    regs_in = {"si": STATE_REGS} if "si" in prog.mems else {}
    regs_out = {"so": STATE_REGS} if "so" in prog.mems else {}
    order = listsched.schedule(prog, seed, "pressure", segments=segment, rank=rank)
    alloc = regalloc.allocate(prog, order, bases, seed=seed, regs_in=regs_in, regs_out=regs_out, **A.ALLOC_POLICY)
    regalloc.check_allocation(prog, order, alloc, bases, regs_in=regs_in, regs_out=regs_out)
    body = A.post(alloc, core, seed)
    paired, _ = strd_pairs.pair(body, core)
    strd_pairs.check(body, paired)
    # no reload_pairs here: its renaming does not know the registers the next segment reads
    t2.check_core(paired, core)
    return Segment(name, paired, listsched.cycles(paired, core), alloc.spills)


@dataclass
class CompactCode:
    code: str                 # C: prototype and file-scope __asm__ of {prefix}_ctr_pairs
    #: modelled cycles of a pair's segments (first, nr x ark+sbox, the nr - 1 linear ones, last),
    #: the loop's dispatch and back edge left out: what explore compares between seeds
    pair_segment_cycles: int
    spills: int               # spill stores in all segments
    instructions: int         # instructions of the function
    segments: dict            # name -> modelled cycles of one run of the segment
    stack_bytes: int
    lines: list = None        # the function's assembly, push to pop (labels included)


def thumb2(prefix: str, keybits: int, slicing: str, core: str, seed: int = 0) -> CompactCode:
    nr = AF.check_args(keybits, slicing)
    kinds = A.segment_kinds(keybits, slicing)[:-1]           # rounds 1..nr-1 (round nr: 'last')
    period = 4 if slicing == "ffs" else 2
    by_res = {j % period: k for j, k in enumerate(kinds, start=1)}
    assert all(by_res[j % period] == k for j, k in enumerate(kinds, start=1)), "round kinds are not periodic"
    segs = {"first": compile_segment("first", first_program(), core, seed),
            "ark+sbox": compile_segment("ark+sbox", arksbox_program(), core, seed),
            "last": compile_segment("last", last_program(nr, slicing), core, seed)}
    for res, kind in sorted(by_res.items()):
        segs[kind] = compile_segment(kind, linear_program(kind), core, seed)
    n_slots = max(strd_pairs.n_slots(s.body) for s in segs.values())
    s = 4 * (n_slots + 2)                                    # + the current rk pointer and j
    if (4 * len(PUSHED) + s) % 8:
        s += 4
    rkc, jj = 4 * n_slots, 4 * n_slots + 4

    def offset(slot):
        if slot >= 0:
            return 4 * slot
        if slot in ARG_REG:
            return s + 4 * PUSHED.index(ARG_REG[slot])
        return {HOME_N: s + 4 * len(PUSHED), HOME_RKC: rkc, HOME_J: jj}[slot]

    def body(name):
        return [f"    {t2.resolve(i, offset).text()}" for i in segs[name].body]
    sym = f"{prefix}_ctr_pairs"
    L = f".L{sym}"
    edge = ctr_thumb2.back_edge(s)
    lines = [f"    {t2.push(PUSHED).text()}", f"    {t2.add_sp(-s).text()}", "1:"]
    lines += body("first")
    lines += [f"    ldr    r0, [sp, #{offset(HOME_RK)}]", f"    str    r0, [sp, #{rkc}]    @ round key 0",
              "    movs   r0, #1", f"    str    r0, [sp, #{jj}]    @ j = 1"]
    lines += [f"{L}_round:"] + body("ark+sbox")
    lines += [f"    ldrd   r1, r0, [sp, #{rkc}]    @ round key pointer, j", "    add    r1, r1, #32",
              "    add    r2, r0, #1", f"    strd   r1, r2, [sp, #{rkc}]", f"    cmp    r0, #{nr}",
              f"    beq    {L}_last", f"    and    r0, r0, #{period - 1}    @ round kind: j mod {period} (public)"]
    for res in sorted(by_res)[1:]:
        lines += [f"    cmp    r0, #{res}", f"    beq    {L}_k{res}"]
    for res in sorted(by_res):
        lines += [f"{L}_k{res}:    @ {by_res[res]}"] + body(by_res[res]) + [f"    b      {L}_round"]
    lines += [f"{L}_last:"] + body("last")
    lines += [f"    {t}    @ next pair" for t in ctr_thumb2.back_edge_text(edge)]
    lines += [f"    {t2.add_sp(s + 4 * 4).text()}", f"    {t2.pop(POPPED).text()}"]
    proto = f"void {sym}(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n)"
    cyc = {n: sg.cycles for n, sg in segs.items()}
    head = (f"/* {sym}: counter mode over n >= 1 pairs, AES-{keybits} {slicing} with the rounds looped (the\n"
            f" * size objective; gen/kernels/aes/compact_thumb2.py): out = in ^ E(cb), cb's two big-endian\n"
            f" * counters advanced by 2 per pair; the 8 planes stay in r4-r11 between segments.\n"
            f" * Cycle model per run of a segment: {', '.join(f'{k} {v}' for k, v in cyc.items())}.\n"
            f" * Frame {4 * len(PUSHED) + s} bytes. Branches on j and n only (public). */")
    asm = t2.c_asm(proto, t2.function_lines(sym, lines), head)
    pair = cyc["first"] + nr * cyc["ark+sbox"] + sum(cyc[k] for k in kinds) + cyc["last"]
    return CompactCode(code=asm, pair_segment_cycles=pair, spills=sum(sg.spills for sg in segs.values()),
                       instructions=sum(1 for ln in lines if ln.startswith("    ")), segments=cyc,
                       stack_bytes=4 * len(PUSHED) + s, lines=lines)
