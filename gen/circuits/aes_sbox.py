"""The AES S-box as straight-line Boolean circuits, kept as data: three proven circuits.

``bp115`` (``GATES``): J. Boyar and R. Peralta, "A new combinational logic minimization
technique with applications to cryptology", SEA 2010 (LNCS 6049), 115 gates.
``bpc113`` (``GATES_BPC113``): Boyar, Peralta and Calik's SLP_AES_113
(www.cs.yale.edu/homes/peralta/CircuitStuff/SLP_AES_113.txt), 113 gates.
``me111``: Maximov and Ekdahl's forward S-box (TCHES 2019/4), 111 gates with NAND/NOR/MUX,
lowered to 127 one-op Thumb-2 gates with tracked polarity (gen/circuits/sbox_maximov.py).
``x0``/``s0`` are bit 7.  The four XNORs are the affine constant 0x63, computed as XOR and folded
into the next round key (``NOT_MASK``).  Gate counts, the choice by cycles, the folding argument:
docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from typing import Callable

from gen.circuits import sbox_maximov

INPUTS = tuple(f"x{i}" for i in range(8))     # x0 = bit 7 ... x7 = bit 0
OUTPUTS = tuple(f"s{i}" for i in range(8))    # s0 = bit 7 ... s7 = bit 0

# (dst, op, a, b) with op in {"xor", "and", "xnor"} (me111 also "bic" a & ~b, "orr", "orn" a | ~b);
# in evaluation order.
GATES: tuple[tuple[str, str, str, str], ...] = (
    # top linear layer (23 XOR)
    ("y14", "xor", "x3", "x5"), ("y13", "xor", "x0", "x6"), ("y9", "xor", "x0", "x3"),
    ("y8", "xor", "x0", "x5"), ("t0", "xor", "x1", "x2"), ("y1", "xor", "t0", "x7"),
    ("y4", "xor", "y1", "x3"), ("y12", "xor", "y13", "y14"), ("y2", "xor", "y1", "x0"),
    ("y5", "xor", "y1", "x6"), ("y3", "xor", "y5", "y8"), ("t1", "xor", "x4", "y12"),
    ("y15", "xor", "t1", "x5"), ("y20", "xor", "t1", "x1"), ("y6", "xor", "y15", "x7"),
    ("y10", "xor", "y15", "t0"), ("y11", "xor", "y20", "y9"), ("y7", "xor", "x7", "y11"),
    ("y17", "xor", "y10", "y11"), ("y19", "xor", "y10", "y8"), ("y16", "xor", "t0", "y11"),
    ("y21", "xor", "y13", "y16"), ("y18", "xor", "x0", "y16"),
    # shared non-linear middle: inversion in GF(2^4)^2 (32 AND, 30 XOR)
    ("t2", "and", "y12", "y15"), ("t3", "and", "y3", "y6"), ("t4", "xor", "t3", "t2"),
    ("t5", "and", "y4", "x7"), ("t6", "xor", "t5", "t2"), ("t7", "and", "y13", "y16"),
    ("t8", "and", "y5", "y1"), ("t9", "xor", "t8", "t7"), ("t10", "and", "y2", "y7"),
    ("t11", "xor", "t10", "t7"), ("t12", "and", "y9", "y11"), ("t13", "and", "y14", "y17"),
    ("t14", "xor", "t13", "t12"), ("t15", "and", "y8", "y10"), ("t16", "xor", "t15", "t12"),
    ("t17", "xor", "t4", "t14"), ("t18", "xor", "t6", "t16"), ("t19", "xor", "t9", "t14"),
    ("t20", "xor", "t11", "t16"), ("t21", "xor", "t17", "y20"), ("t22", "xor", "t18", "y19"),
    ("t23", "xor", "t19", "y21"), ("t24", "xor", "t20", "y18"), ("t25", "xor", "t21", "t22"),
    ("t26", "and", "t21", "t23"), ("t27", "xor", "t24", "t26"), ("t28", "and", "t25", "t27"),
    ("t29", "xor", "t28", "t22"), ("t30", "xor", "t23", "t24"), ("t31", "xor", "t22", "t26"),
    ("t32", "and", "t31", "t30"), ("t33", "xor", "t32", "t24"), ("t34", "xor", "t23", "t33"),
    ("t35", "xor", "t27", "t33"), ("t36", "and", "t24", "t35"), ("t37", "xor", "t36", "t34"),
    ("t38", "xor", "t27", "t36"), ("t39", "and", "t29", "t38"), ("t40", "xor", "t25", "t39"),
    ("t41", "xor", "t40", "t37"), ("t42", "xor", "t29", "t33"), ("t43", "xor", "t29", "t40"),
    ("t44", "xor", "t33", "t37"), ("t45", "xor", "t42", "t41"),
    ("z0", "and", "t44", "y15"), ("z1", "and", "t37", "y6"), ("z2", "and", "t33", "x7"),
    ("z3", "and", "t43", "y16"), ("z4", "and", "t40", "y1"), ("z5", "and", "t29", "y7"),
    ("z6", "and", "t42", "y11"), ("z7", "and", "t45", "y17"), ("z8", "and", "t41", "y10"),
    ("z9", "and", "t44", "y12"), ("z10", "and", "t37", "y3"), ("z11", "and", "t33", "y4"),
    ("z12", "and", "t43", "y13"), ("z13", "and", "t40", "y5"), ("z14", "and", "t29", "y2"),
    ("z15", "and", "t42", "y9"), ("z16", "and", "t45", "y14"), ("z17", "and", "t41", "y8"),
    # bottom linear layer (26 XOR, 4 XNOR)
    ("t46", "xor", "z15", "z16"), ("t47", "xor", "z10", "z11"), ("t48", "xor", "z5", "z13"),
    ("t49", "xor", "z9", "z10"), ("t50", "xor", "z2", "z12"), ("t51", "xor", "z2", "z5"),
    ("t52", "xor", "z7", "z8"), ("t53", "xor", "z0", "z3"), ("t54", "xor", "z6", "z7"),
    ("t55", "xor", "z16", "z17"), ("t56", "xor", "z12", "t48"), ("t57", "xor", "t50", "t53"),
    ("t58", "xor", "z4", "t46"), ("t59", "xor", "z3", "t54"), ("t60", "xor", "t46", "t57"),
    ("t61", "xor", "z14", "t57"), ("t62", "xor", "t52", "t58"), ("t63", "xor", "t49", "t58"),
    ("t64", "xor", "z4", "t59"), ("t65", "xor", "t61", "t62"), ("t66", "xor", "z1", "t63"),
    ("s0", "xor", "t59", "t63"), ("s6", "xnor", "t56", "t62"), ("s7", "xnor", "t48", "t60"),
    ("t67", "xor", "t64", "t65"), ("s3", "xor", "t53", "t66"), ("s4", "xor", "t51", "t66"),
    ("s5", "xor", "t47", "t65"), ("s1", "xnor", "t64", "s3"), ("s2", "xnor", "t55", "t67"),
)

BOTTOM_BPC113: tuple[tuple[str, str, str, str], ...] = (
    ("u1", "xor", "z15", "z16"), ("u2", "xor", "z10", "u1"), ("u3", "xor", "z9", "u2"),
    ("u4", "xor", "z0", "z2"), ("u5", "xor", "z1", "z0"), ("u6", "xor", "z3", "z4"),
    ("u7", "xor", "z12", "u4"), ("u8", "xor", "z7", "u6"), ("u9", "xor", "z8", "u7"),
    ("u10", "xor", "u8", "u9"), ("u11", "xor", "u6", "u5"), ("u12", "xor", "z3", "z5"),
    ("u13", "xor", "z13", "u1"), ("u14", "xor", "u4", "u12"), ("s3", "xor", "u3", "u11"),
    ("u16", "xor", "z6", "u8"), ("u17", "xor", "z14", "u10"), ("u18", "xor", "u13", "u14"),
    ("s7", "xnor", "z12", "u18"), ("u20", "xor", "z15", "u16"), ("u21", "xor", "u2", "z11"),
    ("s0", "xor", "u3", "u16"), ("s6", "xnor", "u10", "u18"), ("s4", "xor", "u14", "s3"),
    ("s1", "xnor", "s3", "u16"), ("u26", "xor", "u17", "u20"), ("s2", "xnor", "u26", "z17"),
    ("s5", "xor", "u21", "u17"),
)

#: SLP_AES_113 (see the module docstring): GATES up to its bottom layer (top layer and middle,
#: y*, t0..t45, z0..z17, gate for gate), then its own bottom layer (26 XOR, 4 XNOR -> 24 + 4)
GATES_BPC113 = GATES[:[g[0] for g in GATES].index("t46")] + BOTTOM_BPC113

#: the proven circuits by name; ``DEFAULT`` is the cipher's reference gate list (GATES)
CIRCUITS = {"bp115": GATES, "bpc113": GATES_BPC113, "me111": sbox_maximov.GATES}
DEFAULT = "bp115"
SOURCES = {"bp115": "Boyar & Peralta, SEA 2010, 115 gates",
           "bpc113": "Boyar, Peralta & Calik, SLP_AES_113 (Circuit Minimization Team), 113 gates",
           "me111": "Maximov & Ekdahl, TCHES 2019/4 (eprint 2019/802), 111 gates, 127 Thumb-2 ops"}
#: circuits whose NOTs are not XNOR gates but complemented outputs (exactly NOT_MASK's bits): the
#: folded form is the gate list itself, the unfolded one complements those outputs at the end
OUTPUT_NOTS = {"me111": sbox_maximov.COMPLEMENTED}


def circuit_gates(circuit: str) -> tuple:
    if circuit not in CIRCUITS:
        raise ValueError(f"unknown AES S-box circuit {circuit!r} (known: {', '.join(CIRCUITS)})")
    return CIRCUITS[circuit]


# Rematerialisation (ours, checked by ``check``): the bottom AND gates z0..z17 read 18 linear
# values of the top layer, which a register-starved kernel must keep across the inversion in
# the middle.  Each entry (y, a, b) is an identity y = a ^ b between those values (true for
# every input byte); with it the kernel recomputes y with one XOR just before the bottom
# layer instead of keeping it (a store and a reload).  In dependency order; a recomputed name
# is read primed (y7') by the later entries and by the z gates.
REMAT: tuple[tuple[str, str, str], ...] = (
    ("y7", "x7", "y11"), ("y6", "y15", "x7"), ("y16", "y1", "y7"), ("y10", "y1", "y6"),
    ("y17", "y10", "y11"), ("y13", "y2", "y5"), ("y12", "y13", "y14"), ("y9", "y2", "y4"),
    ("y3", "y5", "y8"),
)


def gates(remat=(), circuit: str = DEFAULT) -> tuple[tuple[str, str, str, str], ...]:
    """The circuit's gates, or with the REMAT entries named in ``remat`` recomputed before the
    first z gate (the top layer REMAT reads is the same in every circuit)."""
    remat = set(remat)
    assert remat <= {y for y, _, _ in REMAT}, remat
    base = circuit_gates(circuit)
    if not remat:
        return base
    if not supports_remat(circuit):
        raise ValueError(f"S-box circuit {circuit!r} has no Boyar-Peralta top layer to recompute (REMAT)")
    out, done = [], set()
    prime = lambda n: n + "'" if n in done else n
    for g in base:
        if g[0] == "z0":
            for y, a, b in REMAT:
                if y in remat:
                    out.append((y + "'", "xor", prime(a), prime(b)))
                    done.add(y)
        if g[0].startswith("z"):
            g = (g[0], g[1], prime(g[2]), prime(g[3]))
        out.append(g)
    return tuple(out)


def supports_remat(circuit: str) -> bool:
    """REMAT's identities name Boyar-Peralta's top-layer values (bp115, bpc113)."""
    names = {g[0] for g in circuit_gates(circuit)} | set(INPUTS)
    return all({y, a, b} <= names for y, a, b in REMAT)


# The constant the XNOR gates contribute, as a byte (bit i of the S-box output).
NOT_MASK = sum(1 << (7 - int(dst[1:])) for dst, op, _, _ in GATES if op == "xnor")
_bits = lambda names: sum(1 << (7 - int(d[1:])) for d in names)
assert all(_bits(d for d, op, _, _ in g if op == "xnor") == NOT_MASK for c, g in CIRCUITS.items() if c not in OUTPUT_NOTS)
assert all(_bits(n) == NOT_MASK and not any(op == "xnor" for _, op, _, _ in CIRCUITS[c])
           for c, n in OUTPUT_NOTS.items())


def emit(gate: Callable[[str, object, object], object], inputs: dict[str, object],
         fold_nots: bool = True, remat=(), circuit: str = DEFAULT) -> dict[str, object]:
    """Walk the gate list, calling ``gate(op, a, b)`` for each gate ('xor' | 'and' | 'xnor', and
    for me111 'bic' | 'orr' | 'orn').

    With ``fold_nots`` every XNOR is handed out as 'xor' (the caller folds NOT_MASK elsewhere);
    without it, a circuit of OUTPUT_NOTS ends with ``gate('not', s, s)`` on its complemented outputs.
    Returns the values of ``s0..s7``.  Used by the kernels (IR emission) and the checks below.
    """
    env = dict(inputs)
    for dst, op, a, b in gates(remat, circuit):
        if fold_nots and op == "xnor":
            op = "xor"
        env[dst] = gate(op, env[a], env[b])
    if not fold_nots:
        for name in OUTPUT_NOTS.get(circuit, ()):
            env[name] = gate("not", env[name], env[name])
    return {name: env[name] for name in OUTPUTS}


def eval_byte(x: int, fold_nots: bool = False, remat=(), circuit: str = DEFAULT) -> int:
    """Evaluate the circuit on one byte (bit-level, Python ints)."""
    def gate(op, a, b):
        if op in ("and", "bic", "orr", "orn", "not"):
            return {"and": a & b, "bic": a & ~b & 1, "orr": a | b, "orn": (a | ~b) & 1, "not": a ^ 1}[op]
        v = a ^ b
        return v ^ 1 if op == "xnor" else v
    ins = {f"x{i}": (x >> (7 - i)) & 1 for i in range(8)}
    outs = emit(gate, ins, fold_nots=fold_nots, remat=remat, circuit=circuit)
    return sum(outs[f"s{i}"] << (7 - i) for i in range(8))


# ---- the reference: S(x) = A * x^-1 + 0x63 over GF(2^8) / (x^8 + x^4 + x^3 + x + 1) ----

def gf_mul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = (a << 1) ^ (0x11B if a & 0x80 else 0)
        b >>= 1
    return r


def gf_inv(a: int) -> int:
    """a^254 (0 maps to 0)."""
    r, e = 1, 254
    while e:
        if e & 1:
            r = gf_mul(r, a)
        a = gf_mul(a, a)
        e >>= 1
    return r


def sbox_reference(x: int) -> int:
    b = gf_inv(x)
    rotl = lambda v, n: ((v << n) | (v >> (8 - n))) & 0xFF
    return b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63


def check(circuit: str = DEFAULT) -> list[int]:
    """Inputs where the circuit disagrees with the reference (empty list = correct)."""
    full = [y for y, _, _ in REMAT] if supports_remat(circuit) else []
    ev = lambda x, **kw: eval_byte(x, circuit=circuit, **kw)
    return [x for x in range(256)
            if ev(x) != sbox_reference(x)
            or ev(x, fold_nots=True) != sbox_reference(x) ^ NOT_MASK
            or ev(x, remat=full) != sbox_reference(x)
            or any(ev(x, fold_nots=True, remat=full[:k]) != sbox_reference(x) ^ NOT_MASK
                   for k in range(1, len(full)))]


def gate_counts(circuit: str = DEFAULT) -> dict:
    ops = ("xor", "xnor", "and") + (("bic", "orr", "orn") if circuit in OUTPUT_NOTS else ())
    return {op: sum(1 for g in circuit_gates(circuit) if g[1] == op) for op in ops}


GATE_COUNTS = gate_counts()
