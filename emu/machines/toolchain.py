"""Compilers: each platform's (emu/platforms: arm-none-eabi-gcc for the Cortex-M cores), and
the host gcc for `portable`'s second place.

Every compile of a drop the build does uses ``build_cflags`` (-std=c99 -Wall -Wextra -Werror
-O2 -ffreestanding and the core's flags): the checks run on that code and every figure is
measured on it; the manifest's ``metrics.compiler`` says so (``compiler_description``). A
drop whose header names REQUIRED_CFLAGS (the Cortex-M4F ones: ``header_cflags``) is compiled
with them added, under the build's flags and under every flag set. Other compilers and flag
sets, as firmware trees use them, are emu/vendoring/flagsets.py's.
A missing compiler is a ConfigError (one line, exit 2), never a skipped check.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gen.errors import ConfigError
from emu import platforms
from emu.machines import layout

DRIVER = Path(__file__).resolve().parent / "driver.c"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]
#: the cores' selecting flags and the Cortex-M compiler, as emu/platforms/armv7m.py has them
CORE_FLAGS = {core: list(flags) for core, flags in platforms.ARMV7M.core_flags.items()}
ARM_GCC = platforms.ARMV7M.cc


def platform_of_core(core: str):
    """The platform (emu/platforms) whose compiler flags select ``core``."""
    for plat in platforms.PLATFORMS.values():
        if core in plat.core_flags:
            return plat
    raise ValueError(f"no platform has core {core!r}")


def build_cflags(core: str) -> list[str]:
    """The flags of the build's own compiles for a core (checks, figures, sizes)."""
    return [*platform_of_core(core).core_flags[core], *STRICT, "-ffreestanding"]


def compiler_description(core: str, extra=()) -> str:
    """`arm-none-eabi-gcc 12.2.1 -mcpu=... -O2 -ffreestanding`: the exact compiler and flags the
    figures of a drop for ``core`` are for (C code's cycles depend on both); ``extra``: the
    drop's own REQUIRED_CFLAGS."""
    cc = platform_of_core(core).cc
    version = run([tool(cc), "-dumpversion"], Path.cwd()).strip()
    return f"{cc} {version} {' '.join([*build_cflags(core), *extra])}"


_REQUIRED = re.compile(r"^ \* REQUIRED_CFLAGS: (.+)$", re.M)


def header_cflags(header: Path) -> list[str]:
    """The flags a drop's header says its build needs (its guard stops the compile without
    them): ``-mfpu=fpv4-sp-d16 -mfloat-abi=softfp`` for spill = "fpu", none for the others."""
    m = _REQUIRED.search(Path(header).read_text())
    return m.group(1).split() if m else []


class BuildError(Exception):
    """The generated code did not compile or link: a generator bug, reported with the log."""


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        hint = "apt-get install " + ("gcc-arm-none-eabi" if name.startswith("arm-none-eabi") else name)
        raise ConfigError(f"{name} not found on PATH; run `make` (it installs it) or `{hint}`")
    return path


def run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def impl_define(prefix: str) -> str:
    return f"-D{prefix.upper()}_IMPLEMENTATION"


def driver_defines(header: Path, prefix: str) -> list[str]:
    return [f"-DSG_PREFIX={prefix}", f'-DSG_HEADER="{header}"', impl_define(prefix)]


def core_of(target: str) -> str:
    """The core a drop is compiled and emulated for (portable C is checked on a Cortex-M4)."""
    return platforms.for_target(target).core(target)


@dataclass
class Firmware:
    elf: Path
    image: bytes                   # FLASH contents from FLASH_BASE
    symbols: dict[str, tuple[int, int]]   # name -> (address, size)
    core: str
    extra_cflags: tuple = ()       # the drop's REQUIRED_CFLAGS it was compiled with

    def addr(self, name: str) -> int:
        return self.symbols[name][0]


def drop_sizes(header: Path, prefix: str, target: str, workdir: Path) -> dict:
    """Compile the drop alone (as a user would) and measure its sections."""
    src = workdir / "drop_only.c"
    src.write_text(f'#define {prefix.upper()}_IMPLEMENTATION\n#include "{header}"\n')
    obj = workdir / "drop_only.o"
    plat = platform_of_core(core_of(target))
    run([tool(plat.cc), *build_cflags(core_of(target)), *header_cflags(header), "-c", str(src), "-o", str(obj)],
        workdir)
    out = run([tool(plat.tool("size")), "-A", str(obj)], workdir)
    sizes = {"text_bytes": 0, "rodata_bytes": 0, "data_bytes": 0}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            if parts[0].startswith(".text"):
                sizes["text_bytes"] += int(parts[1])
            elif parts[0].startswith(".rodata"):
                sizes["rodata_bytes"] += int(parts[1])
            elif parts[0].startswith((".data", ".bss")):
                sizes["data_bytes"] += int(parts[1])
    return sizes


