"""The frame of a generated AArch64 function: its own .text section, a global symbol with type
and size, and the C prototype before the ``__asm__`` block (gen.isa.thumb2.c_asm, which is
ISA-neutral text). Functions that use v8-v15 save their low halves (d8-d15 are callee-saved in
AAPCS64) with ``save_d8_d15`` / ``restore_d8_d15``."""
from __future__ import annotations

from gen.isa.thumb2 import c_asm

__all__ = ["function", "c_asm", "counted_loop", "SAVE_D8_D15", "RESTORE_D8_D15"]

# No .arch directive: it would also lower the architecture for the compiler's own code after the
# block. The drop's #error guard (gen/targets/armv8a.py) asks for -march=...+crypto (+sha3).

SAVE_D8_D15 = ["stp d8, d9, [sp, #-64]!", "stp d10, d11, [sp, #16]", "stp d12, d13, [sp, #32]",
               "stp d14, d15, [sp, #48]"]
RESTORE_D8_D15 = ["ldp d10, d11, [sp, #16]", "ldp d12, d13, [sp, #32]", "ldp d14, d15, [sp, #48]",
                  "ldp d8, d9, [sp], #64"]


def function(prototype: str, sym: str, body: list[str], comment: str = "", clear: int = -1) -> str:
    """C text of one AArch64 function ``sym`` with ``body`` (instructions and local labels).
    With ``clear >= 0`` the body is framed as a NEON kernel: d8-d15 saved around it, v0..v(clear-1)
    zeroed at the end (no message or key material left in them), then ``ret``."""
    if clear >= 0:
        body = (SAVE_D8_D15 + list(body) + [f"movi v{i}.16b, #0" for i in range(clear)]
                + RESTORE_D8_D15 + ["ret"])
    lines = ([f'.pushsection .text.{sym},"ax",%progbits', ".balign 16",
              f".global {sym}", f".type {sym}, %function", f"{sym}:"]
             + list(body) + [f".size {sym}, .-{sym}", ".popsection"])
    return c_asm(prototype, lines, comment)


def counted_loop(count: str, per: int, main: list[str], tail_per: int, tail: list[str]) -> list[str]:
    """`main` while `count` >= per (subtracting per each time), then `tail` while it is not
    zero (subtracting tail_per). Branches on the count only (a public length)."""
    return ([f"cmp {count}, #{per}", "b.lo 2f", "1:"] + main
            + [f"sub {count}, {count}, #{per}", f"cmp {count}, #{per}", "b.hs 1b", "2:", f"cbz {count}, 4f", "3:"]
            + tail + [f"subs {count}, {count}, #{tail_per}", "b.ne 3b", "4:"])
