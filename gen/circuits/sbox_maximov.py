"""Maximov and Ekdahl's forward AES S-box circuit, and its lowering to one Thumb-2 op per gate.

Source (a fact, transcribed): A. Maximov and P. Ekdahl, "New Circuit Minimization Techniques for
Smaller and Faster AES SBoxes", IACR TCHES 2019 issue 4, pp. 91-125 (eprint 2019/802), the
appendix listings of the forward S-box built from ftop.a (top linear layer, 8 -> 18 values Q),
mulx.a (the GF(2^4) input X = 4 bits from 18 products of Q), inv.a (GF(2^4) inversion, with
MUXes), s1.a (the 9 linear combinations of Y the bottom products read), muln.a (18 NANDs) and
fbot.a (bottom linear layer).  111 gates of XOR/XNOR/AND/NAND/OR/NOR/MUX/NMUX.  Checked on all
256 inputs against the S-box (tests/test_sbox_maximov.py).

The trick of the lowering (``lower``): Thumb-2 has AND, BIC (a & ~b), ORR, ORN (a | ~b) and EOR,
each one cycle, so every NOT is free when the value's polarity is tracked: a value is kept either
true or complemented, XNOR/NAND/NOR are XOR/AND/OR with the flag flipped, and an AND/OR reading
complemented values becomes BIC/ORN/ORR/AND by De Morgan.  A MUX s ? a : b costs three ops
(b ^ (s & (a ^ b))); s ? a : 1 is one (a | ~s).  The outputs come out complemented exactly on
the bits of 0x63 (aes_sbox.NOT_MASK), so the kernels fold the affine constant into the round
keys as they do for Boyar-Peralta's circuits.  Thumb-2 ops: 127 (the 8 MUXes make 24).
"""
from __future__ import annotations

INPUTS = tuple(f"U{i}" for i in range(8))      # U0 = bit 7 ... U7 = bit 0 (as aes_sbox's x0..x7)
OUTPUTS = tuple(f"R{i}" for i in range(8))     # R0 = bit 7 ... R7 = bit 0

