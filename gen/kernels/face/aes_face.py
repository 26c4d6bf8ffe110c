"""FACE (counter-mode caching) on the fixsliced two-block AES kernel, built as IR.

The idea (Park & Lee, "FACE: Fast AES CTR mode Encryption techniques based on the reuse of
repetitive data", TCHES 2018/3; with fixslicing on Cortex-M4: Kim & Seo, ACM TECS 2025): counter
blocks of one run differ only in byte 15, so the state after round 1 (r1: 1 word per v, per key)
or round 2 (r2: 8 words per pair, per run) is a table of the low counter byte v.  The tables are
built bitsliced "v-sliced" (32 values of v per word) and turned into the packed layout by a
SWAPMOVE transpose; set-up is lazy (``face_setup``, ``face_fill`` per group, ``face_sv``).  All
straight-line IR: the table is read only at the public index v, by the C glue.  The derivation,
the fill's layout and the memories: docs/internals/face.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from gen.backends import c_backend
from gen.circuits import aes_mixcolumns as mcx
from gen.circuits import aes_sbox
from gen.circuits.aes_sbox import NOT_MASK, gf_mul
from gen.ir import Builder, Program
from gen.isa import thumb2 as t2
from gen.kernels.aes.fixsliced import (alignments, check_args, emit_add_round_key, emit_mixcolumns,
                                       emit_natural_shiftrows2, emit_pack, emit_packed_shiftrows2,
                                       emit_sbox, emit_unpack)

DEPTHS = ("r1", "r2")
ENTRY_WORDS = {"r1": 1, "r2": 4}
FS_WORDS = {"r1": 16, "r2": 40}
SV_WORDS = 64                               # r2: s planes of the 8 groups (parity 1), in the ctx
STATE_WORDS = 5                             # the glue's face_on, face_ok, face_hi, face_groups, face_fast


def layout(depth: str) -> dict:
    """Sizes in words of FACE's RAM, for the structs the GCM API declares: ``table`` (r1: in the
    ctx, filled by init; r2: in the stream), ``fs`` (per-run constants), ``sv`` (r2: in the ctx),
    ``entry`` (words per table entry), ``state`` (the glue's bookkeeping words)."""
    check_depth(depth)
    return {"table": 256 * ENTRY_WORDS[depth], "fs": FS_WORDS[depth],
            "sv": SV_WORDS if depth == "r2" else 0, "entry": ENTRY_WORDS[depth], "state": STATE_WORDS}


def cache_bytes(depth: str) -> int:
    """FACE's RAM in bytes (0 for off): every part of ``layout``, ctx and stream."""
    if depth == "off":
        return 0
    words = layout(depth)
    return 4 * (words["table"] + words["fs"] + words["sv"] + words["state"])


def face_cache_bytes(depth: str) -> int:
    """sizeof(PREFIX_face_cache), the caller-owned table of the *_cached calls (templates/
    gcm_api.h.j2): r2 the ctx pointer, groups, ivb[4], gen, eiv[4], kiv[2], k_ok, the fill's run
    constants, the key check, run 1's C2 difference d1 with its d1iv[4], kc (C2 without IV byte
    11's part), etab's fill constants, etab (that part for every IV byte 11) and the D(v) table;
    r1 one unused word (its table is the key's, in the ctx)."""
    check_depth(depth)
    if depth == "r1":
        return 4
    words = layout(depth)
    return 4 * (4 + 4 + 2 * words["fs"] + 16 + 1 + 8 + 8 + 2 * words["table"])


GROUP = 32                                  # table entries filled by one face_fill call
M1_COEF = (1, 1, 3, 2)                      # round 1: row r of column 0 gets M1_COEF[r] * s
V_LANES = (0xAAAAAAAA, 0xCCCCCCCC, 0xF0F0F0F0, 0xFF00FF00, 0xFFFF0000)   # bits 0..4 of lane
TRANSPOSE_MASKS = ((16, 0x0000FFFF), (8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333),
                   (1, 0x55555555))


def n_words(depth: str) -> int:
    """Words of one pair's entries in the table (what `e` advances by per pair)."""
    return ENTRY_WORDS[depth]


def check_depth(depth: str) -> None:
    if depth not in DEPTHS:
        raise ValueError(f"face depth must be one of r1, r2 (got {depth!r})")


def mc_coef(r_out: int, r_in: int) -> int:
    """MixColumns matrix entry: coefficient of input row r_in in output row r_out."""
    return (2, 3, 1, 1)[(r_in - r_out) % 4]


def packed_pos(r: int, c: int, a: int) -> int:
    """Bit of block 0 holding state byte (r, c) when the state is kept as SR^-a(S)."""
    return 8 * r + 2 * ((c + a * r) % 4)


@lru_cache(maxsize=None)
def r1_shifts(a1: int) -> tuple[int, ...]:
    """t_b (b = 0..7) such that (pos_r + t_b) mod 32 are 32 distinct places (r1 entries)."""
    pos = [packed_pos(r, 0, a1) for r in range(4)]
    diffs = {(x - y) % 32 for x in pos for y in pos}

    def rec(ts):
        if len(ts) == 8:
            return ts
        for t in range(ts[-1] + 1, 32):
            if all((t - u) % 32 not in diffs for u in ts):
                found = rec(ts + [t])
                if found:
                    return found
        return None
    found = rec([0])
    assert found, a1
    return tuple(found)


# ---- small emitters ----

class Consts:
    """movc once per constant per program."""

    def __init__(self, b: Builder):
        self.b, self.regs = b, {}

    def reg(self, value: int) -> int:
        value &= 0xFFFFFFFF
        if value not in self.regs:
            self.regs[value] = self.b.movc(value)
        return self.regs[value]

    def eor(self, x: int, value: int) -> int:
        value &= 0xFFFFFFFF
        if value == 0:
            return x
        if value == 0xFFFFFFFF:
            return self.b.mvn(x)
        if t2.is_imm(value):
            return self.b.eor(x, imm=value)
        return self.b.eor(x, self.reg(value))

    def and_(self, x: int, value: int) -> int:
        if t2.is_imm(value):
            return self.b.and_(x, imm=value)
        return self.b.and_(x, self.reg(value))


def emit_xtime_plane(b: Builder, x: list[int], i: int) -> int:
    """Plane i of 2 * x in GF(2^8) (x planes, 0 = LSB)."""
    if i == 0:
        return x[7]
    return b.eor(x[i - 1], x[7]) if i in mcx.XTIME_FEEDBACK else x[i - 1]


def emit_xtime(b: Builder, x: list[int]) -> list[int]:
    """Planes of 2 * x in GF(2^8) (x planes, 0 = LSB)."""
    return [emit_xtime_plane(b, x, i) for i in range(8)]


def emit_multiples(b: Builder, x: list[int]) -> dict[int, list[int]]:
    x2 = emit_xtime(b, x)
    return {1: x, 2: x2, 3: [b.eor(p, q) for p, q in zip(x2, x)]}


def emit_broadcast_pair(b: Builder, q: int, pos: int) -> int:
    """All-ones if bit `pos` (and pos + 1, the same bit of block 1) of q is set, else zero."""
    t = b.and_(q, imm=3 << pos)
    if pos < 30:
        t = b.shift("lsl", t, 30 - pos)
    for n in (2, 4, 8, 16):
        t = b.orr(t, t, shift=("lsr", n))
    return t


def emit_transpose32(b: Builder, cst: Consts, rows: list, sink=None, stages=(1, 2, 4, 8, 16),
                     parity=None) -> list[int]:
    """32x32 bit transpose: out[l] bit p = rows[p] bit l. None rows are zero. Leaving a stage j
    out of `stages` keeps bit j of the row index and of the bit position where they were
    (r2 leaves out stage 1, see the module docstring). Without stage 1, ``parity`` = t does
    only the 16 rows p = t mod 2 (the others are not touched, their words not sinked).

    The five SWAPMOVE stages (lane bit j <-> row bit j) commute, so they are emitted blockwise
    to keep the working set small (a compiler then spills less): stages 1, 2, 4 on each block of
    8 rows, then stages 8, 16 on each set {q, q+8, q+16, q+24}, whose words are then final and
    handed to ``sink(index, vreg)`` at once."""
    x = list(rows)
    # Without stage 1 the even and the odd rows are two independent 16-row transposes: doing
    # them one after the other halves the words live between the two phases.
    halves = ((0, 1),) if 1 in stages else ((0,), (1,))
    if parity is not None:                   # only that half (the other one is left as it is)
        assert 1 not in stages
        halves = ((parity,),)
    for half in halves:
        for blk in range(0, 32, 8):
            for j in (1, 2, 4):
                if j not in stages:
                    continue
                for p in range(blk, blk + 8):
                    if not p & j and p % 2 in half:
                        swapmove(b, cst, x, p, j)
        for q in range(8):
            if q % 2 not in half:
                continue
            for j in (8, 16):
                if j not in stages:
                    continue
                for p in (q, q + 8, q + 16, q + 24):
                    if not p & j:
                        swapmove(b, cst, x, p, j)
            if sink:
                for p in (q, q + 8, q + 16, q + 24):
                    sink(p, x[p])
    assert all(v is not None for p, v in enumerate(x) if parity in (None, p % 2))
    return x


def swapmove(b: Builder, cst: Consts, x: list, p: int, j: int) -> None:
    """SWAPMOVE of rows p, p + j in place: lane bit j <-> row bit j (None rows are zero)."""
    m = dict(TRANSPOSE_MASKS)[j]
    lo, hi = x[p], x[p + j]
    if lo is None and hi is None:
        return
    if lo is None:
        t = cst.and_(hi, m)
        x[p], x[p + j] = b.shift("lsl", t, j), b.eor(hi, t)
    elif hi is None:
        t = cst.and_(b.shift("lsr", lo, j), m)
        x[p], x[p + j] = b.eor(lo, t, shift=("lsl", j)), t
    elif j == 16:       # the shifts by 16 do the masking: no 0x0000FFFF in a register
        t = b.eor(hi, lo, shift=("lsr", 16))             # low half: hi_lo ^ lo_hi
        u = b.eor(lo, hi, shift=("lsl", 16))             # high half: lo_hi ^ hi_lo
        x[p], x[p + j] = b.eor(lo, t, shift=("lsl", 16)), b.eor(hi, u, shift=("lsr", 16))
    else:
        t = cst.and_(b.eor(hi, lo, shift=("lsr", j)), m)
        x[p], x[p + j] = b.eor(lo, t, shift=("lsl", j)), b.eor(hi, t)


def _transpose_rest(b: Builder, cst: Consts, rows: list, sink, parity: int, stages) -> list:
    """The SWAPMOVE ``stages`` of the 16 rows p = parity mod 2 (all present), on each group of
    rows that agree in the row bits of the other stages; each group's words are handed to
    ``sink`` as soon as they are final (the r2 fill after its stage 16: stages 2, 4, 8 on each
    half of 8 rows)."""
    x = list(rows)
    assert all(x[p] is not None for p in range(parity, 32, 2))
    other = [j for j in (2, 4, 8, 16) if j not in stages]
    groups: dict = {}
    for p in range(parity, 32, 2):
        groups.setdefault(tuple(p & j for j in other), []).append(p)
    for group in groups.values():
        for j in stages:
            for p in group:
                if not p & j:
                    swapmove(b, cst, x, p, j)
        if sink:
            for p in group:
                sink(p, x[p])
    return x


def emit_round(b: Builder, q: list[int], j: int, al: list[int], nr: int, load_rk=True,
               circuit: str = aes_sbox.DEFAULT) -> list[int]:
    """Round j of the fixsliced kernel (as in aes_fixsliced.encrypt2_ir), S-box ``circuit``."""
    q = emit_sbox(b, q, circuit)
    q = emit_linear(b, q, j, al, nr)
    return emit_add_round_key(b, q, j) if load_rk else q


def emit_linear(b: Builder, q: list[int], j: int, al: list[int], nr: int) -> list[int]:
    e = (al[j - 1] + 1 - al[j]) % 4
    assert e in (0, 2)
    if e == 2:
        q = emit_packed_shiftrows2(b, q)
    if j < nr:
        q = emit_mixcolumns(b, q, al[j])
    return q


def emit_finish(b: Builder, q: list[int], first: int, al: list[int], nr: int,
                circuit: str = aes_sbox.DEFAULT) -> None:
    """Rounds first..nr, unpack, final ShiftRows fix, then `out` = `in` XOR keystream (the
    counter-mode XOR fused into the kernel: no keystream buffer, no separate XOR call)."""
    for j in range(first, nr + 1):
        q = emit_round(b, q, j, al, nr, circuit=circuit)
    w = emit_unpack(b, q)
    if al[nr] % 4 == 2:
        w = emit_natural_shiftrows2(b, w)
    for i in range(8):
        b.st("out", i, b.eor(w[i], b.ld("in", i)))


# ---- the three programs ----

def face_setup_ir(keybits: int, slicing: str, depth: str) -> Program:
    """Per-run constants from the counter block (bytes 0..14) and the round keys."""
    nr = check_args(keybits, slicing)
    check_depth(depth)
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_face_{depth}_setup")
    cst = Consts(b)
    b.declare("ctr", 4, "r")
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("fs", FS_WORDS[depth], "w")
    if depth == "r1":                                     # r2 has them in the ctx's s planes
        emit_k15(b, lambda i, w: b.st("fs", i, w))
    # reference round 1 with S(byte 15) = 0: S-box input 0x52 at byte (3, 3)
    words = [b.ld("ctr", i) for i in range(4)]
    q = emit_add_round_key(b, emit_pack(b, words + words), 0)
    q = [b.orr(b.bic(x, imm=0xC0000000), imm=0xC0000000) if (0x52 >> i) & 1 else b.bic(x, imm=0xC0000000)
         for i, x in enumerate(q)]
    q = emit_round(b, q, 1, al, nr)                       # S_1 with s = 0, alignment a_1
    col0 = [packed_pos(r, 0, al[1]) for r in range(4)]     # column 0 of S_1, block 0
    # fold m_r * 0x63: the table is built from the kernel's S-box output s ^ 0x63
    fold = [gf_mul(M1_COEF[r], NOT_MASK) for r in range(4)]
    if depth == "r1":
        for i in range(8):
            c = sum(3 << col0[r] for r in range(4) if (fold[r] >> i) & 1)
            b.st("fs", 8 + i, cst.eor(q[i], c))
        return b.finish()
    for r in range(4):
        for i in range(8):
            m = emit_broadcast_pair(b, q[i], col0[r])
            b.st("fs", 8 * r + i, b.mvn(m) if (fold[r] >> i) & 1 else m)
    # C2: round 2 with the four S-box outputs of column 0 set to zero (kernel values)
    q = emit_sbox(b, q)
    mcol = cst.reg(sum(3 << p for p in col0))
    q = [b.bic(x, mcol) for x in q]
    q = emit_add_round_key(b, emit_linear(b, q, 2, al, nr), 2)
    for i in range(8):                                    # both blocks' C2 are equal
        b.st("fs", 32 + i, q[i])
    return b.finish()


def face_c2_ir(keybits: int, slicing: str) -> Program:
    """r2 with the caller's cache: only the per-run constant C2 (as ``face_setup_ir``'s
    fs[32..39]), for two counter blocks at once, one per block of the packed layout: `ctr` holds
    block 0 (words 0..3) and block 1 (words 4..7), byte 15 unused; plane word `c2`[b] has block
    k's C2 plane b in its bits of parity k. The glue makes the cache's kc from it (the same block
    twice) and d1 (counters 255 and 256). No column-0 broadcasts: the cache's table already has them."""
    nr = check_args(keybits, slicing)
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_face_c2")
    cst = Consts(b)
    b.declare("ctr", 8, "r")
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("c2", 8, "w")
    q = emit_add_round_key(b, emit_pack(b, [b.ld("ctr", i) for i in range(8)]), 0)
    q = [b.orr(b.bic(x, imm=0xC0000000), imm=0xC0000000) if (0x52 >> i) & 1 else b.bic(x, imm=0xC0000000)
         for i, x in enumerate(q)]
    q = emit_sbox(b, emit_round(b, q, 1, al, nr))
    mcol = cst.reg(sum(3 << packed_pos(r, 0, al[1]) for r in range(4)))
    q = emit_add_round_key(b, emit_linear(b, [b.bic(x, mcol) for x in q], 2, al, nr), 2)
    for i in range(8):
        b.st("c2", i, q[i])
    return b.finish()


def emit_k15(b: Builder, put) -> None:
    """``put(i, word)`` for i = 0..7: bit i of k15 = byte (3, 3) of K0 (bits 30, 31 of the
    round-key-0 planes) broadcast to a word."""
    for i in range(8):
        put(i, emit_broadcast_pair(b, b.ld("rk", i), 30))


def face_sv_ir(keybits: int, slicing: str) -> Program:
    """r2, once per key (init): the s planes of one group, S(v ^ k15) ^ 0x63 for
    v = 32 g + o + l in lane l (``vb_words(g, o)``), the input of the fill's four S-boxes."""
    return sv_program(keybits, slicing)[0]


def sv_program(keybits: int, slicing: str) -> tuple[Program, list]:
    """``face_sv_ir`` and the mark of its S-box (as ``fill_program``)."""
    nr = check_args(keybits, slicing)
    b = Builder(f"aes{keybits}_{slicing}_face_sv")
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("vb", 8, "r")
    b.declare("sv", 8, "w")
    x = [None] * 8

    def put(i, k):
        x[i] = b.eor(k, b.ld("vb", i))
    emit_k15(b, put)
    marks = [(len(b.ops), "sbox")]
    for i, w in enumerate(emit_sbox(b, x)):
        b.st("sv", i, w)
    prog = b.finish()
    assert len(prog.ops) == len(b.ops)
    return prog, marks


def face_fill_ir(keybits: int, slicing: str, depth: str) -> Program:
    """One group: 32 entries v = 32 g + o + l, l = 0..31 (r1: o = 0; r2: 16 pair entries)."""
    return fill_program(keybits, slicing, depth)[0]


def fill_program(keybits: int, slicing: str, depth: str) -> tuple[Program, list]:
    """``face_fill_ir`` and the marks of its S-boxes, (first op, kind): 'sbox' (the kernel's
    S-box ops) or 'ark+sbox' (eight (load, XOR) pairs into the input, then the S-box: op for
    op the kernel's AddRoundKey + S-box), so a compiler can give them the kernel's stored
    evaluation orders (``fill_order``)."""
    nr = check_args(keybits, slicing)
    check_depth(depth)
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_face_{depth}_fill")
    cst = Consts(b)
    marks = []
    b.declare("fs", FS_WORDS[depth], "r")
    b.declare(fill_in(depth), 8, "r")
    b.declare("tab", GROUP * ENTRY_WORDS[depth], "w")
    if depth == "r1":
        x = [b.eor(b.ld("fs", i), b.ld("vb", i)) for i in range(8)]
        marks.append((len(b.ops), "sbox"))
        s = emit_multiples(b, emit_sbox(b, x))            # (m * (S(v ^ k15) ^ 0x63)) planes
        ts = r1_shifts(al[1])
        rows: list = [None] * 32
        for r in range(4):
            p0 = packed_pos(r, 0, al[1])
            for i in range(8):
                rows[(p0 + ts[i]) % 32] = s[M1_COEF[r]][i]
        emit_transpose32(b, cst, rows, lambda l, w: b.st("tab", l, w))
    else:                                                 # s from the ctx (face_sv_ir)
        y = emit_r2_sboxes(b, marks)
        for plane in range(8):
            emit_r2_plane(b, cst, y, plane, al[2])
    prog = b.finish()
    assert len(prog.ops) == len(b.ops), "dead code in the fill: the marks would be off"
    return prog, marks


#: the order of the r2 fill's four S-boxes (Y_2, Y_3 first: their inputs 3s, 2s need the most
#: work) and how each plane's transpose runs after stage 16 (``emit_r2_stage16``): stages 2, 4, 8
#: on each half of 8 rows. Measured with gen/targets/cortex_m.py (AES-128 ffs r2, cortex-m4,
#: seed 0): the fill costs 2433 cycles (1862 ops, 113 spills) where the one load of s, the
#: S-boxes in order 0..3, 3Y made and stages 2, 4 | 8, 16 cost 2525 (1887 ops, 132 spills);
#: stage 16 first with stages 2, 4 | 8 after it costs 2527 (144 spills: 16 words live between
#: the phases)
R2_SBOX_ORDER = (2, 3, 0, 1)
R2_REST_STAGES = (2, 4, 8)


def emit_r2_sboxes(b: Builder, marks: list) -> list[list[int]]:
    """Y_r = S(a_r) ^ 0x63, a_r = c_r ^ m_r s (planes; fs[8 r + b] holds bit b of c_r,
    0x63 folded in), r = 0..3 (evaluated in ``R2_SBOX_ORDER``): only the planes of Y_r leave,
    their multiples are made later, plane by plane, where a transpose needs them
    (``y_multiple``). Each S-box loads the s planes (`sv`) itself and makes the multiple it
    needs: reloading 8 words is cheaper than keeping s (and 2s) live across an S-box."""
    y: list = [None] * 4
    for r in R2_SBOX_ORDER:
        s = [b.ld("sv", i) for i in range(8)]
        m = M1_COEF[r]
        x = s
        if m > 1:
            x2 = emit_xtime(b, s)
            x = x2 if m == 2 else [b.eor(p, q) for p, q in zip(x2, s)]
        marks.append((len(b.ops), "ark+sbox"))
        y[r] = emit_sbox(b, [b.eor(b.ld("fs", 8 * r + i), x[i]) for i in range(8)])
    return y


def fill_order(marks: list, n_ops: int, orders: dict) -> list:
    """The fill's op order: the program order, but for every marked S-box that has a stored
    order in ``orders`` (kind -> op positions inside that piece, gen/kernels/aes/thumb2_orders.py)."""
    order = list(range(n_ops))
    for start, kind in marks:
        if orders.get(kind):
            order[start:start + len(orders[kind])] = [start + g for g in orders[kind]]
    assert sorted(order) == list(range(n_ops))
    return order


def emit_r2_plane(b: Builder, cst: Consts, y: list, plane: int, a2: int) -> None:
    """Plane `plane` of the 16 r2 pair entries: the 16-row half (row parity t = plane & 1) of
    transpose i = plane >> 1, its rows made from the Y_r planes just before it (see
    ``y_multiple``), C2 XORed into each word on its way to the table.

    With an even alignment a2 (ffs: a2 = 2), rows r' and r' + 2 hold the same column -r, so
    the SWAPMOVE of stage 16 pairs two multiples of one Y_r plane: (2Y, Y) and (Y, 3Y) in some
    order. Stage 16 then goes first (``emit_r2_stage16``: the (Y, 3Y) pair from the words of
    the (2Y, Y) pair, without making 3Y), stages 2, 4, 8 after it (``R2_REST_STAGES``)."""
    i, t = divmod(plane, 2)
    where = {}                                             # row -> (r, coef)
    for r2 in range(4):                                    # output row r'
        for r in range(4):                                 # Y_r sits in column -r
            where[packed_pos(r2, (-r) % 4, a2) + t] = (r, mc_coef(r2, r))
    c2 = b.ld("fs", 32 + plane)                            # C2 plane in both blocks' bits

    def sink(w_ix, w):                                     # word 2j + t = plane of pair j
        b.st("tab", 8 * (w_ix >> 1) + plane, b.eor(w, c2))
    if not all(where[p][0] == where[p + 16][0] for p in range(t, 16, 2)):
        raise AssertionError(f"r2 fill: round-2 alignment {a2} does not pair one Y_r per "
                             f"stage-16 swap (ffs and sfs have an even one)")
    rows = emit_r2_stage16(b, y, plane, where, t)
    _transpose_rest(b, cst, rows, sink, t, R2_REST_STAGES)


def emit_r2_stage16(b: Builder, y: list, plane: int, where: dict, t: int) -> list:
    """The rows of ``emit_r2_plane`` (parity t) after the SWAPMOVE of stage 16, when each pair
    (p, p + 16) holds two multiples of one Y_r plane (``where[p]`` = (r, coef)). Per r, the pair
    {2Y, Y} is a plain stage-16 swap (4 ops), giving [lo_L, hi_L] and [lo_H, hi_H] (halves:
    [low, high]); the pair {Y, 3Y = 2Y ^ Y} comes from those two words and Y in 4 ops (3 when
    both pairs have Y low), where 3Y and its swap would cost 5."""
    x: list = [None] * 32
    pairs: dict = {}                                       # r -> {coef set: lo position}
    for p in range(t, 16, 2):
        (r, ca), (r_, cb) = where[p], where[p + 16]
        assert r == r_
        pairs.setdefault(r, {})[frozenset((ca, cb))] = p
    for r, by in pairs.items():
        yv = y[r][plane]
        d = emit_xtime_plane(b, y[r], plane)               # 2Y
        pa, pb = by[frozenset((2, 1))], by[frozenset((1, 3))]
        y_low_a = where[pa][1] == 1                        # pair A = (Y, 2Y), else (2Y, Y)
        lo, hi = (yv, d) if y_low_a else (d, yv)
        tt = b.eor(hi, lo, shift=("lsr", 16))
        u = b.eor(lo, hi, shift=("lsl", 16))
        P, Q = b.eor(lo, tt, shift=("lsl", 16)), b.eor(hi, u, shift=("lsr", 16))
        x[pa], x[pa + 16] = P, Q
        y_low_b = where[pb][1] == 1                        # pair B = (Y, 3Y), else (3Y, Y)
        if not y_low_a and y_low_b:      # P = [d_L, y_L], Q = [d_H, y_H]
            R = b.eor(b.shift("lsl", yv, 16), P, shift=("ror", 16))           # [y_L, e_L]
            S = b.ror(b.eor(Q, yv, shift=("lsr", 16)), 16)                     # [y_H, e_H]
        elif not y_low_a:                # -> [e_L, y_L], [e_H, y_H]
            R = b.eor(b.eor(P, yv), b.shift("lsr", yv, 16), shift=("lsl", 16))
            S = b.eor(Q, yv, shift=("lsr", 16))
        elif y_low_b:                    # P = [y_L, d_L], Q = [y_H, d_H] -> [y_L, e_L], [y_H, e_H]
            R = b.eor(P, yv, shift=("lsl", 16))
            S = b.eor(Q, b.shift("lsr", yv, 16), shift=("lsl", 16))
        else:                            # -> [e_L, y_L], [e_H, y_H]
            R = b.ror(b.eor(P, yv, shift=("lsl", 16)), 16)
            S = b.eor(b.shift("lsr", yv, 16), Q, shift=("ror", 16))
        x[pb], x[pb + 16] = R, S
    return x


def y_multiple(b: Builder, y: list[int], coef: int, plane: int) -> int:
    """Plane `plane` of coef * Y (coef 1, 2, 3), from the planes of Y: 2Y plane p is Y plane
    p - 1 (plane 7 for p = 0), XOR plane 7 for p in XTIME_FEEDBACK; 3Y = 2Y ^ Y."""
    if coef == 1:
        return y[plane]
    x2 = emit_xtime_plane(b, y, plane)
    return x2 if coef == 2 else b.eor(x2, y[plane])


def face_encrypt2_ir(keybits: int, slicing: str, depth: str, cached: bool = False,
                     circuit: str = aes_sbox.DEFAULT) -> Program:
    """Two blocks from their cached entries: rounds (d+1)..Nr of the fixsliced kernel, their
    S-boxes by ``circuit`` (the Thumb-2 kernel takes the plain kernel's choice, aes_thumb2.CIRCUIT).

    ``cached`` (r2 only): the entries hold D(v) alone, without the per-run constant C2 (a table
    kept across messages, the caller-owned cache of the GCM glue), and the kernel XORs C2 in
    itself from its own memory `c2` (8 words: the setup's fs[32..39]): 8 loads and 8 EORs per
    pair instead of a table per run."""
    nr = check_args(keybits, slicing)
    check_depth(depth)
    if cached and depth != "r2":
        raise ValueError("only the r2 entries fold a per-run constant: a cached encrypt2 is r2 only")
    al = alignments(nr, slicing)
    b = Builder(f"aes{keybits}_{slicing}_face_{depth}_encrypt2{'c' if cached else ''}")
    cst = Consts(b)
    n = ENTRY_WORDS[depth]
    b.declare("e", 2 * n, "r")                 # the entries of v0 and v0 + 1, adjacent in the table
    b.declare("rk", 8 * (nr + 1), "r", constant=True)
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    if depth == "r1":
        b.declare("fs", FS_WORDS[depth], "r")
        ts = r1_shifts(al[1])
        m = cst.reg(sum(1 << packed_pos(r, 0, al[1]) for r in range(4)))
        e0, e1 = b.ld("e", 0), b.ld("e", 1)
        q = []
        for i in range(8):
            sh = ("ror", ts[i]) if ts[i] else None
            t0 = b.and_(m, e0, shift=sh)
            t1 = b.and_(m, e1, shift=sh)
            q.append(b.eor(b.eor(b.ld("fs", 8 + i), t0), t1, shift=("lsl", 1)))
        emit_finish(b, q, 2, al, nr, circuit)
        return b.finish()
    if cached:                                            # D(v) ^ C2: the pair's state after round 2
        b.declare("c2", 8, "r")
        q = [b.eor(b.ld("e", i), b.ld("c2", i)) for i in range(8)]
    else:
        q = [b.ld("e", i) for i in range(8)]              # the pair's packed state after round 2
    emit_finish(b, q, 3, al, nr, circuit)
    return b.finish()


# ---- a Python model of the whole thing, on the IR interpreter (tests) ----

def vb_words(g: int, o: int = 0) -> list[int]:
    """Input `vb` of face_fill for group g and pair parity o: word b has bit b of
    v = 32 g + o + l in lane l."""
    return [sum((((32 * g + o + l) >> bit) & 1) << l for l in range(32)) for bit in range(8)]


def vb_low(o: int) -> list[int]:
    """The five low words of ``vb_words(g, o)`` (the same for every g): what the C glue reads
    from {p}_face_vlo[o]; its three high words are bits 0..2 of g (lanes 0..31 - o) and of
    g + 1 (lane 31 when o = 1)."""
    return vb_words(0, o)[:5]


def model_table(keybits: int, slicing: str, depth: str, rk: list[int], ctr: bytes,
                groups=range(8), o: int = 0) -> tuple[list[int], dict[int, list[int]]]:
    """(fs, table) by running the setup and fill programs: r1 {v: entry word}, r2 {v0: the
    8 words of the pair (v0, v0 + 1)}, pairs of parity o (v0 + 1 <= 255); r2's s planes come
    from ``model_sv`` through ``sv_words``, as the C glue gets them."""
    from gen.ir import run
    setup = face_setup_ir(keybits, slicing, depth)
    fill = face_fill_ir(keybits, slicing, depth)
    ctrw = [int.from_bytes(ctr[4 * i:4 * i + 4], "little") for i in range(4)]
    fs = run(setup, {"ctr": ctrw, "rk": rk})["fs"]
    n = ENTRY_WORDS[depth]
    sv1 = model_sv(keybits, slicing, rk) if depth == "r2" else None
    tab = {}
    for g in groups:
        if depth == "r1":
            out = run(fill, {"fs": fs, "vb": vb_words(g)})["tab"]
            for l in range(GROUP):
                tab[GROUP * g + l] = out[n * l:n * l + n]
            continue
        out = run(fill, {"fs": fs, "sv": sv_words(sv1, g, o)})["tab"]
        for j in range(GROUP // 2):
            v0 = GROUP * g + o + 2 * j
            if v0 + 1 <= 255:
                tab[v0] = out[8 * j:8 * j + 8]
    return fs, tab


def model_sv(keybits: int, slicing: str, rk: list[int]) -> list[int]:
    """r2: the ctx's s planes (SV_WORDS words) as init computes them, ``face_sv_ir`` for the
    groups g = 0..7 of parity 1 (the parity of every pair with a 96-bit IV)."""
    from gen.ir import run
    prog = face_sv_ir(keybits, slicing)
    return [w for g in range(8) for w in run(prog, {"rk": rk, "vb": vb_words(g, 1)})["sv"]]


def sv_words(sv1: list[int], g: int, o: int) -> list[int]:
    """The fill's `sv` for group g, parity o, from the ctx's s planes ``sv1`` (parity 1):
    parity 1 is group g's 8 words; parity 0 (v = 32 g + l) is parity 1 one lane up, lane 0 from
    lane 31 of group g - 1 (for g = 0, group 7: v = 256, whose low byte is 0). The C glue
    serves parity 1 only (every FACE pair starts at an odd counter: tests/test_face_parity.py);
    parity 0 stays here as a model of the fill kernel, which works for either."""
    if o:
        return list(sv1[8 * g:8 * g + 8])
    prev = 8 * ((g - 1) % 8)
    return [((sv1[8 * g + b] << 1) | (sv1[prev + b] >> 31)) & 0xFFFFFFFF for b in range(8)]


def model_pair(tab: dict[int, list[int]], v0: int, v1: int | None = None) -> list[int]:
    """The `e` words face_encrypt2 reads for the pair (v0, v1 = v0 + 1 by default) from a
    ``model_table`` table: r1 the two entries (any two), r2 the pair's entry (v1 = v0 + 1)."""
    if len(tab[v0]) == 8:
        assert v1 in (None, v0 + 1), "r2 entries are whole pairs (v0, v0 + 1)"
        return tab[v0]
    return tab[v0] + tab[v0 + 1 if v1 is None else v1]


# ---- C ----

@dataclass
class FaceCode:
    code: str
    depth: str
    fs_words: int
    tab_words: int
    entry_words: int
    stats: dict = field(default_factory=dict)


def fill_in(depth: str) -> str:
    """The fill's third memory (and C parameter): r1 vb (it runs the round-1 S-box itself), r2
    sv (the s planes init left in the ctx)."""
    return "vb" if depth == "r1" else "sv"


def c_shared(prefix: str, depth: str) -> str:
    """C the glue needs from either FACE section (portable or Thumb-2): where a pair's `e`
    starts in the table (in words) and the low words of the `vb` input per parity (the input
    of the r1 fill, of r2's face_sv)."""
    P = prefix.upper()
    pair = "(v0)" if depth == "r1" else "(4u * ((v0) & ~1u))"
    what = ("entries v0, v0 + 1" if depth == "r1"
            else "the pair's 8-word entry: pair (v0 - o) / 2, o = v0 & 1")
    lo = ",\n".join("    {" + ", ".join(f"0x{w:08x}u" for w in vb_low(o)) + "}" for o in (0, 1))
    return (f"#define {P}_FACE_PAIR(v0) {pair}   /* words into the table: {what} */\n"
            f"/* bits 0..4 of v = 32 g + o + l in lane l, for o = 0, 1 (the fill's vb[0..4]) */\n"
            f"static const uint32_t {prefix}_face_vlo[2][5] = {{\n{lo}\n}};\n")


def portable_c(prefix: str, keybits: int, slicing: str, depth: str) -> FaceCode:
    """C99 (static functions, placed after the AES kernel):
    {p}_face_setup(uint32_t *fs, const uint32_t *rk, const uint8_t *ctr)
    {p}_face_fill(uint32_t *tab, const uint32_t *fs, const uint32_t *vb)   (r2: sv, not vb)
    {p}_face_sv(uint32_t *sv, const uint32_t *rk, const uint32_t *vb)   (r2 only: ``face_sv_ir``)
    {p}_face_encrypt2(const uint32_t *rk, const uint32_t *fs, uint8_t *out,
                      const uint8_t *in, const uint32_t *e, size_t n)   (fs unused for r2)
    (n >= 1 pairs: out = in XOR the keystream of the pairs whose entries start at e; the
    one-pair body is {p}_face_pair)"""
    setup = face_setup_ir(keybits, slicing, depth)
    fill = face_fill_ir(keybits, slicing, depth)
    enc = face_encrypt2_ir(keybits, slicing, depth)
    n = ENTRY_WORDS[depth]
    from gen.kernels.aes.fixsliced import encrypt2_ir
    # ops saved per pair: the plain path is the kernel plus a separate XOR (a load of the
    # keystream word and an XOR per word, beside the input load both do)
    saving = len(encrypt2_ir(keybits, slicing).ops) + 16 - len(enc.ops)
    min_group = -(-len(fill.ops) // saving)
    # r1's table is the key's (filled by init): a run only pays its set-up
    min_run = -(-(len(setup.ops) + (len(fill.ops) if depth == "r2" else 0)) // saving)
    P = prefix.upper()
    defines = (f"#define {P}_FACE_ENTRY_WORDS {n}u   /* words per table entry */\n"
               f"#define {P}_FACE_MIN_GROUP {min_group}u   /* fill a 32-entry group only for >= this many pairs "
               f"({len(fill.ops)} ops / {saving} ops saved per pair) */\n"
               f"#define {P}_FACE_MIN_RUN {min_run}u   /* set up a run only for >= this many pairs "
               f"(set-up {len(setup.ops)}{' + one group' if depth == 'r2' else ''}) */\n")
    head = (f"/* FACE {depth} for AES-{keybits} {slicing}: counter-mode caching of the state after "
            f"round {depth[1]}, generated by gen/kernels/face/aes_face.py. A run (counter bytes 0..14 fixed) "
            f"has a per-run constant block fs[{FS_WORDS[depth]}] ({prefix}_face_setup) and a table of "
            f"256 entries x {n} words, filled 32 entries at a time ({prefix}_face_fill; "
            f"{'by init, the entries depend on the key only' if depth == 'r1' else 'per run, stored as pairs'}). All "
            f"straight-line: no index or branch depends on key or data; the glue reads the table "
            f"at the public low counter byte. */\n")
    fns = [
        c_backend.function(f"static void {prefix}_face_setup(uint32_t *fs, const uint32_t *rk, "
                           f"const uint8_t *ctr)", setup,
                           {"ctr": ("bytes_le", "ctr"), "rk": ("words", "rk"), "fs": ("words", "fs")}),
        c_backend.function(f"static void {prefix}_face_fill(uint32_t *tab, const uint32_t *fs, "
                           f"const uint32_t *{fill_in(depth)})", fill,
                           {"fs": ("words", "fs"), fill_in(depth): ("words", fill_in(depth)),
                            "tab": ("words", "tab")}),
    ]
    stats = {"setup": setup.stats(), "fill": fill.stats(), "encrypt2": enc.stats()}
    if depth == "r2":
        sv = face_sv_ir(keybits, slicing)
        fns.append(c_backend.function(f"static void {prefix}_face_sv(uint32_t *sv, const uint32_t *rk, "
                                      f"const uint32_t *vb)", sv,
                                      {"rk": ("words", "rk"), "vb": ("words", "vb"), "sv": ("words", "sv")}))
        stats["sv"] = sv.stats()
    mems = {"e": ("words", "e"), "rk": ("words", "rk"), "in": ("bytes_le", "in"), "out": ("bytes_le", "out")}
    if depth == "r1":
        mems["fs"] = ("words", "fs")
    sig = (f"static void {prefix}_face_pair(const uint32_t *rk, const uint32_t *fs, uint8_t *out, "
           f"const uint8_t *in, const uint32_t *e)")
    body = c_backend.function(sig, enc, mems)
    if depth == "r2":   # fs is not read: keep -Wunused-parameter quiet
        body = body.replace("{\n", "{\n    (void)fs;\n", 1)
    fns.append(body)
    fns.append(_pairs_loop(prefix, "encrypt2", "pair", "fs", 2 * n_words(depth)))
    if depth == "r2":   # the cache's kernel: entries D(v) without C2, which it XORs in
        encc = face_encrypt2_ir(keybits, slicing, depth, cached=True)
        fns.append(c_backend.function(
            f"static void {prefix}_face_pairc(const uint32_t *rk, const uint32_t *c2, uint8_t *out, "
            f"const uint8_t *in, const uint32_t *e)", encc,
            {"e": ("words", "e"), "rk": ("words", "rk"), "c2": ("words", "c2"),
             "in": ("bytes_le", "in"), "out": ("bytes_le", "out")}))
        fns.append(_pairs_loop(prefix, "encrypt2c", "pairc", "c2", 2 * n_words(depth)))
        stats["encrypt2c"] = encc.stats()
        c2 = face_c2_ir(keybits, slicing)
        fns.append(c_backend.function(
            f"static void {prefix}_face_c2(uint32_t *c2, const uint32_t *rk, const uint8_t *ctr)", c2,
            {"ctr": ("bytes_le", "ctr"), "rk": ("words", "rk"), "c2": ("words", "c2")}))
        stats["c2"] = c2.stats()
    return FaceCode(code=head + defines + c_shared(prefix, depth) + "\n".join(fns),
                    depth=depth, fs_words=FS_WORDS[depth], tab_words=256 * n, entry_words=n, stats=stats)


def _pairs_loop(prefix: str, name: str, body: str, second: str, step: int) -> str:
    """C of {p}_face_<name>: n >= 1 pairs through the one-pair body {p}_face_<body>."""
    return (f"/* n >= 1 pairs: out = in ^ keystream, the entries advancing one pair at a time */\n"
            f"static void {prefix}_face_{name}(const uint32_t *rk, const uint32_t *{second}, uint8_t *out, "
            f"const uint8_t *in, const uint32_t *e, size_t n)\n{{\n"
            f"    for (; n; n--, out += 32, in += 32, e += {step}u)\n"
            f"        {prefix}_face_{body}(rk, {second}, out, in, e);\n}}\n")
