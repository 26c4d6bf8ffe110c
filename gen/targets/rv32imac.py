"""Target `rv32imac`: RV32IMAC cores (SiFive E31 class), the portable target's generated C kernels
(fixsliced AES with the constant-time ctmul GHASH, bitsliced Rijndael-256, SPEEDY) compiled for
RV32 and behind a guard that stops a build for anything else.  The kernels are
gen/targets/portable.py's, unchanged; what differs is where the drop is checked and measured
(Unicorn's E31 model and the E31 cycle model, emu/platforms/rv32imac.py).
"""
from __future__ import annotations

from dataclasses import replace

from gen.config import Config
from gen.targets import portable
from gen.targets.common import KernelSet

TARGET_GUARD = (
    "/* target: rv32imac (RV32IMAC, ILP32; C99 kernels generated for it) */\n"
    "#if !defined(__riscv) || !defined(__riscv_xlen) || __riscv_xlen != 32\n"
    "#error \"this drop is generated for rv32imac: compile it for RV32 (-march=rv32imac -mabi=ilp32)\"\n"
    "#endif")


def kernels(config: Config) -> KernelSet:
    return replace(portable.kernels(config), target_guard=TARGET_GUARD)
