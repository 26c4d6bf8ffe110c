"""SiFive E31 (RV32IMAC, the core of the FE310 / HiFive1): its latency table, a plain module of data.

Source: SiFive FE310-G000 Manual v2p3 (the E31 core), section 3.2 "Instruction Fetch Unit" and
section 3.3 "Execution Pipeline"; the E31 Core Complex Manual states the same (facts only; the
wording here is ours).  The rules that read this table (a single-issue, in-order, fully bypassed
pipeline that interlocks on read-after-write and write-after-write hazards) are in
``gen/cores/inorder.py``; the RV32 instruction classes in ``gen/isa/rv32_classes.py``.

* One instruction a cycle at most; most results are ready for the next instruction (latency 1).
* LW: result latency 2; LH, LHU, LB, LBU: 3 (cache hit; the emulated memory never misses).
* CSR reads: 3.
* MUL, MULH, MULHU, MULHSU: 5.  The multiplier (8 bits a cycle) runs one operation at a time and
  blocks until the previous one completes: the next M-extension instruction waits for it.
* DIV, DIVU, REM, REMU: 2..33, depending on the operand values (1 bit a cycle): data dependent.
* Branch predictor (BTB, BHT, 2-entry RAS) with a one-cycle latency: a correctly predicted
  control-flow instruction costs nothing more; a mispredicted one costs 3 cycles more.
"""
from __future__ import annotations

NAME = "sifive-e31"

#: class -> (min, max) result latency in cycles: a dependent instruction issues that many
#: cycles after the producer (1 = back to back)
TABLE: dict[str, tuple[int, int] | None] = {
    "alu": (1, 1),          # RV32I computational, LUI/AUIPC, FENCE, ECALL/EBREAK
    "lw": (2, 2),           # LW, C.LW, C.LWSP (and LR.W, AMO*.W: a word load)
    "lsub": (3, 3),         # LH, LHU, LB, LBU
    "store": (1, 1),        # SW, SH, SB, C.SW, C.SWSP (no result)
    "csr": (3, 3),          # CSRR*: reads of a CSR
    "mul": (5, 5),          # MUL, MULH, MULHU, MULHSU
    "div": (2, 33),         # DIV, DIVU, REM, REMU
    "branch": (1, 1),       # conditional branches: + MISPREDICT when mispredicted
    "jump": (1, 1),         # JAL, J, C.J, C.JAL: + MISPREDICT when the BTB misses
    "jumpr": (1, 1),        # JALR, JR, RET: + MISPREDICT when the RAS/BTB misses
}

#: extra cycles of a mispredicted control-flow instruction (section 3.2)
MISPREDICT = 3
#: classes that use the one multiplier/divider, which blocks until its operation completes
BLOCKING_UNIT = frozenset({"mul", "div"})
#: classes whose cost depends on operand values (the emulator adds the rest at run time)
DATA_DEPENDENT = frozenset({"div"})
#: predictor sizes (section 3.2, FE310-G000: 40-entry BTB, 128-entry BHT, 2-entry RAS)
BTB_ENTRIES, BHT_ENTRIES, RAS_ENTRIES = 40, 128, 2
