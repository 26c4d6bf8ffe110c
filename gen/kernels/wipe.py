"""``{prefix}_zero32(p, n)``: n words of zeros at a 4-byte aligned p, the drops' wipe of
key-dependent state (the stream at start and finish, FACE tables and constants).

Thumb-2 targets get it in assembly (STMIA of 8 registers: 8 words in 9 cycles, TRM Table 3-1),
opaque to the C compiler so wiping a mixed struct through it is sound; portable gets a
``volatile uint32_t *`` loop used on ``uint32_t`` arrays only.  It loops on n only.  Why it
exists and what it saves: docs/internals/thumb2-functions.md.
"""
from __future__ import annotations

from gen.isa import thumb2 as t2


def zero32_c(prefix: str) -> str:
    """C version (portable target), unrolled by 8."""
    return (f"/* {prefix}_zero32: n words of zeros through a volatile pointer (wiping; the compiler may not\n"
            f" * drop the stores). Only on uint32_t arrays: see gen/kernels/wipe.py. */\n"
            f"static void {prefix}_zero32(uint32_t *p, size_t n)\n"
            "{\n    volatile uint32_t *v = (volatile uint32_t *)p;\n"
            "    for (; n >= 8u; n -= 8u, v += 8) {\n"
            "        v[0] = 0u; v[1] = 0u; v[2] = 0u; v[3] = 0u; v[4] = 0u; v[5] = 0u; v[6] = 0u; v[7] = 0u;\n"
            "    }\n    while (n--) *v++ = 0u;\n}\n")


#: Thumb-2 body (r0 = p, r1 = n): two STMIA of 8 zero registers per loop step, then single STRs
ZERO32_BODY = ("push {r4, r5, r6, r7, lr}", "movs r2, #0", "movs r3, #0", "movs r4, #0", "movs r5, #0",
               "movs r6, #0", "movs r7, #0", "mov r12, #0", "mov lr, #0",
               "subs r1, #16", "blo 2f",
               "1:", "stmia r0!, {r2, r3, r4, r5, r6, r7, r12, lr}",
               "stmia r0!, {r2, r3, r4, r5, r6, r7, r12, lr}",
               "subs r1, #16", "bhs 1b",
               "2:", "adds r1, #16", "beq 4f",
               "3:", "str r2, [r0], #4", "subs r1, #1", "bne 3b",
               "4:", "pop {r4, r5, r6, r7, pc}")


def zero32_thumb2(prefix: str) -> str:
    """Thumb-2 version (``ZERO32_BODY``)."""
    name = f"{prefix}_zero32"
    lines = t2.function_lines(name, list(ZERO32_BODY))
    return t2.c_asm(f"void {name}(void *p, size_t n)", lines,
                    f"/* {name}: n words of zeros at a 4-byte aligned p (wiping), STMIA of 8 registers;\n"
                    f" * an opaque call, so it may wipe a struct of any member types (gen/kernels/wipe.py) */")
