"""SPEEDY-r-192 for RV32: the column-sliced rounds with rotations and negations folded into the
representation, because RV32I has no rotated operand (a rotation is three instructions) and no
and-not.

The trick: a column is held as ``(vreg, rot, neg)``, its true value ``ror(vreg, rot) ^ (neg ? ~0 :
0)``, and both are settled at generation time:

* every S-box first aligns its six inputs to one rotation T (five rotations after ShiftColumns,
  fewer after MixColumns, whose output rotation is chosen among its terms' to meet the next T; the
  T of each S-box is chosen by a dynamic program over the whole cipher), then runs its circuit with
  no rotation at all: ShiftColumns is still free, and the rotations inside the circuit (about
  22 an S-box in the Cortex-M form) vanish;
* each gate picks the polarity of its operands so that and-not / or-not become AND / OR (De
  Morgan: a gate on two complemented operands is the dual gate, complemented), a NOT only where
  no polarity fits, cached per value; the S-box inputs' polarities are chosen per round (the
  cheapest of 64) and set for free by complementing round-key words;
* AddRoundKey XORs a round key pre-rotated (and pre-complemented) by the key schedule, so it
  keeps the column's rotation instead of undoing it.

``programs(spec)`` gives the (key schedule, encrypt) IR pair: the key schedule is the family's
(gen/kernels/speedy/keyschedule.py) storing each round-key word rotated (its gather takes the rows
in another cyclic order: no rotation instruction) and complemented (in the round constant) as the
encrypt program wants.  More: docs/riscv.md.
"""
from __future__ import annotations

from gen.ciphers.base import walk_circuit
from gen.ir import Builder, Program
from gen.kernels.speedy import layout
from gen.kernels.speedy.keyschedule import keyschedule_program
from gen.kernels.speedy.rounds import mix_plan

COLS = layout.COLS
#: (required polarity difference of the operands, gate on held values for a == held polarity 0,
#: the dual gate for held polarity 1); the result's held polarity is the first operand's
GATES = {"and": (0, "and", "orr"), "or": (0, "orr", "and"), "andn": (1, "and", "orr"),
         "orn": (1, "orr", "and"), "xor": (0, "eor", "eor")}
NEGATED = {"nand": "and", "nor": "or", "xnor": "xor"}


class _Dry:
    """A stand-in Builder for costing: counts the ops it is asked for."""

    def __init__(self):
        self.ops = 0

    def mvn(self, v):
        self.ops += 1
        return ("not", v)

    def alu(self, kind, a, b):
        self.ops += 1
        return (kind, a, b)


def sbox(b, gates, names_in, names_out, ins: list) -> list:
    """The circuit on held values ``ins`` [(vreg, neg)] (all at one rotation): [(vreg, neg)] out.
    A NOT is emitted only where an operand's needed polarity is not held yet (then cached)."""
    held: dict[str, dict[int, object]] = {}

    def get(x: dict, pol: int):
        if pol not in x:
            x[pol] = b.mvn(x[1 - pol])
        return x[pol]

    def gate(op, x, y):
        if op == "not":
            return {1 - p: v for p, v in x.items()}
        if op in NEGATED:
            return {1 - p: v for p, v in gate(NEGATED[op], x, y).items()}
        diff, g0, g1 = GATES[op]
        choices = [(pa, pa ^ diff) for pa in sorted(x) if pa ^ diff in y]
        if op == "xor":
            pa, pb = next(iter(sorted(x))), next(iter(sorted(y)))
            return {pa ^ pb: b.alu("eor", x[pa], y[pb])}
        if choices:
            pa, pb = choices[0]
        else:
            pa = min(x)
            pb = pa ^ diff
        return {pa: b.alu(g1 if pa else g0, x[pa], get(y, pb))}

    env = {n: {neg: v} for n, (v, neg) in zip(names_in, ins)}
    out = walk_circuit(gates, env, gate, names_out)
    res = []
    for n in names_out:
        pol = min(out[n])
        res.append((out[n][pol], pol))
    return res


def sbox_cost(spec, pols: tuple) -> tuple[int, tuple]:
    """(NOTs, output polarities) of the S-box circuit for input polarities ``pols``."""
    d = _Dry()
    outs = sbox(d, spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs,
                [(("in", k), p) for k, p in enumerate(pols)])
    gates = sum(1 for g in spec.sbox_circuit if g[1] in GATES or g[1] in NEGATED)
    return d.ops - gates, tuple(p for _, p in outs)


def round_polarities(spec) -> tuple:
    """The S-box input polarities (free: set by the round key) that need the fewest NOTs over a
    round's two S-boxes (the second takes the first's output polarities through ShiftColumns)."""
    best = None
    for m in range(1 << COLS):
        pols = tuple((m >> k) & 1 for k in range(COLS))
        n1, q1 = sbox_cost(spec, pols)
        n2, _ = sbox_cost(spec, q1)
        if best is None or n1 + n2 < best[0]:
            best = (n1 + n2, pols)
    return best[1]


