"""An emulated core in Unicorn, with the core's own ISA and a guarded memory map.

The platform (emu/platforms) gives the Unicorn architecture, mode and CPU model of the core
and its calling convention: for the Cortex-M4 and M3, UC_MODE_THUMB plus the core's CPU model
(see emu/platforms/armv7m.py for why not UC_MODE_MCLASS). FLASH is read/execute only, the
input area read only, and everything outside the map unmapped, so a stray write stops the run
with an error that names the address (see emu/machines/layout.py). Calls follow the platform's
convention: register arguments, the rest on the stack, the link register pointing at a return
address where the run stops.
"""
from __future__ import annotations

from unicorn import (Uc, UcError, UC_HOOK_MEM_INVALID,
                     UC_PROT_READ, UC_PROT_WRITE, UC_PROT_EXEC,
                     UC_MEM_WRITE_PROT, UC_MEM_WRITE_UNMAPPED, UC_MEM_READ_UNMAPPED,
                     UC_MEM_FETCH_UNMAPPED, UC_MEM_FETCH_PROT, UC_MEM_READ_PROT)

from emu import platforms

from emu.machines import layout

from emu.machines import watchdog

ACCESS = {UC_MEM_WRITE_PROT: "write to a read-only area", UC_MEM_WRITE_UNMAPPED: "write to unmapped memory",
          UC_MEM_READ_UNMAPPED: "read of unmapped memory", UC_MEM_FETCH_UNMAPPED: "fetch from unmapped memory",
          UC_MEM_FETCH_PROT: "fetch from a non-executable area", UC_MEM_READ_PROT: "read of a protected area"}


_PAGE = 4096
_PAINT = bytes([layout.STACK_PAINT]) * _PAGE


class EmulationError(Exception):
    """The emulated code misbehaved: bad access, no return, invalid instruction."""


class Machine:
    def __init__(self, core: str, image: bytes):
        plat = next((p for p in platforms.PLATFORMS.values() if core in p.cpu_models), None)
        if plat is None:
            raise ValueError(f"unknown core {core!r}")
        self.core = core
        self.platform = plat
        self.uc = Uc(plat.uc_arch, plat.uc_mode)
        self.uc.ctl_set_cpu_model(plat.cpu_models[core])
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
        pc = uc.reg_read(self.platform.pc)
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
        """Call `func` (an address without the Thumb bit) under the platform's calling
        convention; return the result register."""
        uc, plat = self.uc, self.platform
        nreg, slot = len(plat.arg_regs), plat.stack_slot
        mask = (1 << (8 * slot)) - 1
        top = layout.STACK_BASE + layout.STACK_SIZE
        stack_args = [a & mask for a in args[nreg:]]
        sp = (top - slot * len(stack_args)) & ~(plat.stack_align - 1)
        uc.mem_write(layout.STACK_BASE, bytes([layout.STACK_PAINT]) * (sp - layout.STACK_BASE))
        for i, value in enumerate(stack_args):
            uc.mem_write(sp + slot * i, value.to_bytes(slot, "little"))
        for reg, value in zip(plat.arg_regs, args[:nreg]):
            uc.reg_write(reg, value & mask)
        uc.reg_write(plat.sp, sp)
        uc.reg_write(plat.lr, layout.RETURN_ADDRESS | plat.entry_bit)
        self.fault = None
        try:
            with watchdog.limit(uc, timeout_s) as job:
                uc.emu_start(func | plat.entry_bit, layout.RETURN_ADDRESS, count=max_instructions)
        except UcError as exc:
            pc = uc.reg_read(plat.pc)
            raise EmulationError(self.fault or f"{exc} at pc {pc:#010x}") from None
        pc = uc.reg_read(plat.pc)
        if pc != layout.RETURN_ADDRESS:
            why = f"stopped after {timeout_s} s" if job[2] else f"budget {max_instructions} instructions, {timeout_s} s"
            raise EmulationError(f"call to {func:#x} did not return (stopped at pc {pc:#010x}; {why})")
        self.stack_used = self._stack_depth(sp)
        return uc.reg_read(plat.ret)

    def _stack_depth(self, sp: int) -> int:
        """Bytes below the entry SP that the call wrote (the paint is gone there): the lowest
        byte that is not paint, found a page at a time (bytes.lstrip over 64 KiB is slower)."""
        n = sp - layout.STACK_BASE
        painted = bytes(self.uc.mem_read(layout.STACK_BASE, n))
        for at in range(0, n, _PAGE):
            page = painted[at:at + _PAGE]
            if page != _PAINT[:len(page)]:
                return n - at - (len(page) - len(page.lstrip(_PAINT[:1])))
        return 0
