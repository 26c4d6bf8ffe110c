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
r3's home holds the end of the input, in + B n, computed before the push (``end_pointer``).  At
the end of the body every register is dead; the back edge reloads in, the end, out and, unless
it is pinned, rk, steps in and out by B, stores them back (one STRD where their homes are
adjacent) and loops while in is below the end.  ``encrypt_blocks`` is ``movs r3, #1`` falling
through, so there is one copy of the rounds.  The count is public (a length): no secret reaches
a branch or an address; n = 0 is not allowed (it runs one step).
"""
from __future__ import annotations

from gen.cores import timing as T
from gen.isa import thumb2 as t2
from gen.kernels.thumb2_function import (Function, entered_loop_lines, held_at_end, live_in, loop_figures,
                                          split_frame, stepping_edge)

def end_pointer(step_bytes: int) -> list[str]:
    """r3 = r2 + step_bytes * r3 (the input's end) without a scratch register: one ADD with a
    shifted operand when step_bytes is a power of two, two when it is (1 + 2^j) 2^k (24 = 3 * 8),
    else a MOV of the constant into r12 (free at a call, AAPCS) and an MLA."""
    k = (step_bytes & -step_bytes).bit_length() - 1
    m = step_bytes >> k
    head = "    add    r3, r2, r3" + (f", lsl #{k}" if k else "")
    if m == 1:
        return [head + "    @ r3 = in + n B, the end of the input"]
    j = (m - 1).bit_length() - 1
    if m == 1 + (1 << j):
        return [f"    add    r3, r3, r3, lsl #{j}    @ r3 = {m} n",
                head + f"    @ r3 = in + {step_bytes} n, the end of the input"]
    return [f"    mov    r12, #{step_bytes}",
            f"    mla    r3, r3, r12, r2    @ r3 = in + {step_bytes} n, the end of the input"]


def _entry_cycles(step_bytes: int, core: str) -> int:
    """Cycles of ``end_pointer`` (ALU instructions; an MLA as one of class mla)."""
    lines = end_pointer(step_bytes)
    alu = T.issue_cycles("alu", core)
    return sum(T.issue_cycles("mla", core) if "mla" in ln else alu for ln in lines)


def back_edge(fn: Function, step_bytes: int) -> tuple[list, list]:
    """The back edge as (instructions, printed lines): in, the end, out (and rk when the body
    reads it before writing it and it is homed) reloaded from their homes, in and out advanced
    by ``step_bytes`` and stored back, then ``cmp r2, r3; blo 1b`` (thumb2_function.stepping_edge).
    The instructions leave out the compare and the branch."""
    homes = fn.arg_homes
    if not {"r1", "r2", "r3"} <= set(homes):
        raise ValueError(f"{fn.name}: not compiled with count and homed in/out pointers ({sorted(homes)})")
    start, end, _ = split_frame(fn.insns)
    rk = ("r0",) if "r0" in live_in(fn.insns[start:end]) and "r0" in homes else ()
    get = lambda r: t2.ldr(r, "sp", homes[r])
    return stepping_edge(get, lambda r: t2.str_(r, "sp", homes[r]), step_bytes, "next step", reload=rk,
                         pair_store=homes["r1"] if homes["r2"] == homes["r1"] + 4 else None,
                         held=held_at_end(fn.insns[start:end], get, ("r1", "r2", "r3") + rk))


def figures(fn: Function, step_bytes: int, core: str) -> tuple[int, int]:
    """(loop step, one ``encrypt_blocks`` call) in modelled cycles, priced as the emulator's cycle
    model prices the executed instructions: the loop's (thumb2_function.loop_figures) with, for
    the call, ``movs r3, #1`` and ``end_pointer`` before the push."""
    step, once = loop_figures(fn.insns, back_edge(fn, step_bytes)[0], core)
    return step, T.issue_cycles("alu", core) + _entry_cycles(step_bytes, core) + once


def comment(name: str, step_bytes: int, step: int, call: int) -> str:
    """The kernel's top comment: what the loop is and its figures."""
    return (f"/* {name}_n: the kernel below run n >= 1 times between one prologue and one epilogue (ECB over\n"
            f" * {step_bytes}-byte steps; the back edge steps in and out and loops while in is below in + {step_bytes} n),\n"
            f" * {name}: movs r3, #1 falling into it. Generated by gen/kernels/block_ecb_thumb2.py. Cycle model:\n"
            f" * {step} a step, {call} a {name} call. Only branch: the loop's (n is public). */")


def c_text(fn: Function, loop_name: str, one_name: str, step_bytes: int, comment: str = "") -> str:
    """Prototypes and the file-scope __asm__ of ``one_name`` falling through into ``loop_name``."""
    lines = entered_loop_lines(one_name, loop_name, "step", fn.insns, end_pointer(step_bytes),
                               back_edge(fn, step_bytes)[1])
    proto = (f"void {one_name}(const uint32_t *rk, uint8_t *out, const uint8_t *in);\n"
             f"void {loop_name}(const uint32_t *rk, uint8_t *out, const uint8_t *in, size_t n)")
    return t2.c_asm(proto, lines, comment)
