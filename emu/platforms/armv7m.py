"""ARMv7-M: the Cortex-M4 (ARMv7E-M, with the DSP instructions) and the Cortex-M3 (ARMv7-M).

Unicorn is opened in UC_MODE_THUMB and given the core's CPU model: with UC_MODE_MCLASS it
silently becomes a Cortex-M33 whatever model is asked for, and M3 code could then use DSP
instructions unnoticed (DESIGN.md, Unicorn pitfalls). Thumb entry and return addresses carry
bit 0. AAPCS: r0-r3, then 4-byte stack slots; the return address in lr, the result in r0.
`portable` drops are emulated on the Cortex-M4.
"""
from __future__ import annotations

import capstone
from unicorn import UC_ARCH_ARM, UC_MODE_THUMB
from unicorn import arm_const as A

from emu.platforms.base import Platform

ARMV7M = Platform(
    name="armv7m",
    targets=("cortex-m4", "cortex-m3", "portable"),
    cc="arm-none-eabi-gcc",
    binutils="arm-none-eabi-",
    apt_packages=("gcc-arm-none-eabi", "libnewlib-arm-none-eabi"),
    core_flags={"cortex-m4": ("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft"),
                "cortex-m3": ("-mcpu=cortex-m3", "-mthumb")},
    core_of={"cortex-m4": "cortex-m4", "cortex-m3": "cortex-m3", "portable": "cortex-m4"},
    uc_arch=UC_ARCH_ARM,
    uc_mode=UC_MODE_THUMB,
    cpu_models={"cortex-m4": A.UC_CPU_ARM_CORTEX_M4, "cortex-m3": A.UC_CPU_ARM_CORTEX_M3},
    arg_regs=(A.UC_ARM_REG_R0, A.UC_ARM_REG_R1, A.UC_ARM_REG_R2, A.UC_ARM_REG_R3),
    stack_slot=4,
    sp=A.UC_ARM_REG_SP,
    lr=A.UC_ARM_REG_LR,
    pc=A.UC_ARM_REG_PC,
    ret=A.UC_ARM_REG_R0,
    entry_bit=1,
    stack_align=8,
    capstone=(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS),
)
