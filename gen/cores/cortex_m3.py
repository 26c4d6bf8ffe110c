"""Cortex-M3 (ARMv7-M), zero wait states: its issue-cycle table, a plain module of data, and
the cost of its early-terminating long multiplies.

Source: Cortex-M3 TRM, ARM DDI 0337, Table 18-1 "Cortex-M3 instruction set summary" and its
notes on load/store timings (the same rules as the M4's section 3.3.2, in
``gen/cores/timing.py``) and on early termination of long multiplies and divides.

* ALU, shifts, moves: 1.  LDR/STR 2, LDRD/STRD 3, LDM/STM/PUSH/POP 1+N (+P loading PC).
* MUL 1, MLA/MLS 2, UMULL/SMULL 3..5, UMLAL 4..6 and SMLAL 5..7 (the TRM gives "MLAL 4 to 7,
  the signed version one cycle longer than the unsigned"), early termination when
  ABS(inputs) < 64K: see ``long_multiply_cycles``.  SDIV/UDIV 2..12.
* No DSP instructions (class 'dsp' is None: not on this core).
"""

from __future__ import annotations

NAME = "cortex-m3"

#: class -> (min, max) issue cycles, excluding the N and P terms; None = not on this core
TABLE: dict[str, tuple[int, int] | None] = {
    "alu": (1, 1),
    "it": (1, 1),
    "nop": (1, 1),
    "barrier": (1, 1),      # DMB/DSB: 1+B, B >= 0
    "mul": (1, 1),
    "mla": (2, 2),          # MLA, MLS
    "umull": (3, 5),        # UMULL, SMULL
    "smull": (3, 5),        # alias of umull for schedulers
    "umlal": (4, 6),        # UMLAL
    "smlal": (5, 7),        # SMLAL
    "div": (2, 12),         # SDIV, UDIV
    "dsp": None,            # no ARMv7E-M DSP extension
    "ldr": (2, 2),          # single loads (all widths), LDREX, PLD
    "str": (2, 2),          # single stores, STREX
    "ldrd": (3, 3),
    "strd": (3, 3),
    "ldm": (1, 1),          # + N  (LDM, POP)
    "stm": (1, 1),          # + N  (STM, PUSH)
    "ldm_pc": (1, 1),       # + N + P  (POP {..,pc})
    "ldr_pc": (2, 2),       # + P
    "alu_pc": (1, 1),       # + P  (MOV PC / ADD PC)
    "branch": (1, 1),       # + P  (B, BL, BX, BLX: taken)
    "bcond": (1, 1),        # + P when taken (Bcc, CBZ, CBNZ)
    "tbb": (2, 2),          # + P  (TBB, TBH)
    "isb": (1, 1),          # + P
    "vmov": None,           # no FPU
}

#: classes whose cost depends on operand values (the emulator adds the rest at run time)
DATA_DEPENDENT = frozenset({"umull", "smull", "umlal", "smlal", "div"})

#: the classes ``long_multiply_cycles`` prices
LONG_MULTIPLIES = frozenset({"umull", "smull", "umlal", "smlal"})


def _s32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def long_multiply_cycles(mnemonic: str, rn: int, rm: int, acc: int | None = None) -> int:
    """Cycles of UMULL/SMULL/UMLAL/SMLAL for operand values ``rn``, ``rm``.

    What the TRM (DDI 0337, Table 18-1 notes) states: these instructions use early
    termination depending on the size of the source values; MULL takes 3 to 5 cycles, MLAL
    4 to 7, the signed MLAL one cycle longer than the unsigned one; ABS(inputs) < 64K
    terminates early.  The exact rule is not published.

    MODEL ASSUMPTION (ours): each operand that does not fit in 16 bits (unsigned value
    >= 2**16 for UMULL/UMLAL; |signed value| >= 2**16 for SMULL/SMLAL) costs one more
    cycle; the accumulator value does not matter (``acc`` is accepted and ignored):

        UMULL/SMULL = 3 + L      (3..5)
        UMLAL       = 4 + L      (4..6)
        SMLAL       = 5 + L      (5..7)          L = number of large operands (0..2)

    This spans exactly the TRM ranges and agrees that both-operands-below-64K is fastest.
    (BearSSL's ctmul notes read the manual as "3 or 4 only if both operands < 65536"; any
    such rule makes the time depend on operand magnitude, which is what the constant-time
    checker must see.)  Forcing the top bit of both operands to 1, as constant-time code
    does, always gives the maximum.
    """
    m = mnemonic.lower().split(".")[0]
    if m.startswith("s"):
        large = (abs(_s32(rn)) >= 1 << 16) + (abs(_s32(rm)) >= 1 << 16)
    else:
        large = ((rn & 0xFFFFFFFF) >= 1 << 16) + ((rm & 0xFFFFFFFF) >= 1 << 16)
    if m.startswith("umull") or m.startswith("smull"):
        return 3 + large
    if m.startswith("umlal"):
        return 4 + large
    if m.startswith("smlal"):
        return 5 + large
    raise ValueError(f"not a long multiply: {mnemonic!r}")
