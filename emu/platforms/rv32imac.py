"""RV32IMAC: the SiFive E31 (FE310, HiFive1) and cores like it: the `rv32imac` target.

Compilers: Debian's riscv64-unknown-elf-gcc with -march=rv32imac -mabi=ilp32, the multilib it
ships (``-march=rv32imac_zicsr`` selects no multilib in gcc 12 and would link the rv64 libgcc;
nothing here reads a CSR), and clang --target=riscv32-unknown-elf (emu/vendoring/flagsets.py).
-mno-relax everywhere: nothing sets ``__global_pointer$``, and a relaxed ``la`` would become
gp-relative (DESIGN.md, RISC-V pitfalls); gcc passes it on to the linker as --no-relax.

Unicorn is opened as ``Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)`` and given the SiFive E31 CPU model
(IMAC): the default 32-bit model has F and D, so an FPU instruction would pass unseen there.
Unicorn 2.1 executes I, M, A, F, D, C only (no Zbb/Zbc/Zkn: ``andn``, ``rori``, ``clmul`` and
``aes32*`` raise UC_ERR_EXCEPTION), so the drops use RV32IMAC only. ILP32: a0-a7, then 4-byte
stack slots; the return address in ra (no entry bit), the result in a0; sp 16-byte aligned.
"""
from __future__ import annotations

import capstone
from unicorn import UC_ARCH_RISCV, UC_MODE_RISCV32
from unicorn import riscv_const as R

from emu.platforms.base import Platform

MARCH = ("-march=rv32imac", "-mabi=ilp32", "-mno-relax")

RV32IMAC = Platform(
    name="rv32imac",
    targets=("rv32imac",),
    cc="riscv64-unknown-elf-gcc",
    binutils="riscv64-unknown-elf-",
    apt_packages=("gcc-riscv64-unknown-elf", "picolibc-riscv64-unknown-elf", "llvm-19", "clang"),
    core_flags={"sifive-e31": MARCH},
    core_of={"rv32imac": "sifive-e31"},
    uc_arch=UC_ARCH_RISCV,
    uc_mode=UC_MODE_RISCV32,
    cpu_models={"sifive-e31": R.UC_CPU_RISCV32_SIFIVE_E31},
    arg_regs=tuple(getattr(R, f"UC_RISCV_REG_A{i}") for i in range(8)),
    stack_slot=4,
    sp=R.UC_RISCV_REG_SP,
    lr=R.UC_RISCV_REG_RA,
    pc=R.UC_RISCV_REG_PC,
    ret=R.UC_RISCV_REG_A0,
    entry_bit=0,
    stack_align=16,
    capstone=(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32 | capstone.CS_MODE_RISCVC),
    hosted_cflags=("--specs=picolibc.specs",),
)

#: clang's target and core flags (emu/vendoring/flagsets.py)
CLANG_FLAGS = ("--target=riscv32-unknown-elf", *MARCH)

#: registers a caller may leave anything in (t0-t6, s0-s11): the constant-time checker zeroes
#: them before each call so every run starts alike
SCRATCH_REGS = tuple(getattr(R, f"UC_RISCV_REG_{r}") for r in
                     (*(f"T{i}" for i in range(7)), *(f"S{i}" for i in range(12))))
