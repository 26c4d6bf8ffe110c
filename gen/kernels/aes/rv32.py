"""Fixsliced AES, two blocks per call, generated as RV32I assembly (issue 36, step 3): the same
IR as every other AES kernel (gen/kernels/aes/fixsliced.encrypt2_ir) through
gen/kernels/rv32_function.py (split for RV32: rotations become three instructions; scheduled,
allocated onto RV32's registers, scheduled again for the E31's latencies), beside the portable
target's C key schedule.
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.kernels import rv32_function as F
from gen.kernels.aes import fixsliced as AF

#: the registers the kernels may give values (a0-a2 hold rk, out, in)
REGS = F.REGS


def compile_encrypt2(keybits: int, slicing: str, seed: int = 0, circuit: str = aes_sbox.DEFAULT) -> F.Compiled:
    return F.compile_function(AF.encrypt2_ir(keybits, slicing, circuit), seed)


def rv32_c(prefix: str, keybits: int, slicing: str, seeds=F.SEEDS):
    """(C text, Compiled): the C key schedule (gen/kernels/aes/portable.py), then the cheapest
    kernel over ``seeds`` as ``{prefix}_aes_encrypt2`` on byte buffers (rv32_function.c_text)."""
    from gen.kernels.aes import portable
    c = F.cheapest(AF.encrypt2_ir(keybits, slicing, aes_sbox.DEFAULT), seeds)
    text = (portable.head_c(keybits, slicing) + portable.keyschedule_c(prefix, keybits, slicing) + "\n"
            + F.c_text(f"{prefix}_aes_encrypt2", c, 8, 8, f"AES-{keybits} ({slicing}) on two blocks"))
    return text, c
