"""Capstone RV32IMAC instructions as timing records (gen/cores/inorder.Insn), and what the
constant-time checker (emu/ct/checker.py) needs to read RV32 code.

Classes come from ``gen/isa/rv32_classes.py`` (the same function a generator classes its own
instructions with).  Data-dependent time on the E31 (FE310-G000 manual, section 3.3): only
DIV/DIVU/REM/REMU (2..33 cycles by operand values); MUL/MULH/MULHU/MULHSU have a fixed 5-cycle
latency and loads/stores a fixed one apart from their addresses, which the checker records
anyway.  A division's operand class is (bit length of rs1, bit length of rs2): stricter than the
model's quotient-bit count (gen/cores/inorder.divide_latency).  No drop divides today; the class
is there so that a future one would be caught.
"""
from __future__ import annotations

import capstone
from unicorn import riscv_const as R

from gen.cores import inorder
from gen.isa import rv32_classes as K
from emu.platforms.rv32imac import RV32IMAC, SCRATCH_REGS

__all__ = ["disassembler", "classify", "classify_capstone", "divide_class", "reg_id", "SCRATCH_REGS"]


def disassembler():
    return RV32IMAC.disassembler()


def reg_id(name: str) -> int:
    return getattr(R, f"UC_RISCV_REG_{name.upper()}")


def classify_capstone(insn) -> inorder.Insn:
    """Map a capstone RISC-V instruction (``detail=True``) onto an ``inorder.Insn``."""
    m = insn.mnemonic.lower()
    base = K.base_mnemonic(m)
    cls = K.class_of_mnemonic(m)
    regs, reads = [], set()
    for o in insn.operands:
        if o.type == capstone.riscv.RISCV_OP_REG:
            regs.append(insn.reg_name(o.reg))
        elif o.type == capstone.riscv.RISCV_OP_MEM:
            reads.add(insn.reg_name(o.mem.base))
    writes = set()
    if K.links(m, len(regs)):                      # jal off, c.jal, c.jalr rs, jalr rs: ra implied
        writes.add("ra")
        reads.update(regs)
    elif regs and base not in K.NO_DEST and cls != "store":
        writes.add(regs[0])
        reads.update(regs[1:])
    else:
        reads.update(regs)
    if m.startswith("c.") and base in K.C_READS_DEST and regs:   # c.add rd, rs: rd = rd + rs
        reads.add(regs[0])
    if base in ("swsp", "lwsp", "addi16sp", "addi4spn"):
        reads.add("sp")
    if base == "addi16sp":
        writes.add("sp")
    if base == "ret":
        reads.add("ra")
    return inorder.Insn(cls=cls, reads=frozenset(reads), writes=frozenset(writes), mnemonic=m,
                        address=insn.address, size=insn.size, operands=tuple(regs))


def classify_bytes(code: bytes, address: int) -> list[inorder.Insn]:
    md = disassembler()
    return [classify_capstone(i) for i in md.disasm(code, address)]


def divide_class(_mnemonic: str, rs1: int, rs2: int) -> int:
    """Operand class of a division: both operands' bit lengths (32-bit registers)."""
    return (rs1 & 0xFFFFFFFF).bit_length() << 8 | (rs2 & 0xFFFFFFFF).bit_length()


def classify(md, code: bytes, address: int):
    """None, or (class function, mnemonic, rs1 id, rs2 id) for a data-dependent instruction."""
    for i in md.disasm(code, address, 1):
        if K.class_of_mnemonic(i.mnemonic) == "div":
            _, rs1, rs2 = [x.strip() for x in i.op_str.split(",")]
            return divide_class, i.mnemonic, reg_id(rs1), reg_id(rs2)
    return None
