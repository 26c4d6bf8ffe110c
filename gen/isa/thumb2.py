"""A small Thumb-2 (ARMv7-M / ARMv7E-M) instruction model.

One ``Insn`` is one machine instruction: operands, registers read and written, timing class
(``gen/isa/thumb2_classes.py``), ISA level (``'m3'`` ARMv7-M, ``'m4'`` the DSP extension), text.
``lower`` turns one IR op into one instruction; printing prefers the 16-bit flag-setting forms
(the kernels never read the flags).  ``THUMB2`` at the end is this model as the ISA interface of
``gen/isa/base.py``.  Registers, memory operands, lowering: docs/internals/scheduler.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Optional

from gen import ir
from gen.cores import timing as T
from gen.isa.base import Isa
from gen.isa.thumb2_classes import base_mnemonic, class_of_mnemonic

GPRS = tuple(f"r{i}" for i in range(13)) + ("sp", "lr", "pc")
LOW = frozenset(f"r{i}" for i in range(8))
ISAS = ("m3", "m4")
CORE_ISA = {"cortex-m3": "m3", "cortex-m4": "m4"}

LOGIC = ("eor", "and", "orr", "bic", "orn")       # dst = a OP op2
MOVES = ("mov", "mvn")                            # dst = op2
SHIFTS = ("lsl", "lsr", "ror", "asr")             # dst = a SHIFT #imm
MEMORY = ("ldr", "str")
KNOWN = LOGIC + MOVES + SHIFTS + MEMORY + ("strd", "movw", "movt", "add", "sub", "push", "pop", "bx",
                                           "mul", "umull", "umlal", "rbit", "rev", "nop")
#: FPU register lists (Cortex-M4F): ``vpush``/``vpop`` {sN-sM}, ``vldm rB, {sN-sM}``
FPU_LISTS = ("vpush", "vpop", "vldm")
#: instructions without a memory side (``access`` 'none'): a single load/store may cross them
NO_MEMORY = frozenset(LOGIC + MOVES + SHIFTS + ("movw", "movt", "add", "sub", "mul", "umull", "umlal",
                                                "rbit", "rev", "nop", "vmov"))
#: AAPCS: the first four arguments, the registers a function preserves
ARG_REGS = ("r0", "r1", "r2", "r3")
CALLEE_SAVED = ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
#: registers that may hold values: all but sp and pc
ALLOCATABLE = tuple(f"r{i}" for i in range(13)) + ("lr",)


def is_imm(v: int) -> bool:
    """True when v is a Thumb-2 'modified immediate' (ThumbExpandImm): 0x000000XY, 0x00XY00XY,
    0xXY00XY00, 0xXYXYXYXY, or an 8-bit value with its top bit set rotated right by 8..31."""
    v &= 0xFFFFFFFF
    x = v & 0xFF
    y = (v >> 8) & 0xFF
    if v in (x, x * 0x00010001, y * 0x01000100, x * 0x01010101):
        return True
    for rot in range(8, 32):
        r = ((v << rot) | (v >> (32 - rot))) & 0xFFFFFFFF   # undo a ror by rot
        if r < 256 and r & 0x80:
            return True
    return False


def is_dsp(mnemonic: str) -> bool:
    """True for the ARMv7E-M DSP/SIMD instructions (absent on Cortex-M3)."""
    return class_of_mnemonic(mnemonic.lower()) == "dsp"


@dataclass(frozen=True)
class Insn:
    """One instruction.

    mnem   base mnemonic, lower case, without S/condition suffix ('eor', 'ldr', 'uadd8', ...)
    dst    written register (None for str/push/bx); for umull/umlal ``dst`` and ``dst2``
    srcs   read registers in operand order (data operands; the address base is ``base``)
    shift  ('lsl'|'lsr'|'ror'|'asr', n) applied to the last source (flexible operand)
    imm    immediate operand (logic/move/shift/add/sub/movw/movt)
    base, offset, slot   memory operand of ldr/str: [base, #offset]; slot = symbolic stack slot
    regs   register list of push/pop
    note   a comment printed after the instruction
    post   ldr/str post-indexed: the access is at [base] (offset 0) and base += post after it
           (``ldr rX, [rB], #post``: the same cycles as without the write-back)
    """
    mnem: str
    dst: Optional[str] = None
    srcs: tuple = ()
    shift: Optional[tuple] = None
    imm: Optional[int] = None
    base: Optional[str] = None
    offset: Optional[int] = None
    slot: Optional[int] = None
    regs: tuple = ()
    dst2: Optional[str] = None
    note: str = ""
    post: Optional[int] = None

    # ---- what it touches ----
    def reads(self) -> frozenset:
        r = set(self.srcs)
        if self.base:
            r.add(self.base)
        if self.mnem in ("push", "vpush"):
            r.update(self.regs)
            r.add("sp")
        if self.mnem in ("pop", "vpop"):
            r.add("sp")
        if self.mnem == "movt" and self.dst:
            r.add(self.dst)
        if self.mnem == "umlal":
            r.update((self.dst, self.dst2))
        return frozenset(r)

    def writes(self) -> frozenset:
        w = set()
        if self.dst:
            w.add(self.dst)
        if self.dst2:
            w.add(self.dst2)
        if self.mnem in ("pop", "vpop", "vldm"):
            w.update(self.regs)
        if self.mnem in ("pop", "vpop", "push", "vpush"):
            w.add("sp")
        if self.post is not None:
            w.add(self.base)
        return frozenset(w)

    def addr_regs(self) -> frozenset:
        if self.mnem in ("push", "pop", "vpush", "vpop"):
            return frozenset({"sp"})
        return frozenset({self.base}) if self.base else frozenset()

    @property
    def cls(self) -> str:
        """Timing class (a key of the core tables in gen/cores/, by gen/isa/thumb2_classes.py)."""
        if self.mnem == "pop" and "pc" in self.regs:
            return "ldm_pc"
        if self.mnem == "bx":
            return "branch"
        return class_of_mnemonic(self.mnem, n_regs=len(self.regs))

    @property
    def isa(self) -> str:
        return "m4" if self.cls in ("dsp", "vmov") or self.mnem in FPU_LISTS else "m3"

    def valid_on(self, core: str) -> bool:
        return ISAS.index(self.isa) <= ISAS.index(CORE_ISA[core])

    def timing(self) -> T.Insn:
        """The record gen.cores.timing costs (same fields emu/bench/cycles.py derives from bytes)."""
        return T.Insn(cls=self.cls, n=len(self.regs), writes=self.writes() - {"pc"},
                      addr_regs=self.addr_regs(), reads=self.reads(), mnemonic=self.mnem)

    def cycles(self, core: str) -> int:
        return T.issue_cycles(self.cls, core, n=len(self.regs))

    # ---- printing ----
    def text(self) -> str:
        m, ops = self.mnem, []
        narrow_s = False
        if m in LOGIC:
            if self.imm is not None:
                ops = [self.dst, self.srcs[0], _imm(self.imm)]
            else:
                ops = [self.dst, self.srcs[0], self.srcs[1]] + _shift_text(self.shift)
                narrow_s = (self.shift is None and m != "orn" and self.dst == self.srcs[0]
                            and {self.dst, self.srcs[1]} <= LOW)
        elif m in MOVES:
            if self.imm is not None:
                ops = [self.dst, _imm(self.imm)]
            elif m == "mov" and self.shift is not None:       # mov rd, rm, <shift> == <shift> rd, rm, #n
                m = self.shift[0]
                ops = [self.dst, self.srcs[0], f"#{self.shift[1]}"]
                narrow_s = m in ("lsl", "lsr", "asr") and {self.dst, self.srcs[0]} <= LOW
            else:
                ops = [self.dst, self.srcs[0]] + _shift_text(self.shift)
                narrow_s = m == "mvn" and self.shift is None and {self.dst, self.srcs[0]} <= LOW
        elif m in SHIFTS:
            ops = [self.dst, self.srcs[0], f"#{self.imm}"]
            narrow_s = m in ("lsl", "lsr", "asr") and {self.dst, self.srcs[0]} <= LOW
        elif m in MEMORY:
            reg = self.dst if m == "ldr" else self.srcs[0]
            if self.offset is None:
                raise ValueError(f"unresolved stack slot {self.slot} in {m}")
            if self.post is not None:
                assert self.offset == 0, "a post-indexed access is at [base]"
                ops = [reg, f"[{self.base}], #{self.post}"]
            else:
                ops = [reg, f"[{self.base}, #{self.offset}]" if self.offset else f"[{self.base}]"]
        elif m == "strd":                   # two words to [base, #off] and [base, #off + 4]
            if self.offset is None:
                raise ValueError(f"unresolved stack slot {self.slot} in strd")
            if self.offset % 4 or not 0 <= self.offset <= 1020:
                raise ValueError(f"strd offset {self.offset} not encodable (multiple of 4, 0..1020)")
            ops = [self.srcs[0], self.srcs[1], f"[{self.base}, #{self.offset}]" if self.offset else f"[{self.base}]"]
        elif m in ("push", "pop"):
            ops = ["{" + ", ".join(self.regs) + "}"]
        elif m in FPU_LISTS:
            ops = ([self.base] if m == "vldm" else []) + [_sreg_list(self.regs)]
        elif m in ("movw", "movt"):
            ops = [self.dst, f"#{self.imm:#x}"]
        elif m in ("add", "sub") and self.imm is not None:
            ops = [self.dst, self.srcs[0], f"#{self.imm}"]
        elif m == "bx":
            ops = list(self.srcs)
        elif m in ("umull", "umlal"):
            ops = [self.dst, self.dst2, *self.srcs]
        else:
            ops = ([self.dst] if self.dst else []) + list(self.srcs) + _shift_text(self.shift)
            if self.imm is not None:
                ops.append(_imm(self.imm))
        s = f"{m}{'s' if narrow_s else ''}"
        line = f"{s:<6} " + ", ".join(ops) if ops else s
        return line + (f"    @ {self.note}" if self.note else "")

    def __str__(self) -> str:
        return self.text()


def _sreg_list(regs) -> str:
    """'{s16-s31}' for consecutive single-precision registers (VPUSH/VPOP/VLDM need them so)."""
    n = [int(r[1:]) for r in regs]
    assert all(r.startswith("s") for r in regs) and n == list(range(n[0], n[0] + len(n))), regs
    return "{" + (f"s{n[0]}-s{n[-1]}" if len(n) > 1 else f"s{n[0]}") + "}"


def _imm(v: int) -> str:
    return f"#{v:#x}" if v > 255 else f"#{v}"


def _shift_text(shift) -> list:
    return [f"{shift[0]} #{shift[1]}"] if shift else []


# ---- constructors ----

def ldr(dst: str, base: str, offset: int = 0, note: str = "") -> Insn:
    return Insn("ldr", dst=dst, base=base, offset=offset, note=note)


def str_(src: str, base: str, offset: int = 0, note: str = "") -> Insn:
    return Insn("str", srcs=(src,), base=base, offset=offset, note=note)


def ldr_slot(dst: str, slot: int, note: str = "") -> Insn:
    return Insn("ldr", dst=dst, base="sp", slot=slot, note=note)


def str_slot(src: str, slot: int, note: str = "") -> Insn:
    return Insn("str", srcs=(src,), base="sp", slot=slot, note=note)


#: single-precision FPU registers a kernel may use as spill slots: s0-s15, the caller-saved
#: half under the AAPCS (s16-s31 would have to be saved and restored)
FPU_SLOTS = 16


def fpu_slots(insns, limit: int = None) -> list:
    """Spill code moved into FPU registers (the ``[schedule] spill = "fpu"`` option): a store
    to stack slot k < FPU_SLOTS becomes ``vmov sk, rX`` and a reload ``vmov rX, sk``, 1 cycle
    each on a Cortex-M4F where STR and LDR cost 2 (TRM Table 7-1 and Table 3-1). One for one,
    so positions (and a schedule's read-only marks) are unchanged; a slot >= FPU_SLOTS stays
    on the stack (or >= ``limit``, when the registers above it hold something else)."""
    limit = FPU_SLOTS if limit is None else limit
    out = []
    for i in insns:
        if i.base == "sp" and i.slot is not None and 0 <= i.slot < limit and i.mnem in ("ldr", "str"):
            s = f"s{i.slot}"
            i = (Insn("vmov", dst=i.dst, srcs=(s,), note=i.note) if i.mnem == "ldr"
                 else Insn("vmov", dst=s, srcs=i.srcs, note=i.note))
        out.append(i)
    return out


def fpu_homes(insns, sregs: dict) -> list:
    """Pointer homes in FPU registers (spill = "fpu" with ``sregs``, home slot -> 'sN', above the
    spill slots): a reload of a pointer from its home (a negative stack slot) becomes
    ``vmov rX, sN``, 1 cycle where the LDR costs 2. One for one, like ``fpu_slots``; the
    prologue must have put the pointers there (``vmov sN, rK``, notes "home")."""
    out = []
    for i in insns:
        if i.base == "sp" and i.slot is not None and i.slot in sregs:
            assert i.mnem == "ldr", f"a home is only reloaded, never written: {i.text()}"
            i = Insn("vmov", dst=i.dst, srcs=(sregs[i.slot],), note=i.note)
        out.append(i)
    return out


def strd_slot(src1: str, src2: str, slot: int, note: str = "") -> Insn:
    """Two words to the adjacent stack slots ``slot`` and ``slot + 1``."""
    return Insn("strd", srcs=(src1, src2), base="sp", slot=slot, note=note)


def push(regs) -> Insn:
    return Insn("push", regs=tuple(regs))


def pop(regs) -> Insn:
    return Insn("pop", regs=tuple(regs))


def save(regs) -> list:
    """A prologue's register save: one push (the interface allows several instructions)."""
    return [push(regs)]


def restore_and_return(regs) -> list:
    """An epilogue's restore of ``regs`` and return: one pop, the pushed lr into pc."""
    return [pop(tuple(regs) + ("pc",))]


def add_sp(n: int) -> Insn:
    """sp += n (a negative n allocates a frame)."""
    return Insn("add" if n >= 0 else "sub", dst="sp", srcs=("sp",), imm=abs(n))


def access(insn: Insn) -> str:
    """What ``insn`` does to memory (gen/isa/base.py ACCESS)."""
    m = insn.mnem
    if m in NO_MEMORY:
        return "none"
    return {"ldr": "load", "str": "store", "strd": "store_pair"}.get(m, "barrier")


def resolve(insn: Insn, slot_offset: Callable[[int], int]) -> Insn:
    """Give a symbolic stack slot its byte offset."""
    if insn.slot is None:
        return insn
    return replace(insn, offset=slot_offset(insn.slot))


_PARSE = re.compile(r"^\s*([a-z0-9]+)")


def parse_mnemonic(line: str) -> str:
    """The base mnemonic of a printed line (tests and checks of generated text)."""
    m = _PARSE.match(line.split("@")[0].lower())
    return base_mnemonic(m.group(1)) if m else ""


def function_lines(sym: str, body: list) -> list:
    """Assembly lines of a global Thumb function ``sym`` in its own .text section around
    ``body`` (assembly lines: instructions indented, labels not)."""
    return ([f'.pushsection .text.{sym},"ax",%progbits', ".syntax unified", ".thumb", ".balign 4",
             f".global {sym}", f".type {sym}, %function", ".thumb_func", f"{sym}:"]
            + list(body) + [f".size {sym}, .-{sym}", ".popsection"])


def c_asm(prototype: str, lines: list, comment: str = "") -> str:
    """C text: ``comment`` (if any), ``prototype;``, then a file-scope ``__asm__`` block holding
    ``lines`` (each escaped as a C string literal ending in a newline)."""
    out = [comment] if comment else []
    out += [f"{prototype};", "__asm__("]
    out += ['    "' + ln.replace("\\", "\\\\").replace('"', '\\"') + '\\n"' for ln in lines]
    out.append(");")
    return "\n".join(out) + "\n"


def check_core(insns, core: str) -> None:
    """Raise ValueError if an instruction does not exist on ``core`` (M3: no DSP)."""
    bad = [i for i in insns if not i.valid_on(core)]
    if bad:
        raise ValueError(f"{len(bad)} instruction(s) not available on {core}, first: {bad[0].text()}")


# ---- lowering of the IR ----

def lower(op: ir.Op, reg: Callable[[int], str], base: Callable[[str], str]) -> Insn:
    """One IR op -> one instruction.  ``reg(v)`` is the physical register of vreg v at this op
    (its operands and its destination); ``base(mem)`` the register holding memory mem's base.
    A ``movc`` becomes a placeholder ``mov rd, #value`` (one op, one instruction for the
    allocator), which ``expand_constants`` turns into MOV/MVN or MOVW/MOVT after scheduling;
    any other immediate operand must be a modified immediate (``is_imm``)."""
    k = op.kind
    if k == "ld":
        return Insn("ldr", dst=reg(op.dst), base=base(op.mem), offset=4 * op.index)
    if k == "st":
        return Insn("str", srcs=(reg(op.a),), base=base(op.mem), offset=4 * op.index)
    if k == "movc":
        return Insn("mov", dst=reg(op.dst), imm=op.imm)
    if k in ir.SHIFT_KINDS:
        return Insn(k, dst=reg(op.dst), srcs=(reg(op.a),), imm=op.imm)
    if op.imm is not None and not is_imm(op.imm):
        raise ValueError(f"not a Thumb-2 immediate: {op.imm:#x} in {op}")
    srcs = tuple(reg(r) for r in (op.a, op.b) if r is not None)
    return Insn(k, dst=reg(op.dst), srcs=srcs, shift=op.shift, imm=op.imm)


def lower_movc(dst: str, value: int) -> list:
    value &= 0xFFFFFFFF
    if is_imm(value):
        return [Insn("mov", dst=dst, imm=value)]
    if is_imm(~value & 0xFFFFFFFF):
        return [Insn("mvn", dst=dst, imm=~value & 0xFFFFFFFF)]
    out = [Insn("movw", dst=dst, imm=value & 0xFFFF)]
    if value >> 16:
        out.append(Insn("movt", dst=dst, imm=value >> 16))
    return out


def expand_constants(insns: list) -> list:
    """Every placeholder ``mov rd, #value`` whose value is not a modified immediate (what
    ``lower`` makes of a ``movc``) as the instructions that load it (``lower_movc``), with its note."""
    out = []
    for i in insns:
        if i.mnem == "mov" and i.imm is not None and not i.srcs and not is_imm(i.imm):
            out += [replace(x, note=i.note) for x in lower_movc(i.dst, i.imm)]
        else:
            out.append(i)
    return out


# ---- a reference interpreter of the instructions the generators emit ----

def execute(insns, regs: dict, memory: dict) -> None:
    """Run straight-line instructions on ``regs`` (name -> int) and ``memory`` (byte address
    -> 32-bit word, word-granular, little endian implied).  Used by tests to check allocated
    code against gen.ir.run without an assembler."""
    M = 0xFFFFFFFF
    for i in insns:
        m = i.mnem
        if m == "ldr":
            value = memory[(regs[i.base] + i.offset) & M] & M
            if i.post is not None:
                regs[i.base] = (regs[i.base] + i.post) & M
            regs[i.dst] = value
        elif m == "str":
            memory[(regs[i.base] + i.offset) & M] = regs[i.srcs[0]]
            if i.post is not None:
                regs[i.base] = (regs[i.base] + i.post) & M
        elif m == "strd":
            memory[(regs[i.base] + i.offset) & M] = regs[i.srcs[0]]
            memory[(regs[i.base] + i.offset + 4) & M] = regs[i.srcs[1]]
        elif m in ("push", "vpush"):            # (an FPU register never written reads as 0)
            sp = regs["sp"] - 4 * len(i.regs)
            for n, r in enumerate(i.regs):
                memory[sp + 4 * n] = regs.get(r, 0) if m == "vpush" else regs[r]
            regs["sp"] = sp
        elif m in ("pop", "vpop"):
            sp = regs["sp"]
            for n, r in enumerate(i.regs):
                regs[r] = memory[sp + 4 * n]
            regs["sp"] = sp + 4 * len(i.regs)
        elif m in ("add", "sub"):
            a = regs[i.srcs[0]]
            b = i.imm if i.imm is not None else regs[i.srcs[1]]
            regs[i.dst] = (a + b if m == "add" else a - b) & M
        elif m == "movw":
            regs[i.dst] = i.imm
        elif m == "movt":
            regs[i.dst] = (regs[i.dst] & 0xFFFF) | (i.imm << 16)
        elif m in SHIFTS:
            if m == "asr":
                x = regs[i.srcs[0]]
                regs[i.dst] = ((x - (1 << 32) if x >> 31 else x) >> i.imm) & M
            else:
                regs[i.dst] = ir.apply_shift(regs[i.srcs[0]], (m, i.imm))
        elif m in MOVES or m in LOGIC:
            y = i.imm if i.imm is not None else ir.apply_shift(regs[i.srcs[-1]], i.shift)
            if m == "mov":
                r = y
            elif m == "mvn":
                r = ~y
            else:
                x = regs[i.srcs[0]]
                r = {"eor": x ^ y, "and": x & y, "orr": x | y, "bic": x & ~y, "orn": x | ~y}[m]
            regs[i.dst] = r & M
        elif m == "vmov":                     # core <-> FPU register, bits unchanged
            regs[i.dst] = regs[i.srcs[0]] & M
        elif m == "vldm":
            for n, r in enumerate(i.regs):
                regs[r] = memory[(regs[i.base] + 4 * n) & M]
        elif m in ("bx", "nop"):
            pass
        else:
            raise ValueError(f"execute: unsupported {i.text()}")


THUMB2 = Isa(
    name="thumb2", allocatable=ALLOCATABLE, sp="sp", frame_regs=frozenset({"sp", "pc"}),
    arg_regs=ARG_REGS, stack_arg_regs=("r12", "r11", "r10", "r9", "r8"), callee_saved=CALLEE_SAVED,
    link="lr", word_bytes=4, stack_align=8,
    is_imm=is_imm, lower=lower, expand_constants=expand_constants,
    load=ldr, load_slot=ldr_slot, store_slot=str_slot, store_pair=strd_slot, resolve=resolve,
    access=access, save=save, restore_and_return=restore_and_return, add_sp=add_sp, check_core=check_core,
    function_lines=function_lines, c_asm=c_asm)
