"""The one timing table for Cortex-M4 and Cortex-M3 (zero wait states).

A plain module of tables plus a few small rule functions, shared by two clients:

* the scheduler in ``gen`` works on abstract instruction classes
  (``issue_cycles(cls, core)``, ``pair_adjust(prev, cur)``, ``sequence_cycles(infos, core)``);
* the emulator cycle model in ``emu/cycles.py`` maps capstone instructions onto the same
  classes with ``classify_capstone(insn)`` and costs basic blocks with ``sequence_cycles``.

Sources (facts only; the wording here is ours):

* Cortex-M4 TRM, ARM DDI 0439, Table 3-1 "Cortex-M4 instruction set summary" and
  section 3.3.2 "Load/store timings".
* Cortex-M3 TRM, ARM DDI 0337, Table 18-1 "Cortex-M3 instruction set summary" and its
  notes on load/store timings (same rules as the M4 section 3.3.2) and on early termination
  of long multiplies and divides.

Rules encoded here:

* ALU, shifts (also a shifted flexible operand), moves, compares, extends, bit-field ops: 1.
* LDR/LDRB/LDRH/LDRSB/LDRSH/LDREX (and STR*): 2.  A single load or store that directly
  follows a single load costs 1 less ("pipelined"), unless its address uses a register the
  previous load wrote.  Chains pipeline: LDR;LDR = 3, LDR;LDR;LDR = 4, LDR;STR = 3.
  Nothing pipelines after a store, LDRD/STRD/LDM/STM neither pipeline with neighbours.
* LDRD/STRD: 3.  LDM/STM/PUSH/POP: 1+N; loading PC adds P.
* A load or store whose address register (base or index) was written by the directly
  preceding data-processing instruction stalls 1 cycle (no forwarding path to the AGU).
* Branches: B/BL/BX/BLX (taken) 1+P; conditional branch / CBZ / CBNZ not taken 1;
  TBB/TBH 2+P; LDR PC 2+P; MOV/ADD to PC 1+P.  P (pipeline refill) is 1..3 in the TRMs
  depending on target alignment/width and speculation; we fix P = 2.
* Multiplies, Cortex-M4: MUL, MLA, MLS, UMULL, SMULL, UMLAL, SMLAL and the DSP multiplies
  are all 1 cycle (single-cycle 32x32 MAC).  SDIV/UDIV 2..12 (data dependent).
* Multiplies, Cortex-M3: MUL 1, MLA/MLS 2, UMULL/SMULL 3..5, UMLAL 4..6 and SMLAL 5..7
  (the TRM gives "MLAL 4 to 7, the signed version one cycle longer than the unsigned"),
  early termination when ABS(inputs) < 64K; see ``m3_long_multiply_cycles``.
  SDIV/UDIV 2..12, see ``divide_cycles``.  No DSP instructions (class 'dsp' is invalid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CORES = ("cortex-m4", "cortex-m3")

#: pipeline refill penalty (TRM: 1..3); fixed for a deterministic model.
P = 2

# ---------------------------------------------------------------------------------------
# The table.  Entry: (min, max) issue cycles, excluding the register-count term N of
# LDM/STM and the refill P (see _EXTRA_N / _EXTRA_P).  None = not on this core.
# ---------------------------------------------------------------------------------------
TABLE: dict[str, dict[str, tuple[int, int] | None]] = {
    #  class        cortex-m4     cortex-m3
    "alu":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},
    "it":       {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},
    "nop":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},
    "barrier":  {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # DMB/DSB: 1+B, B >= 0
    "mul":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},
    "mla":      {"cortex-m4": (1, 1), "cortex-m3": (2, 2)},    # MLA, MLS
    "umull":    {"cortex-m4": (1, 1), "cortex-m3": (3, 5)},    # UMULL, SMULL
    "smull":    {"cortex-m4": (1, 1), "cortex-m3": (3, 5)},    # alias of umull for schedulers
    "umlal":    {"cortex-m4": (1, 1), "cortex-m3": (4, 6)},    # UMLAL
    "smlal":    {"cortex-m4": (1, 1), "cortex-m3": (5, 7)},    # SMLAL
    "div":      {"cortex-m4": (2, 12), "cortex-m3": (2, 12)},  # SDIV, UDIV
    "dsp":      {"cortex-m4": (1, 1), "cortex-m3": None},      # ARMv7E-M DSP extension
    "ldr":      {"cortex-m4": (2, 2), "cortex-m3": (2, 2)},    # single loads (all widths), LDREX, PLD
    "str":      {"cortex-m4": (2, 2), "cortex-m3": (2, 2)},    # single stores, STREX
    "ldrd":     {"cortex-m4": (3, 3), "cortex-m3": (3, 3)},
    "strd":     {"cortex-m4": (3, 3), "cortex-m3": (3, 3)},
    "ldm":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + N  (LDM, POP)
    "stm":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + N  (STM, PUSH)
    "ldm_pc":   {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + N + P  (POP {..,pc})
    "ldr_pc":   {"cortex-m4": (2, 2), "cortex-m3": (2, 2)},    # + P
    "alu_pc":   {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + P  (MOV PC / ADD PC)
    "branch":   {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + P  (B, BL, BX, BLX: taken)
    "bcond":    {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + P when taken (Bcc, CBZ, CBNZ)
    "tbb":      {"cortex-m4": (2, 2), "cortex-m3": (2, 2)},    # + P  (TBB, TBH)
    "isb":      {"cortex-m4": (1, 1), "cortex-m3": (1, 1)},    # + P
}

_EXTRA_N = frozenset({"ldm", "stm", "ldm_pc"})
_EXTRA_P = frozenset({"ldm_pc", "ldr_pc", "alu_pc", "branch", "tbb", "isb"})

#: classes whose cost depends on operand values on a given core (emu adds the rest at run time)
DATA_DEPENDENT = {
    "cortex-m4": frozenset({"div"}),
    "cortex-m3": frozenset({"umull", "smull", "umlal", "smlal", "div"}),
}

#: a single load: the next single load/store may pipeline behind it
PIPE_SOURCE = frozenset({"ldr"})
#: single loads/stores: can be pipelined behind a PIPE_SOURCE
PIPE_SINK = frozenset({"ldr", "str"})
#: instructions that generate an address (subject to the AGU stall)
ADDRESS_USERS = frozenset({"ldr", "str", "ldrd", "strd", "ldm", "stm", "ldm_pc", "ldr_pc", "tbb"})
#: data-processing classes whose result reaches the AGU one cycle late
DATA_PROCESSING = frozenset({"alu", "mul", "mla", "umull", "smull", "umlal", "smlal", "div",
                             "dsp"})
#: classes that (may) write PC, ending a basic block
PC_WRITERS = frozenset({"branch", "bcond", "ldm_pc", "ldr_pc", "alu_pc", "tbb"})


def _check_core(core: str) -> None:
    if core not in CORES:
        raise ValueError(f"unknown core {core!r}; allowed: {', '.join(CORES)}")


def valid_on(cls: str, core: str) -> bool:
    """True when instruction class ``cls`` exists on ``core`` (M3 has no DSP instructions)."""
    _check_core(core)
    return TABLE[cls][core] is not None


def issue_cycles(cls: str, core: str, n: int = 0, taken: bool = True, which: str = "max") -> int:
    """Cycles of one instruction of class ``cls`` on ``core`` in isolation.

    ``n``: registers in the list for ldm/stm/ldm_pc (PUSH/POP included, PC counts).
    ``taken``: for 'bcond' (conditional branch, CBZ/CBNZ) whether it is taken.
    ``which``: 'max' (worst case, default: what a constant-time scheduler should assume)
    or 'min' (early-termination best case) for data-dependent classes.
    """
    _check_core(core)
    try:
        ent = TABLE[cls][core]
    except KeyError:
        raise ValueError(f"unknown instruction class {cls!r}; allowed: {', '.join(TABLE)}") from None
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

    cls: class name (a key of TABLE); n: register-list length for ldm/stm;
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
def _u32(x: int) -> int:
    return x & 0xFFFFFFFF


def _s32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def m3_long_multiply_cycles(mnemonic: str, rn: int, rm: int, acc: int | None = None) -> int:
    """Cortex-M3 cycles of UMULL/SMULL/UMLAL/SMLAL for operand values ``rn``, ``rm``.

    What the M3 TRM (DDI 0337, Table 18-1 notes) states: these instructions use early
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
        large = (_u32(rn) >= 1 << 16) + (_u32(rm) >= 1 << 16)
    if m.startswith("umull") or m.startswith("smull"):
        return 3 + large
    if m.startswith("umlal"):
        return 4 + large
    if m.startswith("smlal"):
        return 5 + large
    raise ValueError(f"not a long multiply: {mnemonic!r}")


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
        a, b = _u32(rn), _u32(rm)
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
    if core == "cortex-m3" and cls in ("umull", "smull", "umlal", "smlal"):
        return m3_long_multiply_cycles(mnemonic, rn, rm)
    return issue_cycles(cls, core)


