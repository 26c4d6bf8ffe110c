"""The frame of a generated AArch64 function: its own .text section, a global symbol with type
and size, and the C prototype before the ``__asm__`` block (gen.isa.thumb2.c_asm, which is
ISA-neutral text). Functions that use v8-v15 save their low halves (d8-d15 are callee-saved in
AAPCS64) with ``save_d8_d15`` / ``restore_d8_d15``.

No key or message material is left in a vector register on return: every function zeroes each
vector register its body names (round keys in v16.., H powers, counter blocks, keystream), one
MOVI each, before it returns. v8-v15 of a framed function need none: restoring d8-d15 writes
the whole register (a write to Dn zeroes bits 127:64), so they go back to the caller's values."""
from __future__ import annotations

import re

from gen.isa.thumb2 import c_asm

__all__ = ["function", "c_asm", "counted_loop", "vector_wipe", "SAVE_D8_D15", "RESTORE_D8_D15"]

#: a vector register as an operand: v5.16b, q5, d5, s5, b5 (not a condition such as b.lo)
_VREG = re.compile(r"(?<![\w.])[vqdsb](\d{1,2})\b")

# No .arch directive: it would also lower the architecture for the compiler's own code after the
# block. The drop's #error guard (gen/targets/armv8a.py) asks for -march=...+crypto (+sha3).

SAVE_D8_D15 = ["stp d8, d9, [sp, #-64]!", "stp d10, d11, [sp, #16]", "stp d12, d13, [sp, #32]",
               "stp d14, d15, [sp, #48]"]
RESTORE_D8_D15 = ["ldp d10, d11, [sp, #16]", "ldp d12, d13, [sp, #32]", "ldp d14, d15, [sp, #48]",
                  "ldp d8, d9, [sp], #64"]


def vector_wipe(body: list[str], restored: range = range(0)) -> list[str]:
    """MOVI #0 of every vector register ``body`` names, but those in ``restored``."""
    used = sorted({int(m) for line in body for m in _VREG.findall(line.split("//")[0])})
    return [f"movi v{i}.16b, #0" for i in used if i not in restored]


def function(prototype: str, sym: str, body: list[str], comment: str = "", framed: bool = False,
             sched: str = "", frame: int = 0) -> str:
    """C text of one AArch64 function ``sym`` with ``body`` (instructions and local labels; a
    body that is not ``framed`` ends in its one ``ret``). ``framed``: a NEON kernel, d8-d15
    saved around the body, then ``ret``; ``frame`` (framed only, a multiple of 16): that many
    bytes of stack at [sp] for the body, reserved after the save and released before the
    restore, so the body never moves sp (a body that does is refused: the in-order scheduler
    does not track sp). Either way the vector registers the body names are zeroed before the
    return (``vector_wipe``). ``sched``: an in-order core the body's straight-line regions are
    list-scheduled for (gen/kernels/armv8/inorder.py), with " window W" after it when the
    schedule's window is bounded (choose.sched_spec)."""
    body = list(body)
    if any(re.match(r"\s*(add|sub|mov)\s+sp\s*,", line) or re.search(r"\[sp[^\]]*\]!|\[sp\],", line)
           for line in body):
        raise ValueError(f"{sym}: the body moves sp; ask for its stack with frame=")
    if frame % 16 or (frame and not framed):
        raise ValueError(f"{sym}: frame must be a multiple of 16, in a framed function (got {frame})")
    if sched:
        from gen.kernels.armv8.inorder import schedule
        core, _, window = sched.partition(" window ")
        body = schedule(body, core, int(window or 0))
    if framed:
        grow, shrink = ([f"sub sp, sp, #{frame}"], [f"add sp, sp, #{frame}"]) if frame else ([], [])
        body = SAVE_D8_D15 + grow + body + vector_wipe(body, range(8, 16)) + shrink + RESTORE_D8_D15 + ["ret"]
    else:
        if body.count("ret") > 1 or (body and body[-1] != "ret" and "ret" in body):
            raise ValueError(f"{sym}: the body must return once, at its end, to be wiped there")
        if body and body[-1] == "ret":
            body = body[:-1] + vector_wipe(body) + ["ret"]
    lines = ([f'.pushsection .text.{sym},"ax",%progbits', ".balign 16",
              f".global {sym}", f".type {sym}, %function", f"{sym}:"]
             + list(body) + [f".size {sym}, .-{sym}", ".popsection"])
    return c_asm(prototype, lines, comment)


def counted_loop(count: str, per: int, main: list[str], tail_per: int, tail: list[str],
                 odd: list[str] | None = None) -> list[str]:
    """`main` while `count` >= per (subtracting per each time), then `tail` while it is not
    zero (subtracting tail_per); with `odd`, `tail` while count >= tail_per, then `odd` once if
    anything is left (count < tail_per). Branches on the count only (a public length)."""
    if odd is None:
        return ([f"cmp {count}, #{per}", "b.lo 2f", "1:"] + main
                + [f"sub {count}, {count}, #{per}", f"cmp {count}, #{per}", "b.hs 1b", "2:", f"cbz {count}, 4f", "3:"]
                + tail + [f"subs {count}, {count}, #{tail_per}", "b.ne 3b", "4:"])
    return ([f"cmp {count}, #{per}", "b.lo 2f", "1:"] + main
            + [f"sub {count}, {count}, #{per}", f"cmp {count}, #{per}", "b.hs 1b", "2:",
               f"cmp {count}, #{tail_per}", "b.lo 7f", "3:"]
            + tail + [f"sub {count}, {count}, #{tail_per}", f"cmp {count}, #{tail_per}", "b.hs 3b", "7:",
                      f"cbz {count}, 4f"] + odd + ["4:"])
