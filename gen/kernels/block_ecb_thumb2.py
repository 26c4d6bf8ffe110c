"""ECB over many calls' worth of blocks in one call, as generated Thumb-2, for the block-cipher
drops (Rijndael-256, SPEEDY): ``{prefix}_encrypt_blocks_n``, with ``{prefix}_encrypt_blocks`` as
its entry for one call's blocks.

    void {prefix}_encrypt_blocks_n(const uint32_t *rk, uint8_t *out, const uint8_t *in, size_t n);
        /* n >= 1 steps: out[B k ..] = E(in[B k ..]), B = the bytes one step encrypts */
    void {prefix}_encrypt_blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);  /* n = 1 */

The trick (the same as the AES speed drops' gen/kernels/aes/ecb_thumb2.py): ecb_encrypt used to
call the straight-line kernel once per block, and every call paid its frame (a push of 11
registers, a pop of 9 and pc, about 26 modelled cycles) and the C loop around it (about 12).
Here the kernel's body (gen/kernels/thumb2_function.compile_function with ``count``: the same
schedule and allocation, r3 pushed as well) runs n times between one prologue and one epilogue.
The loop steps out and derives in, as the AES one does (thumb2_function.out_stepped): before the
push r3 becomes the end of the output, out + B n (``end_pointer``), and r2 in - out (``entry``),
so those are what the homes keep; one ADD after the prologue gives in back for the first step,
and the body's store of out's word 0 is post-indexed by B, so the next out comes for free.  At
the end of the body every other register is dead; the back edge reloads the end, in - out and,
unless it is pinned, rk, stores out to its home, adds in - out to it for in, and loops while out
is below the end (Rijndael-256: 4342 -> 4339 cycles a step, against stepping in and out and
storing both with one STRD).  ``encrypt_blocks`` is ``movs r3, #1`` falling
through, so there is one copy of the rounds.  The count is public (a length): no secret reaches
a branch or an address; n = 0 is not allowed (it runs one step).
"""
from __future__ import annotations

from dataclasses import replace

from gen.cores import timing as T
from gen.isa import thumb2 as t2
from gen.kernels.thumb2_function import (IN_AGAIN, IN_MINUS_OUT, Function, entered_loop_lines, held_at_end,
                                          home_moves, homed_live_in, loop_figures, out_stepped, out_stepped_edge,
                                          split_frame, stepped_out)

def end_pointer(step_bytes: int) -> list[str]:
    """r3 = r1 + step_bytes * r3 (the output's end) without a scratch register: one ADD with a
    shifted operand when step_bytes is a power of two, two when it is (1 + 2^j) 2^k (24 = 3 * 8),
    else a MOV of the constant into r12 (free at a call, AAPCS) and an MLA."""
    k = (step_bytes & -step_bytes).bit_length() - 1
    m = step_bytes >> k
    head = "    add    r3, r1, r3" + (f", lsl #{k}" if k else "")
    if m == 1:
        return [head + "    @ r3 = out + n B, the end of the output"]
    j = (m - 1).bit_length() - 1
    if m == 1 + (1 << j):
        return [f"    add    r3, r3, r3, lsl #{j}    @ r3 = {m} n",
                head + f"    @ r3 = out + {step_bytes} n, the end of the output"]
    return [f"    mov    r12, #{step_bytes}",
            f"    mla    r3, r3, r12, r1    @ r3 = out + {step_bytes} n, the end of the output"]


def entry(step_bytes: int) -> list[str]:
    """The lines before the push: ``end_pointer`` and r2 = in - out (thumb2_function.IN_MINUS_OUT)."""
    return end_pointer(step_bytes) + [IN_MINUS_OUT]


def looped(fn: Function, step_bytes: int) -> Function:
    """``fn`` (compiled with ``count``) as the loop runs it: out-stepped (thumb2_function.out_stepped:
    in again after the prologue, the store of out's word 0 post-indexed by ``step_bytes``).
    Already looped: ``fn`` itself."""
    if IN_AGAIN in fn.insns:
        return fn
    if not {"r1", "r2", "r3"} <= set(fn.arg_homes):
        raise ValueError(f"{fn.name}: not compiled with count and homed in/out pointers ({sorted(fn.arg_homes)})")
    insns, _ = out_stepped(fn.insns, step_bytes, in_home=home_moves(fn)[0]("r2"))
    return replace(fn, insns=insns)


def _entry_cycles(step_bytes: int, core: str) -> int:
    """Cycles of ``entry`` (ALU instructions; an MLA as one of class mla)."""
    lines = entry(step_bytes)
    alu = T.issue_cycles("alu", core)
    return sum(T.issue_cycles("mla", core) if "mla" in ln else alu for ln in lines)


def back_edge(fn: Function, step_bytes: int) -> tuple[list, list]:
    """The back edge of ``looped(fn)`` as (instructions, printed lines): thumb2_function.out_stepped_edge
    (the end, in - out and rk, when the body reads it before writing it and it is homed, reloaded
    from their homes; out, stepped by the body's post-indexed store, stored to its home; in = out +
    (in - out); ``cmp out, r3; blo 1b``).  The instructions leave out the compare and the branch."""
    fn = looped(fn, step_bytes)
    start, end, _ = split_frame(fn.insns)
    body = fn.insns[start:end]
    rk = ("r0",) if "r0" in homed_live_in(fn) else ()
    get, put = home_moves(fn)
    return out_stepped_edge(get, put, step_bytes, "next step", stepped_out(body),
                            reload=rk, held=held_at_end(body, get, rk))


def figures(fn: Function, step_bytes: int, core: str) -> tuple[int, int]:
    """(loop step, one ``encrypt_blocks`` call) in modelled cycles, priced as the emulator's cycle
    model prices the executed instructions: the loop's (thumb2_function.loop_figures) with, for
    the call, ``movs r3, #1`` and ``entry`` before the push."""
    fn = looped(fn, step_bytes)
    step, once = loop_figures(fn.insns, back_edge(fn, step_bytes)[0], core)
    return step, T.issue_cycles("alu", core) + _entry_cycles(step_bytes, core) + once


def comment(name: str, step_bytes: int, step: int, call: int) -> str:
    """The kernel's top comment: what the loop is and its figures."""
    return (f"/* {name}_n: the kernel below run n >= 1 times between one prologue and one epilogue (ECB over\n"
            f" * {step_bytes}-byte steps; the last store to out's word 0 steps out, the back edge sets in = out + (in - out)\n"
            f" * and loops while out is below out + {step_bytes} n),\n"
            f" * {name}: movs r3, #1 falling into it. Generated by gen/kernels/block_ecb_thumb2.py. Cycle model:\n"
            f" * {step} a step, {call} a {name} call. Only branch: the loop's (n is public). */")


def c_text(fn: Function, loop_name: str, one_name: str, step_bytes: int, comment: str = "") -> str:
    """Prototypes and the file-scope __asm__ of ``one_name`` falling through into ``loop_name``."""
    fn = looped(fn, step_bytes)
    lines = entered_loop_lines(one_name, loop_name, "step", fn.insns, entry(step_bytes),
                               back_edge(fn, step_bytes)[1])
    proto = (f"void {one_name}(const uint32_t *rk, uint8_t *out, const uint8_t *in);\n"
             f"void {loop_name}(const uint32_t *rk, uint8_t *out, const uint8_t *in, size_t n)")
    return t2.c_asm(proto, lines, comment)