# ---------------------------------------------------------------------------------------
# Mnemonic -> class (capstone spelling, after stripping .w/.n, condition and S suffixes).
# ---------------------------------------------------------------------------------------
_LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrt", "ldrbt", "ldrht", "ldrsbt", "ldrsht",
          "ldrex", "ldrexb", "ldrexh", "pld", "pldw"}
_STORES = {"str", "strb", "strh", "strt", "strbt", "strht", "strex", "strexb", "strexh"}
_LDM = {"ldm", "ldmia", "ldmfd", "ldmdb", "ldmea", "pop"}
_STM = {"stm", "stmia", "stmea", "stmdb", "stmfd", "push"}
_DSP = {"umaal", "smmul", "smmulr", "smmla", "smmlar", "smmls", "smmlsr", "smuad", "smuadx",
        "smusd", "smusdx", "smlad", "smladx", "smlsd", "smlsdx", "smlald", "smlaldx", "smlsld",
        "smlsldx", "smulbb", "smulbt", "smultb", "smultt", "smulwb", "smulwt", "smlabb",
        "smlabt", "smlatb", "smlatt", "smlawb", "smlawt", "smlalbb", "smlalbt", "smlaltb",
        "smlaltt", "qadd", "qsub", "qdadd", "qdsub", "sel", "usad8", "usada8", "pkhbt", "pkhtb",
        "sxtab", "sxtah", "sxtab16", "sxtb16", "uxtab", "uxtah", "uxtab16", "uxtb16", "ssat16",
        "usat16"}
