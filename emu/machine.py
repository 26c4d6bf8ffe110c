"""A Cortex-M4 or Cortex-M3 in Unicorn, with the core's own ISA and a guarded memory map.

Unicorn is opened in UC_MODE_THUMB and then given the CPU model (UC_CPU_ARM_CORTEX_M4 or _M3):
with UC_MODE_MCLASS it silently becomes a Cortex-M33 whatever model is asked for, and then M3
code could use DSP instructions unnoticed. FLASH is read/execute only, the input area read
only, and everything outside the map unmapped, so a stray write stops the run with an error
that names the address (see emu/layout.py). Calls follow the AAPCS: four register arguments,
the rest on the stack, LR pointing at a return address where the run stops.
"""
from __future__ import annotations

from unicorn import (Uc, UcError, UC_ARCH_ARM, UC_MODE_THUMB, UC_HOOK_MEM_INVALID,
                     UC_PROT_ALL, UC_PROT_READ, UC_PROT_WRITE, UC_PROT_EXEC,
                     UC_MEM_WRITE_PROT, UC_MEM_WRITE_UNMAPPED, UC_MEM_READ_UNMAPPED,
                     UC_MEM_FETCH_UNMAPPED, UC_MEM_FETCH_PROT, UC_MEM_READ_PROT)
from unicorn.arm_const import (UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3,
                               UC_ARM_REG_SP, UC_ARM_REG_LR, UC_ARM_REG_PC,
                               UC_CPU_ARM_CORTEX_M3, UC_CPU_ARM_CORTEX_M4)

from emu import layout

CPU_MODELS = {"cortex-m4": UC_CPU_ARM_CORTEX_M4, "cortex-m3": UC_CPU_ARM_CORTEX_M3}
ARG_REGS = (UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3)
ACCESS = {UC_MEM_WRITE_PROT: "write to a read-only area", UC_MEM_WRITE_UNMAPPED: "write to unmapped memory",
          UC_MEM_READ_UNMAPPED: "read of unmapped memory", UC_MEM_FETCH_UNMAPPED: "fetch from unmapped memory",
          UC_MEM_FETCH_PROT: "fetch from a non-executable area", UC_MEM_READ_PROT: "read of a protected area"}


class EmulationError(Exception):
    """The emulated code misbehaved: bad access, no return, invalid instruction."""


class Machine:
    def __init__(self, core: str, image: bytes):
        if core not in CPU_MODELS:
            raise ValueError(f"unknown core {core!r}")
        self.core = core
        self.uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB)
        self.uc.ctl_set_cpu_model(CPU_MODELS[core])
        self.uc.mem_map(layout.FLASH_BASE, layout.FLASH_SIZE, UC_PROT_READ | UC_PROT_EXEC)
        self.uc.mem_map(layout.STACK_BASE, layout.STACK_SIZE, UC_PROT_READ | UC_PROT_WRITE)
        self.uc.mem_map(layout.WORK_BASE, layout.WORK_SIZE, UC_PROT_READ | UC_PROT_WRITE)
        self.uc.mem_map(layout.INPUT_BASE, layout.INPUT_SIZE, UC_PROT_READ)
        if len(image) > layout.FLASH_SIZE - 0x1000:
            raise EmulationError(f"image of {len(image)} bytes does not fit FLASH")
        self.uc.mem_write(layout.FLASH_BASE, image)
        self.fault: str | None = None
        self.uc.hook_add(UC_HOOK_MEM_INVALID, self._on_invalid)
        self._work_next = layout.WORK_BASE + layout.WORK_SIZE // 2   # upper half: our buffers
        self._input_next = layout.INPUT_BASE
        self.stack_used = 0

    def _on_invalid(self, uc, access, address, size, value, user_data):
        pc = uc.reg_read(UC_ARM_REG_PC)
        self.fault = f"{ACCESS.get(access, 'bad access')} at {address:#010x} ({size} bytes) by pc {pc:#010x}"
        return False

    # -- buffers ---------------------------------------------------------------------------------
    def reset_buffers(self) -> None:
        self._work_next = layout.WORK_BASE + layout.WORK_SIZE // 2
        self._input_next = layout.INPUT_BASE

    def alloc(self, size: int, data: bytes | None = None, *, readonly: bool = False, align: int = 8,
              offset: int = 0) -> int:
        """Reserve a buffer (optionally filled); `offset` misaligns it on purpose."""
        if readonly:
            addr = (self._input_next + align - 1) // align * align + offset
            self._input_next = addr + size
            limit = layout.INPUT_BASE + layout.INPUT_SIZE
        else:
            addr = (self._work_next + align - 1) // align * align + offset
            self._work_next = addr + size
            limit = layout.WORK_BASE + layout.WORK_SIZE
        if addr + size > limit:
            raise EmulationError(f"buffer of {size} bytes does not fit the {'input' if readonly else 'work'} area")
        if data is not None:
            self.uc.mem_write(addr, bytes(data))
        else:
            self.uc.mem_write(addr, bytes(size))
        return addr

    def read(self, addr: int, size: int) -> bytes:
        return bytes(self.uc.mem_read(addr, size))

    def write(self, addr: int, data: bytes) -> None:
        self.uc.mem_write(addr, bytes(data))

    # -- calls -----------------------------------------------------------------------------------
    def call(self, func: int, *args: int, max_instructions: int = 0, timeout_s: float = 120.0) -> int:
        """Call `func` (an address without the Thumb bit) under the AAPCS; return r0."""
        uc = self.uc
        top = layout.STACK_BASE + layout.STACK_SIZE
        stack_args = [a & 0xFFFFFFFF for a in args[4:]]
        sp = (top - 4 * len(stack_args)) & ~7
        uc.mem_write(layout.STACK_BASE, bytes([layout.STACK_PAINT]) * (sp - layout.STACK_BASE))
        for i, value in enumerate(stack_args):
            uc.mem_write(sp + 4 * i, value.to_bytes(4, "little"))
        for reg, value in zip(ARG_REGS, args[:4]):
            uc.reg_write(reg, value & 0xFFFFFFFF)
        uc.reg_write(UC_ARM_REG_SP, sp)
        uc.reg_write(UC_ARM_REG_LR, layout.RETURN_ADDRESS | 1)
        self.fault = None
        try:
            uc.emu_start(func | 1, layout.RETURN_ADDRESS, timeout=int(timeout_s * 1e6), count=max_instructions)
        except UcError as exc:
            pc = uc.reg_read(UC_ARM_REG_PC)
            raise EmulationError(self.fault or f"{exc} at pc {pc:#010x}") from None
        pc = uc.reg_read(UC_ARM_REG_PC)
        if pc != layout.RETURN_ADDRESS:
            raise EmulationError(f"call to {func:#x} did not return (stopped at pc {pc:#010x}; "
                                 f"budget {max_instructions} instructions, {timeout_s} s)")
        self.stack_used = self._stack_depth(sp)
        return uc.reg_read(UC_ARM_REG_R0)

    def _stack_depth(self, sp: int) -> int:
        """Bytes below the entry SP that the call wrote (the paint is gone there)."""
        painted = bytes(self.uc.mem_read(layout.STACK_BASE, sp - layout.STACK_BASE))
        return len(painted.lstrip(bytes([layout.STACK_PAINT])))
