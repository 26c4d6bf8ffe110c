"""Fast cycle model for Cortex-M4 / Cortex-M3 code running in Unicorn.

All costs come from the one timing model, ``gen/cores/timing.py`` and its core tables (Cortex-M4
TRM DDI 0439 Table 3-1 and section 3.3.2, Cortex-M3 TRM DDI 0337 Table 18-1); this file only
decides *when* to charge them: one ``UC_HOOK_BLOCK`` callback with per-block static costs cached,
corrections at block boundaries (taken branches, split straight-line code), per-address hooks
only for data-dependent and predicated instructions, installed before translation
(``ctl_flush_tb``).  Deterministic.  How it works and where it is approximate:
docs/internals/cycle-model.md.
"""

from __future__ import annotations

import bisect

from unicorn import UC_HOOK_BLOCK, UC_HOOK_CODE
from unicorn import arm_const as A

from gen.cores import timing as T
from emu.platforms import thumb2_classify as C

__all__ = ["CycleCounter", "straight_line_cycles", "REG_IDS"]

REG_IDS = {f"r{i}": getattr(A, f"UC_ARM_REG_R{i}") for i in range(13)}
REG_IDS.update({"sp": A.UC_ARM_REG_SP, "lr": A.UC_ARM_REG_LR, "pc": A.UC_ARM_REG_PC})

_NOT_TAKEN = 1  # a conditional PC write whose condition fails costs 1


def straight_line_cycles(code_bytes: bytes, address: int, core: str, which: str = "max") -> int:
    """Total cycles of a straight-line Thumb sequence, without executing it.

    Conditional branches count as not taken, unconditional ones as taken, predicated (IT)
    instructions as executed, data-dependent instructions (M3 long multiplies, divides) at
    their worst case (``which='max'``) or best case (``'min'``)."""
    insns = C.classify_bytes(bytes(code_bytes), address)
    decoded = sum(i.size for i in insns)
    if decoded != len(code_bytes):
        raise ValueError(f"could not decode instruction at {address + decoded:#x}")
    return T.sequence_cycles(insns, core, which=which)


class _Block:
    __slots__ = ("cost", "first", "last", "fallthrough", "taken_extra", "ends_in_branch", "fn")

    def __init__(self, cost, first, last, fallthrough, taken_extra, ends_in_branch, fn=None):
        self.cost = cost
        self.first = first
        self.last = last
        self.fallthrough = fallthrough
        self.taken_extra = taken_extra
        self.ends_in_branch = ends_in_branch
        self.fn = fn            # function (symbol) the block starts in, when attributing


