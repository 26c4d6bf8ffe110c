"""Rijndael-256 encryption as generated Thumb-2: the IR of encrypt.py cut into segments that the
list scheduler takes one after the other, in stored evaluation orders.

The trick is AES's (gen/kernels/aes/thumb2.py): segments ``pre``, ``ark+sbox`` (AES's circuit and
stored order), ``lin:<e>:<a>`` (orders in thumb2_orders.py, ``python -m
gen.kernels.rijndael256.thumb2``) and ``final``; rk is homed, not pinned, so all 14 registers hold
values.  The segments and the pinning measurement: docs/internals/rijndael256.md.
"""
from __future__ import annotations

import sys

from gen.ir import Builder, Program
from gen.isa import thumb2 as t2
from gen.kernels import thumb2_function as TF
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.kernels.aes.thumb2_orders import ORDERS as AES_ORDERS
from gen.kernels.rijndael256 import encrypt as E

try:    # evaluation orders found offline (python -m gen.kernels.rijndael256.thumb2)
    from gen.kernels.rijndael256.thumb2_orders import ORDERS as OWN_ORDERS
except ImportError:       # pragma: no cover - before the first search
    OWN_ORDERS: dict = {}

#: AES's AddRoundKey + S-box orders (one per circuit) unless the own orders file keeps one
#: ('ark+sbox' there: kept when explore gave AES a new one that would cost this kernel cycles)
ORDERS = {**{k: v for k, v in AES_ORDERS.items() if aes_thumb2.kind_circuit(k)[0] == "ark+sbox"},
          **OWN_ORDERS}


def sbox_kind() -> str:
    """The orders key of the S-box segments: AES's circuit choice (aes_thumb2.CIRCUIT)."""
    return aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)


def lin_kind(al: list[int], j: int, nr: int) -> str:
    return f"lin:{E.explicit_exponent(al, j)}:{al[j] if j < nr else '-'}"


def _emit_lin(b: Builder, q: list[int], kind: str) -> list[int]:
    _, e, a = kind.split(":")
    return E.emit_linear(b, q, int(e), None if a == "-" else int(a))


def build(spec, shiftrows: str, orders=None):
    """(program, segment of every op, rank of every op or None): encrypt.encrypt_program with
    segment marks (checked op for op), the S-box AES's circuit choice."""
    orders = ORDERS if orders is None else orders
    circuit, sbox = aes_thumb2.CIRCUIT, sbox_kind()
    nr = spec.rounds
    al = E.alignments(nr, shiftrows)
    b = Builder(f"{spec.name}_{shiftrows}_encrypt", is_imm=t2.is_imm)
    b.declare("in", E.NB, "r")
    b.declare("rk", E.PLANES * (nr + 1), "r", constant=True)
    b.declare("out", E.NB, "w")
    marks = [(0, "pre")]
    w = E.emit_natural_shiftrows(b, [b.ld("in", c) for c in range(E.NB)], -al[0])
    q = E.emit_pack_columns(b, w)
    marks.append((len(b.ops), sbox))
    q = AF.emit_add_round_key(b, q, 0)
    for j in range(1, nr + 1):
        q = AF.emit_sbox(b, q, circuit)
        kind = lin_kind(al, j, nr)
        marks.append((len(b.ops), kind))
        q = _emit_lin(b, q, kind)
        marks.append((len(b.ops), sbox if j < nr else "final"))
        q = AF.emit_add_round_key(b, q, j)
    w = E.emit_natural_shiftrows(b, E.emit_unpack_columns(b, q), al[nr])
    for c in range(E.NB):
        b.st("out", c, w[c])
    n = len(b.ops)
    prog = b.finish()
    assert len(prog.ops) == n, "dead code in the encryption: segment marks would be off"
    ref = E.encrypt_program(spec, shiftrows, circuit)
    assert [str(o) for o in prog.ops] == [str(o) for o in ref.ops], "diverged from encrypt_program"
    segment, rank = [0] * n, [None] * n
    bounds = [m for m, _ in marks] + [n]
    for s, (start, kind) in enumerate(marks):
        order = orders.get(kind)
        if order is not None:
            assert len(order) == bounds[s + 1] - start, f"order for {kind} has the wrong length"
        for i in range(start, bounds[s + 1]):
            segment[i] = s + 1
        for k, g in enumerate(order or ()):
            rank[start + g] = k
    return prog, segment, rank


