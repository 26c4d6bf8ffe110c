"""Counter mode over whole pairs of blocks, as generated Thumb-2: ``{prefix}_ctr_pairs``.

    void {prefix}_ctr_pairs(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in,
                            size_t n);     /* n >= 1 */

The trick: the XOR-fused kernel of gen/kernels/aes/thumb2.py (``xor=True``) runs n times between
one prologue and one epilogue; the back edge steps out, in and both big-endian counters (inc32 by
2).  ``out`` may be ``in``; no alignment needed; the count is public.  What it replaces and the
FPU-home variant: docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.isa import thumb2 as t2
from gen.kernels.aes import thumb2 as A
from gen.kernels.thumb2_function import looped_lines, split_frame
from gen.sched import listsched
from gen.cores import timing as T


@dataclass
class CtrCode:
    code: str                 # C prototype + file-scope __asm__
    pair_cycles: int          # modelled cycles of one loop step (body + back edge)
    call_cycles: int          # modelled cycles of a call with n = 1 (prologue, body, back edge, epilogue)
    stack_bytes: int


def back_edge(frame: int, fpu_homes: bool = False, vpushed: int = 0) -> list:
    """The loop's back edge as instructions (argument homes at ``frame`` + 4 * their index in
    PUSHED_XOR, n just above them on the caller's stack), without the final ``bne 1b``.  The
    ``sub`` of n is printed as ``subs`` (the branch reads its flags).  ``fpu_homes`` (spill =
    fpu): the four homes are s12-s15 (A.FPU_HOME), moved with 1-cycle VMOVs; only the callee-saved
    registers are pushed, so n is just above them (and above the ``vpushed`` bytes of FPU
    registers the prologue saved: ``fpu_rk``)."""
    ldr, str_ = t2.ldr, t2.str_
    get, put = A.home_moves(frame, fpu_homes)
    n_off = frame + vpushed + 4 * len(A.POPPED if fpu_homes else A.PUSHED_XOR)  # the fifth argument, on the caller's stack

    def alu(m, r, imm=None):
        return t2.Insn(m, dst=r, srcs=(r,), imm=imm)
    return [get("r1"), get("r3"), get("r2"),
            ldr("r4", "r2", 12), ldr("r5", "r2", 28), alu("add", "r1", 32), alu("add", "r3", 32),
            put("r1"), put("r3"),
            alu("rev", "r4"), alu("rev", "r5"), alu("add", "r4", 2), alu("add", "r5", 2),
            alu("rev", "r4"), alu("rev", "r5"), str_("r4", "r2", 12), str_("r5", "r2", 28),
            get("r0"), ldr("r6", "sp", n_off), alu("sub", "r6", 1), str_("r6", "sp", n_off)]


def back_edge_text(edge: list) -> list:
    """Printed back edge: the count-down ``sub`` (second to last) as ``subs``, then the branch."""
    dec = edge[-2]
    assert dec.mnem == "sub" and dec.imm == 1
    text = [i.text() for i in edge]
    text[-2] = f"subs   {dec.dst}, {dec.srcs[0]}, #1"
    return text + ["bne    1b"]


def thumb2(prefix: str, keybits: int, slicing: str, core: str, seed: int = 0, spill: str = "stack") -> CtrCode:
    fpu = spill == "fpu"
    c = A.compile_encrypt2(keybits, slicing, core, seed, xor=True, spill=spill, fpu_homes=fpu,
                           fpu_rk=A.FPU_RK_ROUNDS if fpu else ())
    insns = c.insns
    start, end, frame = split_frame(insns)
    sym = f"{prefix}_ctr_pairs"
    edge = back_edge(frame, c.fpu_homes, sum(4 * len(i.regs) for i in insns[:start] if i.mnem == "vpush"))
    lines = looped_lines(sym, insns, back_edge_text(edge))
    body = listsched.cycles(insns[start:end], core)
    edge_cycles = listsched.cycles(edge, core)
    taken, fall = (T.issue_cycles("branch", core, taken=t) for t in (True, False))
    pair = body + edge_cycles + taken
    head = (f"/* {sym}: counter mode over n >= 1 whole pairs, out = in ^ E(cb) with cb's two big-endian\n"
            f" * counters (bytes 12..15, 28..31) advanced by 2 per pair; AES-{keybits} {slicing}, the kernel\n"
            f" * of gen/kernels/aes/thumb2.py with the XOR fused, looped by gen/kernels/aes/ctr_thumb2.py.\n"
            f" * Cycle model: {pair} cycles per pair ({pair / 32:.1f} cycles/byte) in the loop;\n"
            f" * spill stores {c.spills} ({c.strd} STRD), reloads {c.reloads}; stack {c.stack_bytes} bytes.\n"
            + (f" * {A.FPU_WORDS}.\n" if spill == "fpu" else "") +
            f" * No branch but the loop's (n is public), no secret-dependent address. */")
    code = t2.c_asm(f"void {sym}(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n)",
                    lines, head)
    return CtrCode(code=code, pair_cycles=pair,
                   call_cycles=listsched.cycles(insns, core) + edge_cycles + fall, stack_bytes=c.stack_bytes)