class CycleCounter:
    """Counts modelled cycles of Thumb code executed by ``uc`` in [code_start, code_end).

    ``uc`` must be ``Uc(UC_ARCH_ARM, UC_MODE_THUMB)`` with ``ctl_set_cpu_model`` M4 or M3;
    ``core`` is 'cortex-m4' or 'cortex-m3'.  Construct it after the code is in memory and
    preferably before the first ``emu_start`` (it flushes Unicorn's translation cache
    anyway).  Read ``cycles``; ``reset()`` between measurements; ``detach()`` removes the
    hooks.  ``block_hook_calls`` and ``code_hook_calls`` count callbacks (for speed tests).

    Per-function attribution (optional): ``attribute(functions)`` with ``{name: (address,
    size)}`` makes the counter also sum cycles per function, read with ``by_function()``
    (cycles of code outside every given function go to ``None``).  A translated block is
    charged to the function its first instruction lies in ("exclusive" cycles: a callee's
    cycles are its own); the taken-branch extra of a block ending in a conditional branch goes
    to that block's function, a dynamic instruction's correction to the function holding the
    instruction.  The per-function figures always add up to ``cycles``; the total itself does
    not change with or without attribution.
    """

    def __init__(self, uc, core: str, code_start: int, code_end: int):
        if core not in T.CORES:
            raise ValueError(f"unknown core {core!r}; allowed: {', '.join(T.CORES)}")
        self.uc = uc
        self.core = core
        self.code_start = code_start
        self.code_end = code_end
        self._md = C.thumb_disassembler()
        self._blocks: dict[tuple[int, int], _Block] = {}
        self._dyn: dict[int, tuple] = {}          # confirmed dynamic instructions
        self._hooked: set[int] = set()
        self.missed_hooks: list[int] = []
        self.invalid_insns: list[int] = []
        self.block_hook_calls = 0
        self.code_hook_calls = 0
        self._cycles = 0
        self._prev: _Block | None = None
        self._fns: list[tuple[int, int, str]] | None = None    # (start, end, name), sorted
        self._by_fn: dict | None = None
        self._hooks = [uc.hook_add(UC_HOOK_BLOCK, self._on_block,
                                   begin=code_start, end=code_end - 1)]
        for a in sorted(self._prescan()):
            self._hooks.append(uc.hook_add(UC_HOOK_CODE, self._on_insn, begin=a, end=a))
            self._hooked.add(a)
        uc.ctl_flush_tb()

    # -- public ----------------------------------------------------------------------------
    @property
    def cycles(self) -> int:
        """Cycles so far (resolving a conditional branch that ended the last block)."""
        p = self._prev
        if p is not None and p.taken_extra:
            pc = self.uc.reg_read(A.UC_ARM_REG_PC) & ~1
            if pc != p.fallthrough:
                return self._cycles + p.taken_extra
        return self._cycles

    def attribute(self, functions: dict[str, tuple[int, int]]) -> None:
        """Also count cycles per function from now on (see the class docstring); `functions`
        maps a name to (address, size), as ``toolchain.Firmware.symbols`` does (entries of
        size 0 are ignored).  Resets the per-function sums."""
        self._fns = sorted((a & ~1, (a & ~1) + n, name) for name, (a, n) in functions.items() if n > 0)
        self._by_fn = {}
        self._fn_at: dict[int, str | None] = {}
        self._blocks.clear()            # cached blocks carry no function yet

    def by_function(self) -> dict:
        """{function name (or None): cycles} since the last reset; sums to ``cycles``."""
        if self._by_fn is None:
            raise RuntimeError("call attribute() first")
        out = {k: v for k, v in self._by_fn.items() if v}
        p = self._prev
        extra = self.cycles - self._cycles
        if extra:
            out[p.fn] = out.get(p.fn, 0) + extra
        return out

    def _function_at(self, address: int):
        fn = self._fn_at.get(address, self)
        if fn is self:
            i = bisect.bisect_right(self._fns, (address, float("inf"), "")) - 1
            fn = self._fns[i][2] if i >= 0 and self._fns[i][0] <= address < self._fns[i][1] else None
            self._fn_at[address] = fn
        return fn

    def rescan(self) -> None:
        """Scan the code range again (after new code was written into it), hook any new
        candidate addresses and flush Unicorn's translation cache."""
        for a in sorted(self._prescan() - self._hooked):
            self._hooks.append(self.uc.hook_add(UC_HOOK_CODE, self._on_insn, begin=a, end=a))
            self._hooked.add(a)
        self._blocks.clear()
        self._dyn.clear()
        self.missed_hooks = []
        self.uc.ctl_flush_tb()

    def reset(self) -> None:
        self._cycles = 0
        self._prev = None
        if self._by_fn is not None:
            self._by_fn = {}
        self.block_hook_calls = 0
        self.code_hook_calls = 0

    def detach(self) -> None:
        for h in self._hooks:
            self.uc.hook_del(h)
        self._hooks = []
        self.uc.ctl_flush_tb()

    # -- hooks -----------------------------------------------------------------------------
    def _on_block(self, uc, address, size, _user):
        self.block_hook_calls += 1
        b = self._blocks.get((address, size))
        if b is None:
            b = self._analyze(address, size)
        c = b.cost
        p = self._prev
        taken = 0
        if p is not None:
            if p.taken_extra:
                if address != p.fallthrough:
                    taken = p.taken_extra
            elif not p.ends_in_branch and address == p.fallthrough and b.first is not None:
                c += T.pair_adjust(p.last, b.first)
        self._cycles += c + taken
        self._prev = b
        if self._by_fn is not None:
            f = self._by_fn
            f[b.fn] = f.get(b.fn, 0) + c
            if taken:
                f[p.fn] = f.get(p.fn, 0) + taken

    def _on_insn(self, uc, address, size, _user):
        d = self._dyn.get(address)
        if d is None:
            return
        self.code_hook_calls += 1
        kind, charged, extra, cls, mnem, rn, rm = d
        if kind == "const":
            add = extra
        else:
            actual = T.dynamic_cycles(cls, self.core, mnem, uc.reg_read(rn), uc.reg_read(rm))
            add = actual - charged + extra
        self._cycles += add
        if self._by_fn is not None:
            fn = self._function_at(address)
            self._by_fn[fn] = self._by_fn.get(fn, 0) + add

    # -- analysis --------------------------------------------------------------------------
    def _read(self, address, size):
        return bytes(self.uc.mem_read(address, size))

    def _prescan(self) -> set[int]:
        """Candidate addresses that may need an instruction hook (over-approximation)."""
        try:
            code = self._read(self.code_start, self.code_end - self.code_start)
        except Exception:  # noqa: BLE001 - code not mapped yet: rely on run-time discovery
            return set()
        out = set()
        base = self.code_start
        n = len(code) & ~1
        for off in range(0, n, 2):
            hw = code[off] | (code[off + 1] << 8)
            if hw >> 8 == 0xFB:                         # 32-bit multiply / divide group
                for i in self._md.disasm(code[off:off + 4], base + off, 1):
                    ins = C.classify_capstone(i)
                    if ins.cls in T.DATA_DEPENDENT[self.core]:
                        out.add(base + off)
            elif hw >> 8 == 0xBF and hw & 0xF:          # IT: look at the predicated ones
                for k, i in enumerate(self._md.disasm(code[off:off + 20], base + off, 5)):
                    if k == 0:
                        continue
                    ins = C.classify_capstone(i)
                    if ins.cond and ins.cls not in T.PC_WRITERS:
                        out.add(i.address)
        return out

    def _analyze(self, address: int, size: int) -> _Block:
        core = self.core
        code = self._read(address, size)
        insns = []
        for i in self._md.disasm(code, address):
            ins = C.classify_capstone(i)
            if not T.valid_on(ins.cls, core):
                # e.g. a DSP instruction on Cortex-M3: Unicorn raises UC_ERR_INSN_INVALID when
                # it gets there; charge it as a 1-cycle ALU op meanwhile and record it.
                self.invalid_insns.append(ins.address)
                ins = T.Insn("alu", writes=ins.writes, reads=ins.reads, cond=ins.cond,
                             mnemonic=ins.mnemonic, address=ins.address, size=ins.size)
            insns.append(ins)
        fn = self._function_at(address) if self._fns is not None else None
        if not insns:
            b = _Block(0, None, None, address + size, 0, False, fn)
            self._blocks[(address, size)] = b
            return b
        dd = T.DATA_DEPENDENT[core]
        total = 0
        prev = None
        for ins in insns:
            if ins.cls in T.PC_WRITERS and ins.cond:
                # conditional PC write: charged as not taken; taken extra added at the boundary
                total += _NOT_TAKEN
            elif ins.cond:
                # IT-predicated: 1 if skipped; the hook adds the rest when it executes
                full = T.insn_cycles(ins, core, which="min") + T.pair_adjust(prev, ins)
                total += 1
                need_dyn = ins.cls in dd
                if full != 1 or need_dyn:
                    self._register_dyn(ins, charged=T.insn_cycles(ins, core, which="min"),
                                       extra=full - 1, dynamic=need_dyn)
            else:
                c = T.insn_cycles(ins, core, taken=True, which="min") + T.pair_adjust(prev, ins)
                total += c
                if ins.cls in dd:
                    self._register_dyn(ins, charged=T.insn_cycles(ins, core, which="min"),
                                       extra=0, dynamic=True)
            prev = ins
        last = insns[-1]
        taken_extra = 0
        ends_in_branch = last.cls in T.PC_WRITERS
        if ends_in_branch and last.cond:
            taken_extra = T.insn_cycles(last, core, taken=True) - _NOT_TAKEN
        b = _Block(total, insns[0], last, last.address + last.size, taken_extra, ends_in_branch, fn)
        self._blocks[(address, size)] = b
        return b

    def _register_dyn(self, ins: T.Insn, charged: int, extra: int, dynamic: bool) -> None:
        if ins.address in self._dyn:
            return
        if dynamic:
            ops = ins.operands
            # UMULL/SMULL/UMLAL/SMLAL RdLo, RdHi, Rn, Rm ; SDIV/UDIV Rd, Rn, Rm
            rn, rm = (ops[2], ops[3]) if ins.cls != "div" else (ops[1], ops[2])
            entry = ("dyn", charged, extra, ins.cls, ins.mnemonic, REG_IDS[rn], REG_IDS[rm])
        else:
            entry = ("const", 0, extra, ins.cls, ins.mnemonic, None, None)
        self._dyn[ins.address] = entry
        if ins.address not in self._hooked:
            self.missed_hooks.append(ins.address)