# (dst, op, operands...) in the paper's order; "1" is the constant one (inv.a's constant MUXes)
PAPER_GATES: tuple[tuple[str, ...], ...] = (
    # ftop.a: top linear layer (22 XOR; Q4 = U7 is a wire)
    ("Z6", "xor", "U1", "U2"), ("Q12", "xor", "Z6", "U3"), ("Q11", "xor", "U4", "U5"),
    ("Q0", "xor", "Q12", "Q11"), ("Z9", "xor", "U0", "U3"), ("Z80", "xor", "U4", "U6"),
    ("Q1", "xor", "Z9", "Z80"), ("Q7", "xor", "Z6", "U7"), ("Q2", "xor", "Q1", "Q7"),
    ("Q3", "xor", "Q1", "U7"), ("Q13", "xor", "U5", "Z80"), ("Q5", "xor", "Q12", "Q13"),
    ("Z66", "xor", "U1", "U6"), ("Z114", "xor", "Q11", "Z66"), ("Q6", "xor", "U7", "Z114"),
    ("Q8", "xor", "Q1", "Z114"), ("Q9", "xor", "Q7", "Z114"), ("Q10", "xor", "U2", "Q13"),
    ("Q16", "xor", "Z9", "Z66"), ("Q14", "xor", "Q16", "Q13"), ("Q15", "xor", "U0", "U2"),
    ("Q17", "xor", "Z9", "Z114"), ("Q4", "wire", "U7"),
    # mulx.a: X0..X3 (NAND/NOR products of Q, 24 gates)
    ("T20", "nand", "Q6", "Q12"), ("T21", "nand", "Q3", "Q14"), ("T22", "nand", "Q1", "Q16"),
    ("T10a", "nor", "Q3", "Q14"), ("T10b", "nand", "Q0", "Q7"), ("T10", "xor", "T10a", "T10b"),
    ("T11a", "nor", "Q4", "Q13"), ("T11b", "nand", "Q10", "Q11"), ("T11", "xor", "T11a", "T11b"),
    ("T12a", "nor", "Q2", "Q17"), ("T12b", "nand", "Q5", "Q9"), ("T12", "xor", "T12a", "T12b"),
    ("T13a", "nor", "Q8", "Q15"), ("T13b", "nand", "Q2", "Q17"), ("T13", "xor", "T13a", "T13b"),
    ("X0a", "xor", "T20", "T22"), ("X0", "xor", "T10", "X0a"),
    ("X1a", "xor", "T21", "T20"), ("X1", "xor", "T11", "X1a"),
    ("X2a", "xor", "T21", "T22"), ("X2", "xor", "T12", "X2a"),
    ("X3b", "nand", "Q4", "Q13"), ("X3a", "xor", "T21", "X3b"), ("X3", "xor", "T13", "X3a"),
    # inv.a: inversion in GF(2^4) (NAND, NOR, XNOR, 6 MUX; MUX(s, a, b) = s ? a : b)
    ("T0", "nand", "X0", "X2"), ("T1", "nor", "X1", "X3"), ("T2", "xnor", "T0", "T1"),
    ("Y0", "mux", "X2", "T2", "X3"), ("Y2", "mux", "X0", "T2", "X1"),
    ("T3", "mux", "X1", "X2", "1"), ("Y1", "mux", "T2", "X3", "T3"),
    ("T4", "mux", "X3", "X0", "1"), ("Y3", "mux", "T2", "X1", "T4"),
    # s1.a: the Y combinations the bottom products read (2 MUX, 2 NMUX, 3 XOR)
    ("T5", "mux", "X0", "T0", "X3"), ("Y23", "mux", "X1", "T5", "X0"),
    ("T6", "nmux", "T3", "X2", "X3"), ("Y01", "nmux", "T0", "T6", "X3"),
    ("Y02", "xor", "Y2", "Y0"), ("Y13", "xor", "Y3", "Y1"), ("Y00", "xor", "Y01", "Y23"),
    # muln.a: 18 NAND
    ("N0", "nand", "Y01", "Q11"), ("N1", "nand", "Y0", "Q12"), ("N2", "nand", "Y1", "Q0"),
    ("N3", "nand", "Y23", "Q17"), ("N4", "nand", "Y2", "Q5"), ("N5", "nand", "Y3", "Q15"),
    ("N6", "nand", "Y13", "Q14"), ("N7", "nand", "Y00", "Q16"), ("N8", "nand", "Y02", "Q13"),
    ("N9", "nand", "Y01", "Q7"), ("N10", "nand", "Y0", "Q10"), ("N11", "nand", "Y1", "Q6"),
    ("N12", "nand", "Y23", "Q2"), ("N13", "nand", "Y2", "Q9"), ("N14", "nand", "Y3", "Q8"),
    ("N15", "nand", "Y13", "Q3"), ("N16", "nand", "Y00", "Q1"), ("N17", "nand", "Y02", "Q4"),
    # fbot.a: bottom linear layer (24 XOR, 7 XOR/XNOR outputs; R1 = H2 is a wire)
    ("H0", "xor", "N3", "N8"), ("H1", "xor", "N5", "N6"), ("H2", "xnor", "H0", "H1"),
    ("H3", "xor", "N1", "N4"), ("H4", "xor", "N9", "N10"), ("H5", "xor", "N13", "N14"),
    ("H6", "xor", "N15", "H4"), ("H7", "xor", "N0", "H3"), ("H8", "xor", "N17", "H5"),
    ("H9", "xor", "N3", "H7"), ("H10", "xor", "N15", "N17"), ("H11", "xor", "N9", "N11"),
    ("H12", "xor", "N12", "N14"), ("H13", "xor", "N1", "N2"), ("H14", "xor", "N5", "N16"),
    ("H15", "xor", "N7", "H11"), ("H16", "xor", "H10", "H11"), ("H17", "xor", "N16", "H8"),
    ("H18", "xor", "H6", "H8"), ("H19", "xor", "H10", "H12"), ("H20", "xor", "N2", "H3"),
    ("H21", "xor", "H6", "H14"), ("H22", "xor", "N8", "H12"), ("H23", "xor", "H13", "H15"),
    ("R0", "xnor", "H16", "H2"), ("R1", "wire", "H2"), ("R2", "xnor", "H20", "H21"),
    ("R3", "xnor", "H17", "H2"), ("R4", "xnor", "H18", "H2"), ("R5", "xor", "H22", "H23"),
    ("R6", "xnor", "H19", "H9"), ("R7", "xnor", "H9", "H18"),
)

