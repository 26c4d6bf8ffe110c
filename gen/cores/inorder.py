"""The timing rules of a single-issue, in-order, fully bypassed pipeline that interlocks on
read-after-write and write-after-write hazards (the SiFive E31, gen/cores/sifive_e31.py): one
scoreboard, shared by a generator costing straight-line RV32 code and by the emulator's cycle
model (emu/bench/rv32_cycles.py), which also drives the branch predictor below.

* An instruction issues one cycle after the previous one at the earliest, and not before each
  register it reads (or writes) is ready: ready = issue + the producer's result latency.
* The multiplier/divider runs one operation at a time: the next MUL/DIV waits for the previous
  one's result.
* Control flow: a predicted instruction costs nothing more, a mispredicted one MISPREDICT more.
  Predictor model (ours, from the sizes in the manual): a BHT of 2-bit counters indexed by the
  branch address (weakly not-taken at reset), a BTB holding targets of taken branches and jumps
  (a taken branch or direct jump whose target is not in it mispredicts; least recently used
  out), a return-address stack of RAS_ENTRIES for calls (jal/jalr writing ra) and returns.
The cycle count of a run is the issue cycle of the last instruction plus one; the last
results' latencies are not waited for.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from gen import cores

ZERO = "zero"


@dataclass(frozen=True)
class Insn:
    """What the model needs of one RV32 instruction: class, registers read and written."""
    cls: str
    reads: frozenset = field(default_factory=frozenset)
    writes: frozenset = field(default_factory=frozenset)
    mnemonic: str = ""
    address: int = 0
    size: int = 4
    operands: tuple = ()     # register operand names, in order (divides: rd, rs1, rs2)


def latency(cls: str, core: str, which: str = "max") -> int:
    ent = cores.get(core).TABLE[cls]
    return ent[1] if which == "max" else ent[0]


def divide_latency(rs1: int, rs2: int) -> int:
    """DIV/DIVU/REM/REMU result latency for operand values (the manual: 2..33 by operand values,
    1 bit a cycle).  MODEL ASSUMPTION (ours): 2 + one cycle per quotient bit, the quotient bits
    being max(0, bitlen(dividend) - bitlen(divisor) + 1) of the unsigned magnitudes (0..32); 2
    for a zero divisor."""
    a, b = rs1 & 0xFFFFFFFF, rs2 & 0xFFFFFFFF
    if b == 0:
        return 2
    return 2 + max(0, a.bit_length() - b.bit_length() + 1)


class Scoreboard:
    """Issue cycles of a stream of instructions on ``core``; ``cycles`` so far."""

    def __init__(self, core: str):
        c = cores.get(core)
        self.core = core
        self._table = c.TABLE
        self._blocking = c.BLOCKING_UNIT
        self.ready: dict[str, int] = {}
        self.unit_free = 0
        self.issue = -1          # issue cycle of the last instruction
        self.stall_cycles = 0    # cycles lost waiting for operands or the multiplier

    @property
    def cycles(self) -> int:
        return self.issue + 1

    def step(self, i: Insn, lat: int | None = None) -> int:
        """Issue ``i`` (its latency ``lat`` when known at run time: divides); returns its cycle."""
        t = self.issue + 1
        earliest = t
        for r in i.reads | i.writes:
            if r != ZERO:
                earliest = max(earliest, self.ready.get(r, 0))
        if i.cls in self._blocking:
            earliest = max(earliest, self.unit_free)
        self.stall_cycles += earliest - t
        if lat is None:
            lat = self._table[i.cls][1]
        for r in i.writes:
            if r != ZERO:
                self.ready[r] = earliest + lat
        if i.cls in self._blocking:
            self.unit_free = earliest + lat
        self.issue = earliest
        return earliest

    def bubble(self, n: int) -> None:
        """``n`` cycles in which nothing issues (a mispredicted control transfer)."""
        self.issue += n


def sequence_cycles(insns, core: str) -> int:
    """Cycles of a straight-line sequence from an idle pipeline (divides at their worst case)."""
    sb = Scoreboard(core)
    for i in insns:
        sb.step(i)
    return sb.cycles


class Predictor:
    """The branch predictor model above; ``resolve`` says whether a transfer was mispredicted."""

    def __init__(self, core: str):
        c = cores.get(core)
        self.bht_entries, self.btb_entries, self.ras_entries = c.BHT_ENTRIES, c.BTB_ENTRIES, c.RAS_ENTRIES
        self.bht: dict[int, int] = {}
        self.btb: OrderedDict[int, int] = OrderedDict()
        self.ras: list[int] = []
        self.mispredicts = 0

    def _btb_hit(self, pc: int, target: int) -> bool:
        hit = self.btb.get(pc) == target
        self.btb[pc] = target
        self.btb.move_to_end(pc)
        if len(self.btb) > self.btb_entries:
            self.btb.popitem(last=False)
        return hit

    def resolve(self, i: Insn, taken: bool, target: int) -> bool:
        """Update the predictor with the outcome of control-flow instruction ``i``; True when
        it was mispredicted."""
        pc = i.address
        wrong = False
        if i.cls == "branch":
            k = (pc >> 1) % self.bht_entries
            ctr = self.bht.get(k, 1)
            wrong = (ctr >= 2) != taken
            if taken:
                wrong = self._btb_hit(pc, target) is False or wrong
            self.bht[k] = min(3, ctr + 1) if taken else max(0, ctr - 1)
        else:
            is_return = i.cls == "jumpr" and "ra" in i.reads and "ra" not in i.writes
            if is_return:
                wrong = not self.ras or self.ras.pop() != target
            else:
                wrong = not self._btb_hit(pc, target)
            if "ra" in i.writes:                                   # a call: push the return address
                self.ras.append(pc + i.size)
                del self.ras[:-self.ras_entries]
        self.mispredicts += wrong
        return wrong
