"""Target `rv32imac`: RV32IMAC cores (SiFive E31 class).  AES-GCM: fixsliced AES as generated
RV32I assembly (gen/kernels/aes/rv32.py: the IR split for RV32, scheduled and allocated onto its
registers) with the portable target's C key schedule, ctmul GHASH and CTR/FACE glue; the block
ciphers (Rijndael-256, SPEEDY, AES ecb/ctr): the portable target's generated C kernels compiled
for RV32.  Everything sits behind a guard that stops a build for anything else; the drops are
checked in Unicorn's E31 model and measured by the E31 cycle model (emu/platforms/rv32imac.py).
"""
from __future__ import annotations

from dataclasses import replace

from gen.config import Config
from gen.kernels.aes import rv32 as aes_rv32
from gen.targets import portable
from gen.targets.common import KernelSet

TARGET_GUARD = (
    "/* target: rv32imac (RV32IMAC, ILP32; C99 kernels generated for it) */\n"
    "#if !defined(__riscv) || !defined(__riscv_xlen) || __riscv_xlen != 32\n"
    "#error \"this drop is generated for rv32imac: compile it for RV32 (-march=rv32imac -mabi=ilp32)\"\n"
    "#endif")


def kernels(config: Config) -> KernelSet:
    ks = replace(portable.kernels(config), target_guard=TARGET_GUARD)
    if config.mode != "gcm":
        return ks
    code, c, seed = aes_rv32.rv32_c(config.prefix, 8 * config.spec.key_bytes, config.slicing)
    # sections[0] is the AES code (portable.aes_gcm_kernels' order): its C encrypt2 is replaced
    return replace(ks, sections=[code] + ks.sections[1:], file_scope_asm=True,
                   kernel_cycles={"aes_encrypt2": c.cycles},
                   kernel_facts={"aes_encrypt2": {"seed": seed, "rv32_ops": c.n_ops, "rotations": c.rotations,
                                                  "spills": c.spills, "reloads": c.reloads,
                                                  "saved_registers": len(c.saved),
                                                  "free_registers": len(aes_rv32.REGS) - c.used_regs}})
