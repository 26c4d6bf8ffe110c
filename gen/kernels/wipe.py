"""``{prefix}_zero32(p, n)``: n words of zeros at a 4-byte aligned p, the drops' wipe of
key-dependent state (the stream at start and finish, FACE tables and constants).

Why a function of its own: the glue used to wipe the stream byte by byte through a volatile
pointer (the compiler may neither drop the stores nor turn the loop into a memset call, which a
freestanding drop does not have). On the cycle model that is about 6 cycles per byte, twice per
message: a quarter of a 16-byte GCM message. Words are 4 times fewer stores, and STMIA of 8
registers stores 8 words in 9 cycles where 8 STRs take 16 (TRM Table 3-1).

* Thumb-2 targets get it in assembly. The call is opaque to the C compiler, so wiping a struct
  of mixed member types through it is sound: the compiler must assume the callee writes any
  memory the pointer reaches, whatever the types (no type-based alias question arises).
* The portable target gets the C loop through a ``volatile uint32_t *``; the glue uses it only
  on ``uint32_t`` arrays (FACE tables), never on the stream struct, which portable keeps wiping
  byte by byte (character type: may alias anything).

It loops on n only: no branch or address depends on the data being wiped.
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
