"""qemu-aarch64 user mode: the second place an armv8a drop is checked (beside Unicorn).

The drop and the batch driver (emu/machines/driver.c, with emu/checks/qemu_main.c around it) are compiled as a
static Linux AArch64 program, and the same NIST, McGrew-Viega and differential cases go through
``qemu-aarch64 -cpu CPU`` (cortex-a72: AES and PMULL but no SHA-3, so an EOR3 kernel would fault
there too; max for the EOR3 variant). A different emulator and a different way in (a process,
the C library's start-up, glibc's memory) from Unicorn's.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from emu.machines import toolchain

from emu.checks import vectors
from emu.machines.toolchain import BuildError

QEMU = "qemu-aarch64"
MAIN = Path(__file__).resolve().parent / "qemu_main.c"
#: the -cpu of each emulated core
QEMU_CPU = {"cortex-a72": "cortex-a72", "armv8a-max": "max"}


def build_program(plat, header: Path, prefix: str, core: str, workdir: Path) -> Path:
    exe = workdir / "qemu_driver"
    toolchain.run([toolchain.tool(plat.cc), *plat.core_flags[core], *toolchain.STRICT, "-static",
                   *toolchain.driver_defines(header, prefix), str(toolchain.DRIVER), str(MAIN), "-o", str(exe)],
                  workdir)
    return exe


class QemuRunner:
    """Batches of cases through the program under qemu-aarch64 (same interface as EmuRunner)."""

    def __init__(self, program: Path, core: str, codec=vectors):
        self.program, self.cpu, self.codec = program, QEMU_CPU[core], codec
        self.qemu = toolchain.tool(QEMU)

    def run(self, cases: list) -> list[tuple]:
        from emu.checks.runner import batches
        results = []
        for batch in batches(cases, self.codec):
            size = self.codec.result_size(batch)
            proc = subprocess.run([self.qemu, "-cpu", self.cpu, str(self.program), str(len(batch)), str(size)],
                                  input=self.codec.encode(batch), capture_output=True, timeout=600)
            if proc.returncode != 0 or len(proc.stdout) != size:
                raise BuildError(f"{self.program.name} under {QEMU} -cpu {self.cpu} failed "
                                 f"(status {proc.returncode}): {proc.stderr.decode(errors='replace')[:300]}")
            results += self.codec.decode(batch, proc.stdout)
        return results
