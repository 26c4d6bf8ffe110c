"""The timing rules of the in-order Cortex-M3/M4 pipeline, reading a core's table by name.

Small rule functions over abstract instruction classes (``issue_cycles``, ``pair_adjust``,
``sequence_cycles``), shared by the scheduler and the emulator's cycle model
(``emu/bench/cycles.py``); the per-core tables are ``gen/cores/cortex_m4.py`` and
``cortex_m3.py``.  Rules from the Cortex-M4 TRM DDI 0439 section 3.3.2 (the M3 TRM DDI 0337
states the same): load pipelining, LDM/STM + N, the address-generation stall, branches with
P fixed at 2, SDIV/UDIV 2..12.  The rules in full: docs/internals/cycle-model.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gen import cores

CORES = tuple(cores.BY_NAME)

#: pipeline refill penalty (TRM: 1..3); fixed for a deterministic model.
P = 2

_EXTRA_N = frozenset({"ldm", "stm", "ldm_pc"})
_EXTRA_P = frozenset({"ldm_pc", "ldr_pc", "alu_pc", "branch", "tbb", "isb"})

#: classes whose cost depends on operand values, per core (emu adds the rest at run time)
DATA_DEPENDENT = {name: c.DATA_DEPENDENT for name, c in cores.BY_NAME.items()}

#: a single load: the next single load/store may pipeline behind it
PIPE_SOURCE = frozenset({"ldr"})
#: single loads/stores: can be pipelined behind a PIPE_SOURCE
PIPE_SINK = frozenset({"ldr", "str"})
#: instructions that generate an address (subject to the AGU stall)
ADDRESS_USERS = frozenset({"ldr", "str", "ldrd", "strd", "ldm", "stm", "ldm_pc", "ldr_pc", "tbb"})
#: data-processing classes whose result reaches the AGU one cycle late
DATA_PROCESSING = frozenset({"alu", "mul", "mla", "umull", "smull", "umlal", "smlal", "div",
                             "dsp", "vmov"})
#: classes that (may) write PC, ending a basic block
PC_WRITERS = frozenset({"branch", "bcond", "ldm_pc", "ldr_pc", "alu_pc", "tbb"})


def valid_on(cls: str, core: str) -> bool:
    """True when instruction class ``cls`` exists on ``core`` (M3 has no DSP instructions)."""
    return cores.get(core).TABLE[cls] is not None


def issue_cycles(cls: str, core: str, n: int = 0, taken: bool = True, which: str = "max") -> int:
    """Cycles of one instruction of class ``cls`` on ``core`` in isolation.

    ``n``: registers in the list for ldm/stm/ldm_pc (PUSH/POP included, PC counts).
    ``taken``: for 'bcond' (conditional branch, CBZ/CBNZ) whether it is taken.
    ``which``: 'max' (worst case, default: what a constant-time scheduler should assume)
    or 'min' (early-termination best case) for data-dependent classes.
    """
    table = cores.get(core).TABLE
    try:
        ent = table[cls]
    except KeyError:
        raise ValueError(f"unknown instruction class {cls!r}; allowed: {', '.join(table)}") from None
    if ent is None:
        raise ValueError(f"instruction class {cls!r} does not exist on {core}")
    c = ent[1] if which == "max" else ent[0]
    if cls in _EXTRA_N:
        c += n
    if cls in _EXTRA_P or (cls == "bcond" and taken):
        c += P
    return c


def result_latency(cls: str, core: str) -> int:
    """Cycles until the result of ``cls`` can be used by a dependent ALU instruction.

    The M3/M4 pipeline is in-order and blocking: a result is ready when the instruction
    retires, so the latency equals the issue cost (worst case) and a dependent ALU op never
    stalls.  The one exception is address generation, see ``address_use_penalty``.
    """
    return issue_cycles(cls, core)


def address_use_penalty(prev_cls: str, cls: str) -> int:
    """Extra cycles when ``cls`` uses, as an address register, a register that the directly
    preceding ``prev_cls`` wrote.  Data processing -> +1 stall; a single load -> the follower
    simply loses its pipelining (counted as +1 relative to the pipelined cost, 0 relative to
    the isolated cost: see ``pair_adjust``)."""
    if cls in ADDRESS_USERS and prev_cls in DATA_PROCESSING:
        return 1
    return 0


# ---------------------------------------------------------------------------------------
# Instruction records for sequences (used by the scheduler and by emu).
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Insn:
    """What the timing model needs of one instruction.

    cls: class name (a key of the core tables); n: register-list length for ldm/stm;
    writes: registers written (names 'r0'..'r12','sp','lr'); addr_regs: registers used to
    form the memory address (base, index); cond: predicated (IT block or Bcc/CBZ);
    mnemonic/address/size: informational."""
    cls: str
    n: int = 0
    writes: frozenset = field(default_factory=frozenset)
    addr_regs: frozenset = field(default_factory=frozenset)
    reads: frozenset = field(default_factory=frozenset)
    cond: bool = False
    mnemonic: str = ""
    address: int = 0
    size: int = 0
    cc: int = 15          # capstone ARM_CC_* (15 = AL)
    operands: tuple = ()  # register names of the operands, in order (multiplies/divides)


def pair_adjust(prev: Insn | None, cur: Insn) -> int:
    """Correction (cycles) to add to ``cur``'s isolated cost because of ``prev`` directly
    before it: -1 when a single load/store pipelines behind a single load, +1 for the
    address-generation stall after a data-processing write of an address register."""
    if prev is None or cur.cls not in ADDRESS_USERS:
        return 0
    dep = not prev.writes.isdisjoint(cur.addr_regs)
    if prev.cls in PIPE_SOURCE and cur.cls in PIPE_SINK:
        return 0 if dep else -1
    if dep and prev.cls in DATA_PROCESSING:
        return 1
    return 0


def insn_cycles(i: Insn, core: str, taken: bool = False, which: str = "max") -> int:
    """Isolated cost of one Insn (a conditional branch is taken only if ``taken``)."""
    return issue_cycles(i.cls, core, n=i.n, taken=taken, which=which)


def sequence_cycles(insns, core: str, which: str = "max", prev: Insn | None = None) -> int:
    """Cycles of a straight-line sequence: isolated costs plus pair adjustments.

    Conditional branches count as not taken, unconditional ones as taken; data-dependent
    classes use ``which`` ('max' worst case / 'min' best case).  ``prev`` is the instruction
    executed just before the sequence, if known."""
    total = 0
    for i in insns:
        total += insn_cycles(i, core, taken=False, which=which) + pair_adjust(prev, i)
        prev = i
    return total


# ---------------------------------------------------------------------------------------
# Data-dependent costs.
# ---------------------------------------------------------------------------------------
def _s32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def divide_cycles(mnemonic: str, rn: int, rm: int) -> int:
    """SDIV/UDIV cycles (both cores: 2..12) for dividend ``rn`` and divisor ``rm``.

    The TRMs say only that division terminates early depending on the number of leading
    ones and zeros of the operands.  MODEL ASSUMPTION (ours): the work is proportional to
    the number of quotient bits q = max(0, bitlen|rn| - bitlen|rm| + 1) (0..32), so
    cycles = 2 + ceil(10*q/32), i.e. 2 for a quotient of 0 or division by zero, 12 for a
    32-bit quotient.
    """
    m = mnemonic.lower().split(".")[0]
    if m.startswith("sdiv"):
        a, b = abs(_s32(rn)), abs(_s32(rm))
    elif m.startswith("udiv"):
        a, b = rn & 0xFFFFFFFF, rm & 0xFFFFFFFF
    else:
        raise ValueError(f"not a divide: {mnemonic!r}")
    if b == 0:
        return 2
    q = max(0, a.bit_length() - b.bit_length() + 1)
    return 2 + (10 * q + 31) // 32


def dynamic_cycles(cls: str, core: str, mnemonic: str, rn: int, rm: int) -> int:
    """Cost of a data-dependent instruction for actual operand values (any class)."""
    if cls == "div":
        return divide_cycles(mnemonic, rn, rm)
    c = cores.get(core)
    if cls in getattr(c, "LONG_MULTIPLIES", ()):
        return c.long_multiply_cycles(mnemonic, rn, rm)
    return issue_cycles(cls, core)