def mc_terms(offsets):
    """MixColumns of one column as terms: [(source, offset)], source 'x' (the column) or 't'
    (x ^ rotl(x, d)); and d (mix_plan's shared pairs)."""
    d, bases, singles = mix_plan(offsets)
    return d, [("t", a) for a in bases] + [("x", s) for s in singles]


def targets(spec) -> list[int]:
    """The alignment rotation of each of the 2 r S-boxes: a dynamic program minimising the
    rotations of alignment, MixColumns' output and the final un-rotation (start: packed at 0)."""
    _, terms = mc_terms(spec.linear_layer["mixcolumns"])
    firsts = {a for _, a in terms}
    n = 2 * spec.rounds
    # cost(prev T, T) of the S-box k's alignment
    def step(k, tp, t):
        if k % 2:      # after ShiftColumns: column j at tp - j
            return sum((tp - j - t) % 32 != 0 for j in range(COLS))
        # after ShiftColumns and MixColumns: column j's output rotation is tp - j - a, a a term's
        return sum((tp - j - t) % 32 not in firsts for j in range(COLS))
    best = {t: (6 * (t != 0), [t]) for t in range(32)}
    for k in range(1, n):
        best = {t: min((c + step(k, tp, t), path + [t]) for tp, (c, path) in best.items()) for t in range(32)}
    return min((c + 6 * (t != 0), path) for t, (c, path) in best.items())[1]


def align(b: Builder, cols: list, t: int) -> list:
    """Held columns [(v, rot, neg)] rotated to rotation ``t``: [(v', neg)]."""
    return [(b.ror(v, (rot - t) % 32), neg) for v, rot, neg in cols]


def shift_columns(cols: list) -> list:
    """Column j rotates left by j: only the held rotation changes."""
    return [(v, (rot - j) % 32, neg) for j, (v, rot, neg) in enumerate(cols)]


def mixcolumns(b: Builder, cols: list, offsets, t_next: int) -> list:
    """XOR over a of rotl(x, a) per column, its output left at rotation ``t_next`` when a term
    has it (else at the first term's)."""
    d, terms = mc_terms(offsets)
    out = []
    for v, rot, neg in cols:
        tv = b.eor(v, v, shift=("ror", (-d) % 32)) if d else None
        lazy = [((tv, 0) if src == "t" else (v, neg), (rot - a) % 32) for src, a in terms]
        lazy.sort(key=lambda term: term[1] != t_next % 32)
        (acc, n_acc), r0 = lazy[0]
        for (w, n_w), r in lazy[1:]:
            acc = b.eor(acc, w, shift=("ror", (r - r0) % 32))
            n_acc ^= n_w
        out.append((acc, r0, n_acc))
    return out


class Keys:
    """The round-key words the encrypt program reads, and how each must be stored: rotated left
    by ``rot`` and complemented if ``flip`` (``plan[(r, j)] = (rot, flip)``)."""

    def __init__(self, b: Builder):
        self.b = b
        self.plan: dict[tuple[int, int], tuple[int, int]] = {}

    def add(self, r: int, cols: list, pols: list) -> list:
        """AddRoundKey r on held columns, leaving column j with polarity ``pols[j]``."""
        out = []
        for j, (v, rot, neg) in enumerate(cols):
            self.plan[(r, j)] = (rot, neg ^ pols[j])
            out.append((self.b.eor(v, self.b.ld("rk", COLS * r + j)), rot, pols[j]))
        return out


def encrypt_program(spec) -> tuple[Program, dict]:
    """The encrypt IR and the key plan it needs."""
    assert spec.family == "speedy" and spec.block_bytes == 24, spec.name
    mc = spec.linear_layer["mixcolumns"]
    nr = spec.rounds
    ts = targets(spec)
    pols = round_polarities(spec)
    b = Builder(f"{spec.name}_encrypt_rv32")
    b.declare("in", layout.WORDS, "r")
    b.declare("rk", COLS * (nr + 1), "r")
    b.declare("out", layout.WORDS, "w")
    keys = Keys(b)
    x = [(v, 0, 0) for v in layout.emit_pack(b, [b.ld("in", k) for k in range(layout.WORDS)])]
    circ = (spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs)
    for r in range(nr):
        x = keys.add(r, x, pols)
        for k in (2 * r, 2 * r + 1):
            y = sbox(b, *circ, align(b, x, ts[k]))
            x = shift_columns([(v, ts[k], neg) for v, neg in y])
        if r < nr - 1:
            x = mixcolumns(b, x, mc, ts[2 * r + 2])
    # the last round has no second ShiftColumns: undo the one applied above
    x = [(v, (rot + j) % 32, neg) for j, (v, rot, neg) in enumerate(x)]
    x = [(b.ror(v, rot), 0, neg) for v, rot, neg in x]
    x = keys.add(nr, x, [0] * COLS)
    for k, w in enumerate(layout.emit_unpack(b, [v for v, _, _ in x])):
        b.st("out", k, w)
    return b.finish(), keys.plan


def programs(spec) -> tuple[Program, Program]:
    """(key schedule, encrypt) IR programs of the RV32 representation."""
    enc, plan = encrypt_program(spec)
    return keyschedule_program(spec, plan), enc