def build_firmware(header: Path, prefix: str, target: str, workdir: Path,
                   extra_sources: tuple[Path, ...] = (), compiler: list[str] | None = None,
                   driver: Path = DRIVER, defines: tuple[str, ...] = ()) -> Firmware:
    """Link a batch driver (the GCM one by default; plus any extra C files and ``-D`` defines)
    with the drop for the emulated core.

    ``compiler``: the command (compiler and flags, no -c/-o) that compiles the C files, by
    default arm-none-eabi-gcc with ``build_cflags``; emu/vendoring/flagsets.py gives users' others. The
    link is always arm-none-eabi-gcc -nostdlib with libgcc only (the compiler's runtime, no
    libc): a call into libc fails it."""
    return link_firmware((driver, *extra_sources), core_of(target), workdir, compiler=compiler,
                         defines=(*driver_defines(header, prefix), *defines), extra_cflags=header_cflags(header))


def link_firmware(sources, core: str, workdir: Path, compiler: list[str] | None = None,
                  defines=(), stem: str = "fw", extra_cflags=()) -> Firmware:
    """The one firmware recipe: compile each C source (``compiler``, default the platform's
    compiler with ``build_cflags``; plus a drop's ``extra_cflags`` and ``defines``), link them at the emulated memory map
    (emu/machines/layout.py) with -nostdlib and libgcc only, and load FLASH (.text, .rodata) as the image.
    Used by the batch drivers' firmware, the GHASH measurement and the tests' harnesses."""
    plat = platform_of_core(core)
    workdir = Path(workdir)
    ld = workdir / "link.ld"
    ld.write_text(layout.LINKER_SCRIPT)
    elf = workdir / f"{stem}.elf"
    cc = [*(compiler or [tool(plat.cc), *build_cflags(core)]), *extra_cflags]
    objects = []
    for i, src in enumerate(sources):
        objects.append(workdir / f"{stem}{i}.o")
        run([*cc, *defines, "-c", str(src), "-o", str(objects[-1])], workdir)
    run([tool(plat.cc), *plat.core_flags[core], "-nostdlib", "-nostartfiles", "-T", str(ld),
         *map(str, objects), "-lgcc", "-o", str(elf)], workdir)
    sizes = run([tool(plat.tool("size")), "-A", str(elf)], workdir)
    for line in sizes.splitlines():
        parts = line.split()
        if parts and parts[0] == ".data" and int(parts[1]) != 0:
            raise BuildError("the firmware has initialised .data; the emulator loads FLASH only")
    binary = workdir / f"{stem}.bin"
    run([tool(plat.tool("objcopy")), "-O", "binary", "-j", ".text", "-j", ".rodata", str(elf),
         str(binary)], workdir)
    return Firmware(elf=elf, image=binary.read_bytes(), symbols=elf_symbols(elf, workdir), core=core,
                    extra_cflags=tuple(extra_cflags))


#: an ELF's e_machine -> the nm that reads it (EM_AARCH64 183, EM_RISCV 243; ARM otherwise)
_NM_OF_MACHINE = {b"\xb7\x00": "aarch64-linux-gnu-nm", b"\xf3\x00": "riscv64-unknown-elf-nm"}


def elf_symbols(elf: Path, workdir: Path) -> dict[str, tuple[int, int]]:
    """{name: (address without the Thumb bit, size)} of an ELF's symbols (``nm -S``; size 0
    for those without one, e.g. labels); an AArch64 ELF (e_machine 183) is read by its nm."""
    symbols = {}
    nm = _NM_OF_MACHINE.get(elf.read_bytes()[18:20], "arm-none-eabi-nm")   # by e_machine
    for line in run([tool(nm), "-S", str(elf)], workdir).splitlines():
        parts = line.split()
        if len(parts) == 4:
            symbols[parts[3]] = (int(parts[0], 16) & ~1, int(parts[1], 16))
        elif len(parts) == 3:
            symbols.setdefault(parts[2], (int(parts[0], 16) & ~1, 0))
    return symbols


