"""The live-value floor of a segment: the values live at an op in EVERY evaluation order.

The trick: in a straight-line program an op X splits the others into its ancestors (before X in
any topological order), its descendants (after X) and the rest.  A value whose producer is X, an
ancestor of X or the harness (the segment's inputs), and which has a reader among X's descendants
or in the harness (the segment's outputs), is live while X runs, whatever the order.  The largest
such set over all X bounds MAXLIVE (as gen/explore/cpsat.maxlive counts it) from below for every
order, where CP-SAT's relaxation stops at 9 for the AES S-box.  Above the registers, each value of
that set not in a register costs a spill store and a reload, or a recomputation (the allocator's
``recompute``): the floor of the S-box's spill code.  `python -m gen.explore.pressure` prints it;
the argument and its test: docs/internals/explorer.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.ir import Program
from gen.sched import listsched

#: the harness of a segment program (gen/kernels/aes/thumb2.segment_program): 8 loads, 8 stores
HARNESS = 8


@dataclass(frozen=True)
class Floor:
    bound: int          # values live at ``op`` in every order (the rk pointer counted as one)
    op: int             # the segment op (position among the segment's ops) where it is reached
    values: tuple       # the producing ops of those values (k - HARNESS for harness input k; "rk": the pointer)
    reloadable: int     # of them, loads of a constant memory (a round-key word: reloaded, never stored)


def certain_live(prog: Program) -> Floor:
    """The largest set of values live at one op of ``prog``'s segment in every topological order
    (``prog`` is a segment harness: HARNESS input loads, the segment's ops, HARNESS output stores)."""
    n = len(prog.ops)
    lo, hi = HARNESS, n - HARNESS
    preds = listsched.dependences(prog)
    anc = [0] * n
    for i in range(lo, hi):
        for p in preds[i]:
            if lo <= p < hi:
                anc[i] |= anc[p] | (1 << p)
    desc = [0] * n
    for i in range(hi - 1, lo - 1, -1):
        for p in preds[i]:
            if lo <= p < hi:
                desc[p] |= desc[i] | (1 << i)
    defined = {prog.ops[i].dst: i for i in range(n) if prog.ops[i].dst is not None}
    readers: dict = {}
    for i in range(n):
        for r in prog.ops[i].reads():
            readers.setdefault(defined[r], []).append(i)
    rk_loads = [i for i in range(lo, hi) if prog.ops[i].kind == "ld" and prog.ops[i].mem == "rk"]
    best = None
    for x in range(lo, hi):
        live = []
        for d, rs in readers.items():
            before = d < lo or d == x or anc[x] >> d & 1
            after = any(r >= hi or desc[x] >> r & 1 for r in rs)
            if before and after:
                live.append(d)
        if rk_loads and any(r == x or desc[x] >> r & 1 for r in rk_loads):
            live.append("rk")          # the round-key pointer (cpsat's model: live to the last rk load)
        if best is None or len(live) > len(best[1]):
            best = (x, live)
    x, live = best
    const = sum(1 for d in live if d != "rk" and d >= lo and prog.ops[d].kind == "ld"
                and prog.ops[d].mem in prog.constant)
    return Floor(len(live), x - lo, tuple(d if d == "rk" or d >= lo else d - lo for d in live), const)


def spill_floor(floor: Floor, registers: int) -> int:
    """Values of ``floor`` that no register can hold at its op and no reload from a constant memory
    can stand for: each costs at least a spill store and a reload, or its recomputation."""
    return max(0, floor.bound - registers - floor.reloadable)


def main() -> None:     # pragma: no cover - prints the figures of docs/cortex-m4.md
    from gen.explore.cpsat import REGISTERS, maxlive
    from gen.kernels.aes import breakdown as B, ecb_thumb2, thumb2 as A
    for kind in ("ark+sbox", "ark+sbox@bpc113", "ark+sbox@me111", "-lin:0:1", "-lin:0:3", "-lin:0:2", "-lin:0:0"):
        prog = A.segment_program(kind)
        order = A.sbox_order(A.ORDERS, kind) if "sbox" in kind else A.ORDERS.get(kind)
        f = certain_live(prog)
        print(f"{kind}: {len(prog.ops) - 2 * HARNESS} ops, stored order MAXLIVE {maxlive(prog, order)}, "
              f"every order >= {f.bound} (at op {f.op}), {REGISTERS} registers: "
              f">= {spill_floor(f, REGISTERS)} values spilled or recomputed")
    for bits in (128, 256):
        for spill in ("stack", "fpu"):
            k = ecb_thumb2.compile_loop(bits, "ffs", "cortex-m4", spill=spill)
            c = A.compile_encrypt2(bits, "ffs", "cortex-m4", spill=spill)
            print(f"AES-{bits} ffs {spill}: {k.cycles} a pair in the ECB loop; one call {c.cycles}: "
                  f"{B.describe(B.breakdown(c.insns, 'cortex-m4'))}; {c.spills} spill stores "
                  f"({c.strd} STRD pairs), {c.reloads} reloads, {c.base_reloads} pointer reloads")


if __name__ == "__main__":
    main()
