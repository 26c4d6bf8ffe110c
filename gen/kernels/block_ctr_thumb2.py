"""Counter mode over many blocks in one call, as generated Thumb-2, for the block-cipher drops
whose kernel is small enough to carry twice (``FAMILIES``): ``{prefix}_ctr_blocks``.

    void {prefix}_ctr_blocks(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in,
                             const uint8_t *end);
        /* for each block of in up to end (at least one): out = in ^ E(cb), then cb's counter
           (its last 4 bytes, big-endian) += 1 mod 2^32 */

The trick: the C glue of counter mode used to run one keystream block at a time (write the
counter, call the straight-line kernel with its frame, XOR the keystream into the message word by
word, about 105 modelled cycles a SPEEDY-5 block on top of the kernel call).  Here the encryption's IR
is fused with the XOR (``with_message``: each output word is ``msg ^ E(cb)`` before it is
stored, 2 instructions a word where the store was one) and compiled like the kernel; its body
then runs between one prologue and one epilogue, and the back edge increments the counter in
cb itself (LDR, REV, ADD #1, REV, STR: the counter is public), steps in and out by a block and
loops while in is below ``end``, the fifth argument (in the caller's frame).  The straight
``encrypt_blocks`` stays for ECB and the keystream of a partial block: the rounds are there twice,
which is why only families with a small kernel take it (SPEEDY: 3.6 to 4.7 KB more for 7 to 8 %
of CTR; Rijndael-256's copy would be 36 KB for about 3 %).  in and out may be the same buffer:
message word i is loaded before output word i is stored, and no other word aliases it.
"""
from __future__ import annotations

from gen import ir
from gen.isa import thumb2 as t2
from gen.kernels import thumb2_function as TF

#: families whose counter-mode drops get ctr_blocks (see the module docstring)
FAMILIES = frozenset({"speedy"})

PARAMS = [TF.Param("rk", "const uint32_t *", "rk"), TF.Param("out", "uint8_t *", "out"),
          TF.Param("cb", "uint8_t *", "in"), TF.Param("in", "const uint8_t *", "msg"),
          TF.Param("end", "const uint8_t *", None)]


def with_message(program: ir.Program) -> ir.Program:
    """``program`` (an encryption: memories in, rk, out) with a memory ``msg`` of out's size whose
    word i is XORed into output word i just before it is stored."""
    b = ir.Builder(f"{program.name}_ctr")
    for mem, (size, rw) in program.mems.items():
        b.declare(mem, size, rw, constant=mem in program.constant)
    b.declare("msg", program.mems["out"][0], "r")
    new: dict = {}
    for op in program.ops:
        if op.kind == "st":
            b.st(op.mem, op.index, b.eor(new[op.a], b.ld("msg", op.index)))
        else:
            new[op.dst] = b.copy(op, new.__getitem__)
    return b.finish()


def back_edge(fn: TF.Function, block_bytes: int) -> tuple[list, list]:
    """(instructions, printed lines): cb, in and out reloaded from their homes (rk too when the body
    reads it first and it is homed), the counter word of cb incremented in memory, in and out
    advanced by a block and stored back, then the end (the caller-frame argument) against in:
    ``cmp r3, r12; blo 1b``.  The instructions leave out the compare and the branch."""
    homes = fn.arg_homes
    if not {"r1", "r2", "r3"} <= set(homes):
        raise ValueError(f"{fn.name}: out, cb and in must be homed ({sorted(homes)})")
    get, put = TF.home_moves(fn)
    step = lambda r: t2.Insn("add", dst=r, srcs=(r,), imm=block_bytes)
    ctr = block_bytes - 4
    edge = [get("r2"), get("r3"), get("r1")] + ([get("r0")] if "r0" in TF.homed_live_in(fn) else [])
    edge += [t2.ldr("r12", "r2", ctr), t2.Insn("rev", dst="r12", srcs=("r12",)),
             t2.Insn("add", dst="r12", srcs=("r12",), imm=1), t2.Insn("rev", dst="r12", srcs=("r12",)),
             t2.str_("r12", "r2", ctr), step("r3"), step("r1"), put("r1"), put("r3"),
             t2.ldr("r12", "sp", fn.stack_bytes)]                 # end: the first stack argument
    text = [f"    {i.text()}    @ next block" for i in edge] + ["    cmp    r3, r12", "    blo    1b"]
    return edge, text


def figures(fn: TF.Function, block_bytes: int, core: str) -> int:
    """A step of the loop (a block) in modelled cycles, as the emulator's cycle model prices it
    (thumb2_function.loop_figures)."""
    return TF.loop_figures(fn.insns, back_edge(fn, block_bytes)[0], core)[0]


def compile_kernel(encrypt: ir.Program, prefix: str, core: str, seed: int, strategies) -> TF.Function:
    """The fused program compiled like the kernel (the cheapest of ``strategies``, rk pinned)."""
    return TF.cheapest(with_message(encrypt), f"{prefix}_ctr_blocks", PARAMS, core, seed, strategies,
                    pinned=("rk",))


def comment(fn: TF.Function, block_bytes: int, step: int) -> str:
    """The kernel's top comment: the fusion, the loop and its figures."""
    return (f"/* {fn.name}: counter mode over the blocks of in up to end, out = in ^ E(cb), the XOR fused into\n"
            f" * the output stores; the back edge adds 1 to cb's last 4 bytes (big-endian, LDR/REV/ADD/REV/STR),\n"
            f" * steps in and out by {block_bytes} and loops while in is below end. Generated by\n"
            f" * gen/kernels/block_ctr_thumb2.py. Cycle model: {step} a block; {fn.spills} spill stores.\n"
            f" * Only branch: the loop's (lengths are public). */")


def c_text(fn: TF.Function, block_bytes: int, comment: str = "") -> str:
    """The prototype and the file-scope __asm__ of the looped kernel."""
    lines = TF.loop_lines(fn.insns, back_edge(fn, block_bytes)[1])
    return t2.c_asm(fn.prototype, t2.function_lines(fn.name, lines), comment)
