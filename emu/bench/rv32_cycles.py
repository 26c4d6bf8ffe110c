"""Cycle model of RV32IMAC code running in Unicorn's SiFive E31: the E31 rules of
gen/cores/inorder.py (scoreboard: result latencies, the blocking multiplier/divider; branch
predictor: BHT, BTB, RAS) over the executed instruction stream.

How it works: one ``UC_HOOK_BLOCK`` over the code range.  A translated block is decoded and
classified once (emu/platforms/rv32_classify.py) and cached.  Its instructions are issued into
the scoreboard when the *next* block is entered (or the count is read), so that (1) the control
transfer that ended it is resolved against the address really reached next (taken or not,
predicted or not: + MISPREDICT cycles when the predictor model got it wrong) and (2) the divides
in it, whose latency depends on their operands, have been seen by their per-address
``UC_HOOK_CODE`` (installed before any translation by a scan of the code for DIV/REM
encodings, then ``ctl_flush_tb``).  A measured call counts from its first instruction to its
return, the return issued but not resolved (the caller's call would have pushed it on the RAS).

Where it is approximate: zero wait states and no cache misses (the FE310 runs from a 16 KiB
I-cache and a DTIM; the emulated memory has neither misses nor wait states), no interrupts; the
predictor is our model of one whose sizes only the manual gives (see gen/cores/inorder.py);
divide latency is a model assumption (``inorder.divide_latency``).
"""
from __future__ import annotations

import bisect

from unicorn import UC_HOOK_BLOCK, UC_HOOK_CODE

from gen.cores import inorder
from emu.platforms import rv32_classify as C

__all__ = ["CycleCounter", "straight_line_cycles"]

_CONTROL = frozenset({"branch", "jump", "jumpr"})


def straight_line_cycles(code: bytes, address: int, core: str = "sifive-e31") -> int:
    """Cycles of a straight-line RV32 sequence from an idle pipeline, without executing it."""
    insns = C.classify_bytes(bytes(code), address)
    if sum(i.size for i in insns) != len(code):
        raise ValueError(f"could not decode all of the code at {address:#x}")
    return inorder.sequence_cycles(insns, core)


def _is_divide(word: int) -> bool:
    """DIV, DIVU, REM, REMU: OP opcode 0x33, funct7 1, funct3 4..7."""
    return word & 0x7F == 0x33 and word >> 25 == 1 and (word >> 12) & 7 >= 4


class CycleCounter:
    """Counts modelled cycles of RV32 code executed by ``uc`` in [code_start, code_end); the
    same interface as the Cortex-M one (emu/bench/cycles.py): ``cycles``, ``reset()``,
    ``attribute(functions)``, ``by_function()``, ``detach()``, ``missed_hooks``; plus
    ``mispredicts`` and ``stall_cycles`` (operand and multiplier waits)."""

    def __init__(self, uc, core: str, code_start: int, code_end: int):
        self.uc = uc
        self.core = core
        self.code_start, self.code_end = code_start, code_end
        self._md = C.disassembler()
        self._blocks: dict[tuple[int, int], tuple] = {}
        self._div_lat: dict[int, int] = {}
        self.missed_hooks: list[int] = []
        self._fns = None
        self._by_fn = None
        self.reset()
        self._hooks = [uc.hook_add(UC_HOOK_BLOCK, self._on_block, begin=code_start, end=code_end - 1)]
        self._hooked = set()
        for a in self._prescan():
            self._hooks.append(uc.hook_add(UC_HOOK_CODE, self._on_div, begin=a, end=a))
            self._hooked.add(a)
        uc.ctl_flush_tb()

    # -- public ----------------------------------------------------------------------------
    def reset(self) -> None:
        self._sb = inorder.Scoreboard(self.core)
        self._pred = inorder.Predictor(self.core)
        self._pending = None
        self._base = 0
        if self._by_fn is not None:
            self._by_fn = {}

    @property
    def cycles(self) -> int:
        self._drain(None)
        return self._sb.cycles

    @property
    def mispredicts(self) -> int:
        return self._pred.mispredicts

    @property
    def stall_cycles(self) -> int:
        return self._sb.stall_cycles

    def attribute(self, functions: dict[str, tuple[int, int]]) -> None:
        self._fns = sorted((a, a + n, name) for name, (a, n) in functions.items() if n > 0)
        self._by_fn = {}
        self._blocks.clear()

    def by_function(self) -> dict:
        if self._by_fn is None:
            raise RuntimeError("call attribute() first")
        self._drain(None)
        return {k: v for k, v in self._by_fn.items() if v}

    def detach(self) -> None:
        for h in self._hooks:
            self.uc.hook_del(h)
        self._hooks = []
        self.uc.ctl_flush_tb()

    # -- hooks -----------------------------------------------------------------------------
    def _on_block(self, uc, address, size, _user):
        self._drain(address)
        b = self._blocks.get((address, size))
        if b is None:
            b = self._analyze(address, size)
        self._pending = b

    def _on_div(self, uc, address, size, _user):
        code = bytes(uc.mem_read(address, 4))
        for i in self._md.disasm(code, address, 1):
            ins = C.classify_capstone(i)
            if ins.cls == "div":
                _, rs1, rs2 = ins.operands
                self._div_lat[address] = inorder.divide_latency(uc.reg_read(C.reg_id(rs1)),
                                                                uc.reg_read(C.reg_id(rs2)))

    # -- the model ---------------------------------------------------------------------------
    def _drain(self, next_address: int | None) -> None:
        """Issue the pending block; resolve its last control transfer against ``next_address``
        (None: the run stopped or is being read; nothing is resolved)."""
        b = self._pending
        if b is None:
            return
        self._pending = None
        insns, fn, fallthrough = b
        sb = self._sb
        before = sb.issue
        for i in insns:
            if i.cls == "div":
                lat = self._div_lat.pop(i.address, None)
                if lat is None:
                    self.missed_hooks.append(i.address)
                sb.step(i, lat)
            else:
                sb.step(i)
        last = insns[-1] if insns else None
        if next_address is not None and last is not None and last.cls in _CONTROL:
            if self._pred.resolve(last, next_address != fallthrough, next_address):
                sb.bubble(self._pen)
        if self._by_fn is not None:
            self._by_fn[fn] = self._by_fn.get(fn, 0) + sb.issue - before

    @property
    def _pen(self) -> int:
        from gen import cores
        return cores.get(self.core).MISPREDICT

    def _function_at(self, address: int):
        if self._fns is None:
            return None
        i = bisect.bisect_right(self._fns, (address, float("inf"), "")) - 1
        return self._fns[i][2] if i >= 0 and self._fns[i][0] <= address < self._fns[i][1] else None

    def _analyze(self, address: int, size: int):
        code = bytes(self.uc.mem_read(address, size))
        insns = tuple(C.classify_capstone(i) for i in self._md.disasm(code, address))
        end = insns[-1].address + insns[-1].size if insns else address + size
        b = (insns, self._function_at(address), end)
        self._blocks[(address, size)] = b
        return b

    def _prescan(self) -> set[int]:
        try:
            code = bytes(self.uc.mem_read(self.code_start, self.code_end - self.code_start))
        except Exception:  # noqa: BLE001 - not mapped yet
            return set()
        return {self.code_start + off for off in range(0, len(code) - 3, 2)
                if _is_divide(int.from_bytes(code[off:off + 4], "little"))}