def build_host_library(header: Path, prefix: str, workdir: Path, driver: Path = DRIVER,
                       defines: tuple[str, ...] = ()) -> Path:
    """The same driver as a host shared library (portable target), for ctypes, with the host
    platform's compiler (emu/platforms/host.py)."""
    lib = workdir / "driver_host.so"
    host = platforms.HOST
    run([tool(host.cc), *STRICT, *host.flags, *driver_defines(header, prefix), *defines, str(driver),
         "-o", str(lib)], workdir)
    return lib


def assemble(source: str, core: str, workdir: Path) -> bytes:
    """Assemble a Thumb-2 snippet placed at FLASH_BASE into raw bytes (tests, checker fixtures)."""
    src = workdir / "snippet.s"
    src.write_text(".syntax unified\n.thumb\n.text\n" + source + "\n")
    obj, binary = workdir / "snippet.o", workdir / "snippet.bin"
    run([tool("arm-none-eabi-as"), f"-mcpu={core}", "-mthumb", str(src), "-o", str(obj)], workdir)
    run([tool("arm-none-eabi-objcopy"), "-O", "binary", "-j", ".text", str(obj), str(binary)], workdir)
    return binary.read_bytes()


# -- other platforms (emu/platforms): the same firmware recipe with the platform's compiler ------
def build_platform_firmware(plat, header: Path, prefix: str, core: str, workdir: Path,
                            driver: Path = DRIVER, defines: tuple[str, ...] = (),
                            compiler: list[str] | None = None) -> Firmware:
    """Link a batch driver with the drop for `core` of platform `plat` (emu/platforms; today
    aarch64): freestanding, static, no start files, the same memory map and linker script as
    the Cortex-M firmware. ``compiler``: a user's compile command (emu/vendoring/flagsets.py, no -c/-o)
    for the driver and the drop, which are then linked by the platform's compiler the same way."""
    ld = workdir / "link.ld"
    ld.write_text(layout.LINKER_SCRIPT)
    elf = workdir / "fw.elf"
    link = [tool(plat.cc), *plat.core_flags[core], "-nostdlib", "-nostartfiles", "-static", "-no-pie",
            "-Wl,--build-id=none", "-T", str(ld)]
    if compiler is None:
        run([*link, *STRICT, "-ffreestanding", "-fno-pic", "-fno-asynchronous-unwind-tables",
             *driver_defines(header, prefix), *defines, str(driver), "-lgcc", "-o", str(elf)], workdir)
    else:
        obj = workdir / "fw0.o"     # -fno-pic: no GOT, since the emulator loads .text and .rodata only
        run([*compiler, "-fno-pic", *driver_defines(header, prefix), *defines, "-c", str(driver), "-o", str(obj)],
            workdir)
        run([*link, str(obj), "-lgcc", "-o", str(elf)], workdir)
    out = run([tool(plat.tool("size")), "-A", str(elf)], workdir)
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == ".data" and int(parts[1]) != 0:
            raise BuildError("the firmware has initialised .data; the emulator loads FLASH only")
    binary = workdir / "fw.bin"
    run([tool(plat.tool("objcopy")), "-O", "binary", "-j", ".text", "-j", ".rodata", str(elf), str(binary)],
        workdir)
    symbols = {}
    for line in run([tool(plat.tool("nm")), "-S", str(elf)], workdir).splitlines():
        parts = line.split()
        if len(parts) == 4:
            symbols[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
        elif len(parts) == 3:
            symbols.setdefault(parts[2], (int(parts[0], 16), 0))
    return Firmware(elf=elf, image=binary.read_bytes(), symbols=symbols, core=core)


def platform_drop_sizes(plat, header: Path, prefix: str, core: str, workdir: Path) -> dict:
    """``drop_sizes`` with platform `plat`'s compiler: the drop compiled alone, its sections."""
    src = workdir / "drop_only.c"
    src.write_text(f'#define {prefix.upper()}_IMPLEMENTATION\n#include "{header}"\n')
    obj = workdir / "drop_only.o"
    run([tool(plat.cc), *plat.core_flags[core], *STRICT, "-ffreestanding", "-c", str(src), "-o", str(obj)],
        workdir)
    sizes = {"text_bytes": 0, "rodata_bytes": 0, "data_bytes": 0}
    for line in run([tool(plat.tool("size")), "-A", str(obj)], workdir).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            key = ("text_bytes" if parts[0].startswith(".text") else
                   "rodata_bytes" if parts[0].startswith(".rodata") else
                   "data_bytes" if parts[0].startswith((".data", ".bss")) else None)
            if key:
                sizes[key] += int(parts[1])
    return sizes
