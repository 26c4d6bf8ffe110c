"""What a platform is to the checks: how a drop is compiled and linked for it, how Unicorn runs
it (architecture, mode, CPU model: the core's ISA is enforced), its calling convention, and the
disassembler the constant-time checker and the cycle model read its code with.

One module per platform beside this file (armv7m.py for the Cortex-M cores, host.py for
`portable`'s second place; aarch64.py next), registered in emu/platforms/__init__.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Platform:
    name: str
    #: config targets this platform builds and emulates (``portable`` is emulated on a core too)
    targets: tuple[str, ...]
    #: the C compiler driver for firmware, and the binutils prefix (``{prefix}size``, ``nm``, ...)
    cc: str
    binutils: str
    #: Debian packages that bring them (the Makefile's set-up installs these)
    apt_packages: tuple[str, ...]
    #: compiler flags that select each core (``-mcpu=...``)
    core_flags: Mapping[str, tuple[str, ...]]
    #: the core each target is emulated on (``portable`` runs on one of the platform's cores)
    core_of: Mapping[str, str]
    # -- Unicorn ----------------------------------------------------------------------------
    uc_arch: int
    uc_mode: int
    cpu_models: Mapping[str, int]          # core -> UC_CPU_* (set with ctl_set_cpu_model)
    arg_regs: tuple[int, ...]              # registers of the first arguments, in order
    stack_slot: int                        # bytes per further argument on the stack
    sp: int
    lr: int                                # where the return address goes
    pc: int
    ret: int                               # the return value
    entry_bit: int = 0                     # OR-ed into entry and return addresses (Thumb: 1)
    stack_align: int = 8
    # -- reading its code --------------------------------------------------------------------
    capstone: tuple[int, int] = (0, 0)     # (CS_ARCH_*, CS_MODE_*)
    #: what a user's gcc compile without -ffreestanding adds to find the C library's headers
    #: (a bare-metal gcc with no libc of its own: riscv64-unknown-elf-gcc takes picolibc's)
    hosted_cflags: tuple[str, ...] = ()
    notes: Mapping[str, str] = field(default_factory=dict)

    def core(self, target: str) -> str:
        if target not in self.core_of:
            raise ValueError(f"platform {self.name} does not run target {target!r}; it runs "
                             f"{', '.join(self.core_of)}")
        return self.core_of[target]

    def disassembler(self):
        """A capstone disassembler of this platform's code, with instruction details on."""
        import capstone
        md = capstone.Cs(*self.capstone)
        md.detail = True
        return md

    def tool(self, name: str) -> str:
        """A binutils program of this platform (``size``, ``nm``, ``objcopy``, ``as``)."""
        return f"{self.binutils}{name}"
