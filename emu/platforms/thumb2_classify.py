"""Capstone Thumb-2 instructions as timing records: the emulator's side of the one timing table.

``classify_capstone(insn)`` maps a decoded instruction (capstone, ``detail=True``) onto a
``gen.cores.timing.Insn``: its class (by ``gen/isa/thumb2_classes.py``, the function the
generator classes its own instructions with), register-list length, written, read and address
registers.  Used by the cycle model (emu/bench/cycles.py), the constant-time checker (emu/ct/checker.py)
and the tests that check the generator's classes against the assembled bytes.
"""
from __future__ import annotations

from gen.cores import timing as T
from gen.isa.thumb2_classes import base_mnemonic, class_of_mnemonic

_REG_ALIASES = {"sb": "r9", "sl": "r10", "fp": "r11", "ip": "r12", "r13": "sp", "r14": "lr",
                "r15": "pc"}
_IGNORED_REGS = frozenset({"itstate", "cpsr", "apsr", "apsr_nzcv", "fpscr", "pc"})


def reg_name(insn, reg_id: int) -> str:
    n = insn.reg_name(reg_id)
    return _REG_ALIASES.get(n, n)


def classify_capstone(insn) -> T.Insn:
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
        if m in ("push", "pop", "vpush", "vpop"):
            addr.add("sp")
            n = len(reg_ops)
        else:
            addr.add(reg_ops[0])
            n = len(reg_ops) - 1
    if cls == "branch" and it_pred:
        cls = "bcond"
    if m in ("cbz", "cbnz"):
        it_pred = True
    return T.Insn(cls=cls, n=n, writes=writes, addr_regs=frozenset(addr - {"pc"}) if cls != "tbb"
                else frozenset(addr), reads=reads, cond=it_pred, mnemonic=m,
                address=insn.address, size=insn.size, cc=cc, operands=tuple(reg_ops))


def thumb_disassembler():
    """A capstone Thumb (M-class) disassembler with details on (the ARMv7-M platform's)."""
    from emu.platforms import ARMV7M
    return ARMV7M.disassembler()


def classify_bytes(code: bytes, address: int):
    """Disassemble ``code`` at ``address`` and classify each instruction (list of Insn)."""
    md = thumb_disassembler()
    return [classify_capstone(i) for i in md.disasm(code, address)]