def compile_encrypt(spec, name: str, params, core: str, seed: int = 0, shiftrows: str = "explicit",
                    orders=None, count: bool = False) -> TF.Function:
    """``count``: r3 pushed as a loop bound's home (the ECB loop, gen/kernels/block_ecb_thumb2.py)."""
    prog, segment, rank = build(spec, shiftrows, orders)
    # the allocator's policy goes with AES's ark+sbox order (found with it)
    return TF.compile_function(prog, name, params, core, seed, segments=segment, rank=rank,
                               alloc_policy=aes_thumb2.ALLOC_POLICY, count=count)


#: ops of emit_subword before its S-box (the 7 shifted copies of the word)
SUBWORD_SHIFTS = 7


def compile_keyschedule(spec, name: str, params, core: str, seed: int = 0, shiftrows: str = "explicit",
                        orders=None) -> TF.Function:
    """The key schedule (keyschedule.py, round keys stored as soon as they exist), every
    SubWord's S-box its own segment in AES's stored 'sbox' order (the same gate list, run on
    the word and its 7 shifts): measured on the M4 model 7,428 -> 6,872 cycles and a stack of
    664 -> 128 bytes against one greedy pass."""
    from gen.kernels.rijndael256.keyschedule import keyschedule_program
    orders = AES_ORDERS if orders is None else orders
    starts: list = []
    prog = keyschedule_program(spec, shiftrows, starts)
    n = len(prog.ops)
    cuts = sorted(c for s in starts for c in (s + SUBWORD_SHIFTS, s + SUBWORD_SHIFTS + len(orders["sbox"])))
    segment, rank, sid, k = [0] * n, [None] * n, 1, 0
    for i in range(n):
        while k < len(cuts) and i >= cuts[k]:
            sid, k = sid + 1, k + 1
        segment[i] = sid
    for s in starts:
        for pos, g in enumerate(orders["sbox"]):
            rank[s + SUBWORD_SHIFTS + g] = pos
    return TF.compile_function(prog, name, params, core, seed, segments=segment, rank=rank)


def kinds(spec) -> list[str]:
    """Every linear segment kind of both strategies."""
    out = set()
    for sr in E.STRATEGIES:
        al = E.alignments(spec.rounds, sr)
        out.update(lin_kind(al, j, spec.rounds) for j in range(1, spec.rounds + 1))
    return sorted(out)


def segment_program(kind: str) -> Program:
    """One linear segment alone, its 8 inputs loaded first and its 8 results stored last (the
    harness of aes_thumb2.order_cycles); 'ark+sbox' (with any circuit) is AES's segment (the same ops)."""
    if aes_thumb2.kind_circuit(kind)[0] == "ark+sbox":
        return aes_thumb2.segment_program(kind)
    b = Builder(kind, is_imm=t2.is_imm)
    b.declare("in", 8, "r")
    b.declare("rk", 16, "r", constant=True)
    b.declare("out", 8, "w")
    q = _emit_lin(b, [b.ld("in", i) for i in range(8)], kind)
    for i in range(8):
        b.st("out", i, q[i])
    prog = b.finish()
    assert len(prog.ops) == len(b.ops)
    return prog


def write_orders(found: dict, command: str) -> None:
    with open(__file__.replace("thumb2.py", "thumb2_orders.py"), "w") as f:
        f.write('"""Evaluation orders of the Rijndael-256 linear segments (op positions inside each\n'
                "segment, see gen/kernels/rijndael256/thumb2.py build(); 'lin:<e>:<a>' = packed SR^e\n"
                "then MixColumns variant M_a). DATA written by\n"
                f"`{command}`\n"
                "(simulated annealing over topological orders, aes_thumb2.search_order, cost = the\n"
                'modelled cycles of the segment alone). Any topological order is correct."""\n\n')
        f.write("ORDERS = {\n")
        for kind in sorted(found):
            f.write(f"    {kind!r}: {tuple(found[kind])!r},\n")
        f.write("}\n")


if __name__ == "__main__":      # offline: python -m gen.kernels.rijndael256.thumb2 [iters] [kind...]
    from gen.ciphers import get
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    todo = sys.argv[2:] or kinds(get("rijndael256"))
    found = dict(OWN_ORDERS)
    for kind in todo:
        prog = segment_program(kind)
        old = found.get(kind)
        new = aes_thumb2.search_order(kind, iters, seed=1, start=old, cost="cycles", prog=prog)
        if old is None or aes_thumb2.order_cycles(prog, new) < aes_thumb2.order_cycles(prog, old):
            found[kind] = new
        print(f"{kind}: {aes_thumb2.order_cycles(prog, found[kind])} cycles", file=sys.stderr)
    write_orders(found, "python -m gen.kernels.rijndael256.thumb2 " + " ".join(sys.argv[1:]))
