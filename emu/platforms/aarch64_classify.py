"""What the constant-time checker (emu/ct/checker.py) needs to read AArch64 code: a capstone A64
disassembler, and the instructions whose time may depend on their operand values.

On the A-class cores we target, the Cryptography Extension's AESE/AESMC/PMULL/PMULL2 and the
NEON logic, shifts, permutes and adds are data-independent (fixed latency in the cores' software
optimisation guides); so are the integer ALU, multiplies (MUL/MADD/UMULL...) and loads/stores
apart from their addresses, which the checker records anyway. Integer division (UDIV/SDIV) may
end early: its operand class is recorded as (bit length of the dividend, bit length of the
divisor), stricter than any core needs. Nothing in a drop divides by a variable today; the class
is there so that a future one would be caught.
"""
from __future__ import annotations

import capstone
from unicorn import arm64_const as A

DIVIDES = ("udiv", "sdiv")


def disassembler():
    md = capstone.Cs(capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM)
    md.detail = True
    return md


def _reg_id(name: str) -> int:
    return getattr(A, f"UC_ARM64_REG_{name.upper()}")


def divide_class(_mnemonic: str, rn: int, rm: int) -> int:
    """Operand class of a division: both operands' bit lengths (64-bit registers)."""
    return (rn & (2**64 - 1)).bit_length() << 8 | (rm & (2**64 - 1)).bit_length()


def classify(md, code: bytes, address: int):
    """None, or (class function, mnemonic, Rn id, Rm id) for a data-dependent instruction."""
    for i in md.disasm(code, address, 1):
        if i.mnemonic in DIVIDES:
            _, rn, rm = [x.strip() for x in i.op_str.split(",")]
            return divide_class, i.mnemonic, _reg_id(rn), _reg_id(rm)
    return None
