"""Cortex-M4 (ARMv7E-M), zero wait states: its issue-cycle table, a plain module of data.

Source: Cortex-M4 TRM, ARM DDI 0439, Table 3-1 "Cortex-M4 instruction set summary" and
section 3.3.2 "Load/store timings" (facts only; the wording here is ours).  The classes are
the ones of ``gen/cores/timing.py``, which holds the rules (pipelining, address stall, the
N and P terms) that read this table.

* ALU, shifts (also a shifted flexible operand), moves, compares, extends, bit-field ops: 1.
* LDR/STR (all widths, LDREX/STREX): 2; LDRD/STRD: 3; LDM/STM/PUSH/POP: 1+N (+P loading PC).
* MUL, MLA, MLS, UMULL, SMULL, UMLAL, SMLAL and the DSP multiplies: 1 (single-cycle 32x32
  MAC).  SDIV/UDIV 2..12 (data dependent).  The DSP/SIMD extension exists (class 'dsp').
"""

from __future__ import annotations

NAME = "cortex-m4"

#: class -> (min, max) issue cycles, excluding the register-count term N of LDM/STM and the
#: refill P (gen/cores/timing.py adds them); None = not on this core
TABLE: dict[str, tuple[int, int] | None] = {
    "alu": (1, 1),
    "it": (1, 1),
    "nop": (1, 1),
    "barrier": (1, 1),      # DMB/DSB: 1+B, B >= 0
    "mul": (1, 1),
    "mla": (1, 1),          # MLA, MLS
    "umull": (1, 1),        # UMULL, SMULL
    "smull": (1, 1),        # alias of umull for schedulers
    "umlal": (1, 1),        # UMLAL
    "smlal": (1, 1),        # SMLAL
    "div": (2, 12),         # SDIV, UDIV
    "dsp": (1, 1),          # ARMv7E-M DSP extension
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
    "vmov": (1, 1),         # VMOV between a core and a single-precision register (the FPU of a
                            # Cortex-M4F; TRM Table 7-1, FPU instruction set: 1 cycle)
}

#: classes whose cost depends on operand values (the emulator adds the rest at run time)
DATA_DEPENDENT = frozenset({"div"})
