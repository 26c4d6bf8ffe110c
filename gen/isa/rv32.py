"""A small RV32IMAC instruction model for generated kernels: the ``Isa`` of gen/isa/base.py for
the passes of gen/sched/ (list scheduling, register allocation), as gen/isa/thumb2.py is for
Thumb-2.

RV32 has no shifted operands, no rotate, no and-not in the base ISA (Zbb is not executed by
Unicorn 2.1 and absent on the E31): an IR program is first rewritten so that every op is one
RV32 instruction (``gen/kernels/rv32_split.py``); ``lower`` then maps op for op.  Registers are
the ABI names; ``zero``, ``sp``, ``gp``, ``tp`` never hold values (gp and tp belong to the
platform's runtime), ``ra`` does once it is saved.  Memory operands are ``offset(base)`` with a
12-bit signed offset; stack slots stay symbolic until the frame is laid out (``resolve``).
Timing: ``timing()`` is the record gen/cores/inorder.py costs (classes of gen/isa/rv32_classes.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

from gen import ir
from gen.cores import inorder
from gen.isa.base import Isa
from gen.isa.rv32_classes import class_of_mnemonic
from gen.isa.thumb2 import c_asm

#: ILP32: arguments, callee-saved, temporaries
ARG_REGS = tuple(f"a{i}" for i in range(8))
CALLEE_SAVED = tuple(f"s{i}" for i in range(12))
TEMPS = tuple(f"t{i}" for i in range(7))
ALLOCATABLE = TEMPS + ARG_REGS + CALLEE_SAVED + ("ra",)
#: IR kinds and their RV32 register-register / register-immediate mnemonics
_RR = {"eor": "xor", "and": "and", "orr": "or"}
_RI = {"eor": "xori", "and": "andi", "orr": "ori"}
_SHIFT = {"lsl": "slli", "lsr": "srli"}
NO_MEMORY = frozenset({"xor", "and", "or", "xori", "andi", "ori", "slli", "srli", "mv", "not", "li", "lui",
                       "addi", "nop"})


def is_imm(v: int) -> bool:
    """An I-type immediate: a 32-bit value that is the sign extension of 12 bits."""
    v &= 0xFFFFFFFF
    return v < 0x800 or v >= 0xFFFFF800


@dataclass(frozen=True)
class Insn:
    mnem: str
    dst: Optional[str] = None
    srcs: tuple = ()
    imm: Optional[int] = None
    base: Optional[str] = None
    offset: Optional[int] = None
    slot: Optional[int] = None
    note: str = ""
    dst2: Optional[str] = None
    shift: Optional[tuple] = None

    def reads(self) -> frozenset:
        return frozenset(self.srcs) | ({self.base} if self.base else set())

    def writes(self) -> frozenset:
        return frozenset({self.dst}) if self.dst else frozenset()

    def timing(self) -> inorder.Insn:
        return inorder.Insn(cls=class_of_mnemonic(self.mnem), reads=self.reads(), writes=self.writes(),
                            mnemonic=self.mnem)

    def text(self) -> str:
        m = self.mnem
        if m in ("lw", "sw"):
            if self.offset is None:
                raise ValueError(f"unresolved stack slot {self.slot} in {m}")
            reg = self.dst if m == "lw" else self.srcs[0]
            ops = [reg, f"{self.offset}({self.base})"]
        else:
            ops = ([self.dst] if self.dst else []) + list(self.srcs)
            if self.imm is not None:
                ops.append(str(_signed(self.imm)) if m != "lui" else f"{self.imm:#x}")
        line = f"{m:<6} " + ", ".join(ops) if ops else m
        return line + (f"    # {self.note}" if self.note else "")

    def __str__(self) -> str:
        return self.text()


def _signed(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def lw(dst: str, base: str, offset: int = 0, note: str = "") -> Insn:
    return Insn("lw", dst=dst, base=base, offset=offset, note=note)


def sw(src: str, base: str, offset: int = 0, note: str = "") -> Insn:
    return Insn("sw", srcs=(src,), base=base, offset=offset, note=note)


def lw_slot(dst: str, slot: int, note: str = "") -> Insn:
    return Insn("lw", dst=dst, base="sp", slot=slot, note=note)


def sw_slot(src: str, slot: int, note: str = "") -> Insn:
    return Insn("sw", srcs=(src,), base="sp", slot=slot, note=note)


def add_sp(n: int) -> Insn:
    if not is_imm(n):
        raise ValueError(f"frame of {n} bytes: not one addi")
    return Insn("addi", dst="sp", srcs=("sp",), imm=n & 0xFFFFFFFF)


def save(regs) -> list:
    """regs[i] to [sp + 4 i] after sp -= 4 len(regs) (the stack kept 16-byte aligned)."""
    n = -(-4 * len(regs) // 16) * 16
    return [add_sp(-n)] + [sw(r, "sp", 4 * i, note="save") for i, r in enumerate(regs)]


def restore_and_return(regs) -> list:
    n = -(-4 * len(regs) // 16) * 16
    return [lw(r, "sp", 4 * i, note="restore") for i, r in enumerate(regs)] + [add_sp(n), Insn("ret")]


def access(insn: Insn) -> str:
    if insn.mnem in NO_MEMORY:
        return "none"
    return {"lw": "load", "sw": "store"}.get(insn.mnem, "barrier")


def resolve(insn: Insn, slot_offset: Callable[[int], int]) -> Insn:
    return insn if insn.slot is None else replace(insn, offset=slot_offset(insn.slot))


def check_core(insns, core: str) -> None:
    """Every instruction here is RV32I (the E31 has all of them)."""
    bad = [i for i in insns if class_of_mnemonic(i.mnem) in ("mul", "div", "csr")]
    if bad:
        raise ValueError(f"unexpected instruction in a generated kernel: {bad[0].text()}")


def function_lines(sym: str, body: list) -> list:
    return ([f'.pushsection .text.{sym},"ax",@progbits', ".balign 4", f".globl {sym}",
             f".type {sym}, @function", f"{sym}:"] + list(body) + [f".size {sym}, .-{sym}", ".popsection"])


def lower(op: ir.Op, reg: Callable[[int], str], base: Callable[[str], str]) -> Insn:
    """One IR op (already split for RV32: no shifted operand, no bic/orn/ror) -> one instruction;
    a ``movc`` becomes a placeholder ``li`` that ``expand_constants`` turns into LUI/ADDI."""
    k = op.kind
    if k == "ld":
        return lw(reg(op.dst), base(op.mem), 4 * op.index)
    if k == "st":
        return sw(reg(op.a), base(op.mem), 4 * op.index)
    if k == "movc":
        return Insn("li", dst=reg(op.dst), imm=op.imm)
    if op.shift is not None or k in ("bic", "orn", "ror"):
        raise ValueError(f"not split for RV32: {op}")
    if k in _SHIFT:
        return Insn(_SHIFT[k], dst=reg(op.dst), srcs=(reg(op.a),), imm=op.imm)
    if k == "mov":
        return Insn("mv", dst=reg(op.dst), srcs=(reg(op.b),))
    if k == "mvn":
        return Insn("not", dst=reg(op.dst), srcs=(reg(op.b),))
    if op.imm is not None:
        if not is_imm(op.imm):
            raise ValueError(f"not an RV32 immediate: {op.imm:#x} in {op}")
        return Insn(_RI[k], dst=reg(op.dst), srcs=(reg(op.a),), imm=op.imm)
    return Insn(_RR[k], dst=reg(op.dst), srcs=(reg(op.a), reg(op.b)))


def expand_constants(insns: list) -> list:
    out = []
    for i in insns:
        if i.mnem == "li" and not is_imm(i.imm):
            v = i.imm & 0xFFFFFFFF
            lo = (v & 0xFFF) - 0x1000 if v & 0x800 else v & 0xFFF
            hi = ((v - lo) >> 12) & 0xFFFFF
            out.append(Insn("lui", dst=i.dst, imm=hi, note=i.note))
            if lo:
                out.append(Insn("addi", dst=i.dst, srcs=(i.dst,), imm=lo & 0xFFFFFFFF))
        elif i.mnem == "li":
            out.append(Insn("addi", dst=i.dst, srcs=("zero",), imm=i.imm, note=i.note))
        else:
            out.append(i)
    return out


RV32 = Isa(
    name="rv32", allocatable=ALLOCATABLE, sp="sp", frame_regs=frozenset({"zero", "sp", "gp", "tp"}),
    arg_regs=ARG_REGS, stack_arg_regs=(), callee_saved=CALLEE_SAVED, link="ra", word_bytes=4,
    stack_align=16, is_imm=is_imm, lower=lower, expand_constants=expand_constants,
    load=lw, load_slot=lw_slot, store_slot=sw_slot, store_pair=None, resolve=resolve, access=access,
    save=save, restore_and_return=restore_and_return, add_sp=add_sp, check_core=check_core,
    function_lines=function_lines, c_asm=c_asm)
