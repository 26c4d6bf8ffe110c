"""ARMv8-A, AArch64 state, with the Cryptography Extension (AESE/AESMC, PMULL/PMULL2): the
`armv8a` target.

Unicorn is opened as ``Uc(UC_ARCH_ARM64, UC_MODE_ARM)`` and given the Cortex-A72 CPU model:
it has AES and PMULL but not the SHA-3 extension, so a kernel that used EOR3/BCAX would fault
there (DESIGN.md, Unicorn pitfalls). The `armv8a-max` core (UC_CPU_ARM64_MAX) has SHA-3 too:
it is the one to run a kernel that is meant to use EOR3. FP/SIMD is enabled by default in
unicorn 2.1.4. AAPCS64: x0-x7, then 8-byte stack slots; the return address in x30 (no entry
bit); the result in x0. Firmware is built with aarch64-linux-gnu-gcc as a freestanding static
image at the same memory map as the Cortex-M one (emu/machines/layout.py).
"""
from __future__ import annotations

import capstone
from unicorn import UC_ARCH_ARM64, UC_MODE_ARM
from unicorn import arm64_const as A

from emu.platforms.base import Platform

#: -march of each core: the Cryptography Extension always; SHA-3 (EOR3) on `armv8a-max`
MARCH = {"cortex-a72": "armv8-a+crypto", "armv8a-max": "armv8.2-a+crypto+sha3"}

AARCH64 = Platform(
    name="aarch64",
    targets=("armv8a",),
    cc="aarch64-linux-gnu-gcc",
    binutils="aarch64-linux-gnu-",
    apt_packages=("gcc-aarch64-linux-gnu", "g++-aarch64-linux-gnu", "libc6-dev-arm64-cross", "llvm-19", "qemu-user"),
    core_flags={core: (f"-march={march}",) for core, march in MARCH.items()},
    core_of={"armv8a": "cortex-a72"},
    uc_arch=UC_ARCH_ARM64,
    uc_mode=UC_MODE_ARM,
    cpu_models={"cortex-a72": A.UC_CPU_ARM64_A72, "armv8a-max": A.UC_CPU_ARM64_MAX},
    arg_regs=tuple(getattr(A, f"UC_ARM64_REG_X{i}") for i in range(8)),
    stack_slot=8,
    sp=A.UC_ARM64_REG_SP,
    lr=A.UC_ARM64_REG_X30,
    pc=A.UC_ARM64_REG_PC,
    ret=A.UC_ARM64_REG_X0,
    entry_bit=0,
    stack_align=16,
    capstone=(capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM),
)

#: registers a caller may leave anything in (x9-x15 temporaries, x19-x28 callee-saved): the
#: constant-time checker zeroes them before each call so every run starts alike
SCRATCH_REGS = tuple(getattr(A, f"UC_ARM64_REG_X{i}") for i in (*range(9, 16), *range(19, 29)))
