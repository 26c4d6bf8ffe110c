"""The compilers and flag sets firmware trees build with, as data: what a drop is compiled and
linked with outside the build's own flags (emu/machines/toolchain.build_cflags), by emu/vendoring/matrix.py for
tests/test_vendoring.py and `make vendor-check`.

A flag set is a compiler (gcc: arm-none-eabi-gcc, aarch64-linux-gnu-gcc for the ARMv8-A cores,
or the host's gcc; clang: Debian's clang, for a core with --target=thumbv7em/thumbv7m-none-eabi
or aarch64-linux-gnu) plus language, warning and optimisation flags; the core's own flags (-mcpu,
-mthumb, float ABI; -march for AArch64) come from the core. Clang needs no libc headers for a
bare target: the drop includes only <stdint.h> and <stddef.h>, which clang ships (it uses its
own when no C library provides them), with -ffreestanding and without.
"""
from __future__ import annotations

from dataclasses import dataclass

from emu import platforms

from emu.machines import toolchain

C99 = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
C11 = ("-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic")
#: C++ as embedded trees build it (Arduino, Zephyr, mbed): no exceptions, no RTTI. With
#: exceptions any C++ unit refers to the unwinder's personality routines, which come with the C++
#: runtime (and need libc), so C++ with exceptions is checked per object (CXX_EXCEPTION_SETS)
CXX11_EH = ("-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic")
CXX11 = (*CXX11_EH, "-fno-exceptions", "-fno-rtti")
#: what a C++ unit with exceptions may leave undefined on ARM: the EHABI personality routines
#: (AArch64 unwinds from .eh_frame, which names no routine for C code: nothing there)
UNWINDER = ("__aeabi_unwind_cpp_pr0", "__aeabi_unwind_cpp_pr1", "__aeabi_unwind_cpp_pr2")
#: what size-conscious trees add to -Os: one section per function and object, unused ones dropped
SECTIONS = ("-ffunction-sections", "-fdata-sections")
#: clang's target and core flags per core (gcc's come from the core's platform, emu/platforms)
CLANG_TARGET = {"cortex-m4": ("--target=thumbv7em-none-eabi", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft"),
                "cortex-m3": ("--target=thumbv7m-none-eabi", "-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"),
                **{core: ("--target=aarch64-linux-gnu", *flags)
                   for core, flags in platforms.AARCH64.core_flags.items()}}
FREESTANDING = ("-ffreestanding",)


@dataclass(frozen=True)
class FlagSet:
    compiler: str                  # "gcc" or "clang"
    flags: tuple[str, ...]         # language, warnings, optimisation (no -c / -o)

    @property
    def label(self) -> str:
        quiet = ("-Wall", "-Wextra", "-Werror", "-pedantic", "-x", "-fno-rtti")
        shown = [f for f in self.flags if f not in quiet]
        return " ".join([self.compiler, *shown])

    @property
    def cxx(self) -> bool:
        return "c++" in self.flags

    def command(self, core: str | None) -> list[str]:
        """The compile command for a core (None: the host), without -c, -o and sources."""
        if core is None:
            return [toolchain.tool(self.compiler), *self.flags]
        if self.compiler == "gcc":
            plat = toolchain.platform_of_core(core)
            return [toolchain.tool(plat.cc), *plat.core_flags[core], *self.flags]
        return [toolchain.tool("clang"), *CLANG_TARGET[core], *self.flags]

    def link_flags(self) -> list[str]:
        """What the link step repeats (optimisation and LTO) or adds (--gc-sections)."""
        keep = [f for f in self.flags if f.startswith("-O") or f == "-flto"]
        return keep + (["-Wl,--gc-sections"] if "-ffunction-sections" in self.flags else [])


def _gcc(*flags: str) -> FlagSet:
    return FlagSet("gcc", flags)


def _clang(*flags: str) -> FlagSet:
    return FlagSet("clang", flags)


def cross_sets() -> list[FlagSet]:
    """Every flag set a drop is compiled (implementation unit) and linked with for its core,
    -nostdlib: gcc at each -O level and with LTO, clang at each -O level, each with and without
    -ffreestanding; C11; the implementation compiled as C++11."""
    sets = []
    for ff in ((), FREESTANDING):
        for opt in (("-O0",), ("-Os", *SECTIONS), ("-Oz",), ("-O2",), ("-O3",), ("-O2", "-flto"),
                    ("-Os", "-flto")):
            sets.append(_gcc(*C99, *opt, *ff))
        for opt in ("-O0", "-Os", "-Oz", "-O2", "-O3"):
            sets.append(_clang(*C99, opt, *ff))
    sets += [_gcc(*C11, "-O2"), _gcc(*CXX11, "-O2"), _gcc(*CXX11, "-Os"), _clang(*CXX11, "-O2")]
    return sets


#: the implementation compiled as C++ with exceptions: compiled only, its undefined symbols must
#: be UNWINDER's at most
CXX_EXCEPTION_SETS = [_gcc(*CXX11_EH, "-O2"), _clang(*CXX11_EH, "-O2")]

def key_sets() -> list[FlagSet]:
    """The cross sets that matter most (what broke before, what is commonest), for drops that
    do not get the whole of ``cross_sets`` in `make test`."""
    wanted = ("gcc -std=c99 -O0", "gcc -std=c99 -Os -ffunction-sections -fdata-sections",
              "gcc -std=c99 -Oz", "gcc -std=c99 -O3", "gcc -std=c99 -O2 -flto", "clang -std=c99 -Os",
              "clang -std=c99 -O2 -ffreestanding", "gcc c++ -std=c++11 -fno-exceptions -Os")
    sets = [s for s in cross_sets() if s.label in wanted]
    assert len(sets) == len(wanted), "key_sets names a set cross_sets does not have"
    return sets


#: the caller compiled as C++ against an implementation compiled as C (a C++ firmware file that
#: includes a vendored C drop); the implementation's flag set is CROSS_C_IMPL
CXX_CALLER = _gcc(*CXX11, "-O2")
CROSS_C_IMPL = _gcc(*C99, "-O2")

#: the flag sets whose firmware also runs the NIST, spec and differential cases in the emulator,
#: so a miscompile under users' flags is caught, not only a link error
NIST_SETS = [_gcc(*C99, "-Os", *SECTIONS), _clang(*C99, "-O2")]


def host_sets() -> list[FlagSet]:
    """The portable drops on the host: gcc and clang, C99 and C++11."""
    sets = []
    for cc in (_gcc, _clang):
        sets += [cc(*C99, opt) for opt in ("-O0", "-Os", "-O2", "-O3")]
        sets.append(cc(*CXX11, "-O2"))
    return sets


#: the host round-trip test under AddressSanitizer and UndefinedBehaviorSanitizer
SANITIZE = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all")
SANITIZER_SETS = [_gcc(*C99, *SANITIZE), _clang(*C99, *SANITIZE)]