_DSP_RE = re.compile(r"^(s|q|sh|u|uq|uh)(add8|add16|sub8|sub16|asx|sax)$")
_SIMPLE = {
    "mul": "mul", "mla": "mla", "mls": "mla", "umull": "umull", "smull": "umull",
    "umlal": "umlal", "smlal": "smlal", "sdiv": "div", "udiv": "div",
    "ldrd": "ldrd", "strd": "strd", "ldrexd": "ldrd", "strexd": "strd", "tbb": "tbb", "tbh": "tbb", "it": "it", "nop": "nop",
    "dmb": "barrier", "dsb": "barrier", "isb": "isb", "cbz": "bcond", "cbnz": "bcond",
}
_CC_SUFFIXES = ("eq", "ne", "hs", "cs", "lo", "cc", "mi", "pl", "vs", "vc", "hi", "ls",
                "ge", "lt", "gt", "le", "al")


def base_mnemonic(mnemonic: str, conditional: bool = False) -> str:
    """'ldr.w' -> 'ldr', 'addseq' (conditional) -> 'adds' -> handled by class_of_mnemonic."""
    m = mnemonic.lower().split(".")[0]
    if conditional and len(m) > 2 and m[-2:] in _CC_SUFFIXES:
        m = m[:-2]
    return m