#: the paper's gate count (wires are not gates)
GATE_COUNT = sum(1 for g in PAPER_GATES if g[1] != "wire")


def _gate(op: str, v: list) -> int:
    if op == "wire":
        return v[0]
    if op in ("mux", "nmux"):
        r = v[1] if v[0] else v[2]
        return r ^ (op == "nmux")
    base = {"xor": "xor", "xnor": "xor", "and": "and", "nand": "and", "or": "or", "nor": "or"}[op]
    r = {"xor": v[0] ^ v[1], "and": v[0] & v[1], "or": v[0] | v[1]}[base]
    return r ^ (op != base)


def eval_paper(x: int) -> int:
    """The paper's circuit on one byte, gate by gate (bit-level)."""
    env = {"1": 1, **{f"U{i}": (x >> (7 - i)) & 1 for i in range(8)}}
    for dst, op, *args in PAPER_GATES:
        env[dst] = _gate(op, [env[a] for a in args])
    return sum(env[f"R{i}"] << (7 - i) for i in range(8))


def lower() -> tuple[tuple[str, str, str, str], ...]:
    """(gates, complemented): the circuit as one-op gates (dst, op, a, b), op in xor/and/bic/orr/orn
    (bic: a & ~b, orn: a | ~b), inputs x0..x7, outputs s0..s7 (aes_sbox's form, without XNORs),
    and the outputs it leaves complemented.  Polarity is tracked per value (module docstring);
    a MUX's temporaries are named dst.t, dst.m."""
    name = {f"U{i}": f"x{i}" for i in range(8)}       # paper name -> the stored value's name
    neg = {n: False for n in name}                    # is the stored value the complement?
    out: list = []
    rename_out = {f"R{i}": f"s{i}" for i in range(8)}
    # a wire to an output renames the value it reads (R1 = H2: H2 is stored as s1)
    for dst, op, *args in PAPER_GATES:
        if op == "wire" and dst in rename_out:
            rename_out[args[0]] = rename_out.pop(dst)

    def store(dst):
        return rename_out.get(dst, dst)

    def xor(dst, a, b, flip=False):
        out.append((store(dst), "xor", name[a], name[b]))
        name[dst], neg[dst] = store(dst), neg[a] ^ neg[b] ^ flip

    # De Morgan: AND / OR of (true, true), of one complemented value (the op takes it second),
    # of two complemented values (the dual op, its result complemented)
    forms = {"and": ("and", "bic", "orr"), "or": ("orr", "orn", "and")}

    def and_or(kind, dst, a, b, flip=False):
        plain, mixed, dual = forms[kind]
        if neg[a] and not neg[b]:
            a, b = b, a
        if neg[a]:
            op, n = dual, True
        else:
            op, n = (mixed if neg[b] else plain), False
        out.append((store(dst), op, name[a], name[b]))
        name[dst], neg[dst] = store(dst), n ^ flip

    for dst, op, *args in PAPER_GATES:
        if op == "wire":
            name[dst], neg[dst] = name[args[0]], neg[args[0]]
        elif op in ("xor", "xnor"):
            xor(dst, *args, flip=op == "xnor")
        elif op in ("and", "nand"):
            and_or("and", dst, *args, flip=op == "nand")
        elif op in ("or", "nor"):
            and_or("or", dst, *args, flip=op == "nor")
        elif args[2] == "1":                          # s ? a : 1 = a | ~s
            assert op == "mux"
            s, a = args[0], args[1]
            neg["~" + s], name["~" + s] = not neg[s], name[s]
            and_or("or", dst, a, "~" + s)
        else:                                         # s ? a : b = b ^ (s & (a ^ b))
            s, a, b = args
            xor(dst + ".t", a, b)
            and_or("and", dst + ".m", s, dst + ".t")
            xor(dst, b, dst + ".m", flip=op == "nmux")
    return tuple(out), frozenset(name[f"R{i}"] for i in range(8) if neg[f"R{i}"])


#: the one-op gates and the outputs they leave complemented (aes_sbox checks: exactly NOT_MASK)
GATES, COMPLEMENTED = lower()
