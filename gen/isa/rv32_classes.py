"""Which timing class (gen/cores/sifive_e31.py) an RV32IMAC mnemonic belongs to, and which of
its register operands it writes.

Mnemonics are in capstone's spelling (the emulator's bridge, emu/platforms/rv32_classify.py,
decodes with capstone) and in the assembler's (a generator printing RV32 uses the same names);
a compressed instruction's ``c.`` prefix is dropped first: C.LW costs what LW costs.
"""
from __future__ import annotations

_WORD_LOADS = {"lw", "lwsp", "lr.w"}
_SUB_LOADS = {"lh", "lhu", "lb", "lbu"}
_STORES = {"sw", "swsp", "sh", "sb", "sc.w"}
_MULS = {"mul", "mulh", "mulhu", "mulhsu"}
_DIVS = {"div", "divu", "rem", "remu"}
_BRANCHES = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz",
             "bgtz", "bgt", "ble", "bgtu", "bleu"}
_JUMPS = {"jal", "j"}
_JUMPRS = {"jalr", "jr", "ret"}
_CSRS = {"csrr", "csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci", "rdcycle", "rdtime",
         "rdinstret", "rdcycleh", "csrw", "csrs", "csrc"}
#: compressed two-operand forms that read their destination too (C.ADD rd, rs: rd = rd + rs)
C_READS_DEST = {"add", "addi", "and", "andi", "or", "xor", "sub", "slli", "srli", "srai"}
#: instructions whose first register operand is read, not written
NO_DEST = _STORES - {"sc.w"} | _BRANCHES | {"j", "jr", "ret", "fence", "ecall", "ebreak", "nop"}


def base_mnemonic(mnemonic: str) -> str:
    m = mnemonic.lower()
    return m[2:] if m.startswith("c.") else m


def class_of_mnemonic(mnemonic: str) -> str:
    """The timing class of an RV32IMAC mnemonic (any spelling capstone or gas prints)."""
    m = base_mnemonic(mnemonic)
    if m in _WORD_LOADS or m.startswith("amo"):
        return "lw"
    if m in _SUB_LOADS:
        return "lsub"
    if m in _STORES:
        return "store"
    if m in _MULS:
        return "mul"
    if m in _DIVS:
        return "div"
    if m in _BRANCHES:
        return "branch"
    if m in _JUMPS:
        return "jump"
    if m in _JUMPRS:
        return "jumpr"
    if m in _CSRS:
        return "csr"
    return "alu"


def links(mnemonic: str, n_reg_operands: int) -> bool:
    """True when a jump writes the return address into ra without naming it (``jal off``,
    ``c.jal``, ``c.jalr rs``, ``jalr rs``)."""
    m = mnemonic.lower()
    if m in ("c.jal", "c.jalr"):
        return True
    return m in ("jal", "jalr") and n_reg_operands <= 1