def class_of_mnemonic(m: str, writes_pc: bool = False, n_regs: int = 0) -> str:
    """Class of a base mnemonic (already stripped with ``base_mnemonic``)."""
    for cand in (m, m[:-1] if m.endswith("s") else None):
        if not cand:
            continue
        if cand in _SIMPLE:
            return _SIMPLE[cand]
        if cand in _LOADS:
            return "ldr_pc" if writes_pc else "ldr"
        if cand in _STORES:
            return "str"
        if cand in _LDM:
            return "ldm_pc" if writes_pc else "ldm"
        if cand in _STM:
            return "stm"
        if cand in _DSP or _DSP_RE.match(cand):
            return "dsp"
        if cand in ("b", "bl", "bx", "blx"):
            return "branch"
    if writes_pc:
        return "alu_pc"
    return "alu"


# ---------------------------------------------------------------------------------------
# Capstone bridge (client b: the emulator).
# ---------------------------------------------------------------------------------------
_REG_ALIASES = {"sb": "r9", "sl": "r10", "fp": "r11", "ip": "r12", "r13": "sp", "r14": "lr",
                "r15": "pc"}
_IGNORED_REGS = frozenset({"itstate", "cpsr", "apsr", "apsr_nzcv", "fpscr", "pc"})


def reg_name(insn, reg_id: int) -> str:
    n = insn.reg_name(reg_id)
    return _REG_ALIASES.get(n, n)


def classify_capstone(insn) -> Insn:
    """Map a capstone ARM/Thumb instruction (``detail=True``) onto an ``Insn`` record:
    its class, register-list length, written registers and address registers."""
    from capstone import arm as csarm

    cc = insn.cc
    it_pred = cc not in (csarm.ARM_CC_AL, csarm.ARM_CC_INVALID)
    m = base_mnemonic(insn.mnemonic, conditional=it_pred)
    r_ids, w_ids = insn.regs_access()
    w_names = [reg_name(insn, r) for r in w_ids]
    writes_pc = "pc" in w_names
    writes = frozenset(r for r in w_names if r not in _IGNORED_REGS)
    reads = frozenset(reg_name(insn, r) for r in r_ids) - _IGNORED_REGS
    ops = insn.operands
    addr = set()
    reg_ops = []
    for o in ops:
        if o.type == csarm.ARM_OP_MEM:
            if o.mem.base:
                addr.add(reg_name(insn, o.mem.base))
            if o.mem.index:
                addr.add(reg_name(insn, o.mem.index))
        elif o.type == csarm.ARM_OP_REG:
            reg_ops.append(reg_name(insn, o.reg))
    n = 0
    cls = class_of_mnemonic(m, writes_pc=writes_pc)
    if m == "it":
        cls, it_pred = "it", False
    if cls in ("ldm", "stm", "ldm_pc"):
        if m in ("push", "pop"):
            addr.add("sp")
            n = len(reg_ops)
        else:
            addr.add(reg_ops[0])
            n = len(reg_ops) - 1
    if cls == "branch" and it_pred:
        cls = "bcond"
    if m in ("cbz", "cbnz"):
        it_pred = True
    return Insn(cls=cls, n=n, writes=writes, addr_regs=frozenset(addr - {"pc"}) if cls != "tbb"
                else frozenset(addr), reads=reads, cond=it_pred, mnemonic=m,
                address=insn.address, size=insn.size, cc=cc, operands=tuple(reg_ops))


def thumb_disassembler():
    """A capstone Thumb (M-class) disassembler with details on."""
    import capstone
    md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    md.detail = True
    return md


def classify_bytes(code: bytes, address: int):
    """Disassemble ``code`` at ``address`` and classify each instruction (list of Insn)."""
    md = thumb_disassembler()
    return [classify_capstone(i) for i in md.disasm(code, address)]
