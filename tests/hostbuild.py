"""Build a drop's header straight from the generator (no validation run) and compile C test programs
around it: for the host with clang's sanitizers (and libFuzzer), or for AArch64 as a static program
run under qemu-aarch64. Shared by tests/test_length_limits.py and tests/fuzz/."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from emu import platforms
from emu.machines import toolchain
from gen import presets
from gen.drop.render import header

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-g"]
QEMU_CPU = "cortex-a72"


@dataclass(frozen=True)
class Header:
    path: Path
    prefix: str
    config: object

    def defines(self) -> list[str]:
        p = self.prefix
        return [f"-DSG_PREFIX={p}", f"-DSG_UPPER={p.upper()}", f'-DSG_HEADER="{self.path}"',
                toolchain.impl_define(p)]


_RENDERED: dict[str, str] = {}        # preset -> header text: the generator is deterministic


def render(name: str, workdir: Path) -> Header:
    """The header the generator writes today for preset `name` (not out/'s copy, which the lead
    regenerates at integration); rendered once per process (a Cortex-M header takes seconds)."""
    config = presets.preset(name)
    if name not in _RENDERED:
        _RENDERED[name], _ = header(config, f"slicegen build {name}")
    text = _RENDERED[name]
    path = workdir / f"{name}.h"
    path.write_text(text)
    return Header(path, config.prefix, config)


def compile_host(sources: list[Path], hdr: Header, out: Path, extra: list[str] = ()) -> Path:
    """clang with ASan + UBSan."""
    toolchain.run([toolchain.tool("clang"), *STRICT, "-O1", *SANITIZE, *hdr.defines(), *extra,
                   *map(str, sources), "-o", str(out)], out.parent)
    return out


def compile_fuzzer(source: Path, out: Path, flags: list[str], libs: list[str]) -> Path:
    """clang with libFuzzer's main, ASan and UBSan (the drops' headers named by `flags`)."""
    toolchain.run([toolchain.tool("clang"), *STRICT, "-O1", "-fsanitize=fuzzer,address,undefined",
                   *SANITIZE[1:], *flags, str(source), *libs, "-o", str(out)], out.parent)
    return out


def compile_aarch64(sources: list[Path], hdr: Header, out: Path, extra: list[str] = ()) -> Path:
    return compile_aarch64_program(sources, out, [*hdr.defines(), *extra])


def compile_aarch64_program(sources: list[Path], out: Path, flags: list[str]) -> Path:
    """A static AArch64 Linux program for qemu-aarch64 -cpu cortex-a72."""
    plat = platforms.for_target("armv8a")
    toolchain.run([toolchain.tool(plat.cc), *plat.core_flags[QEMU_CPU], *STRICT, "-O2", "-static",
                   *flags, *map(str, sources), "-o", str(out)], out.parent)
    return out


def run(exe: Path, args: list[str] = (), qemu=False, timeout=300, **kw) -> subprocess.CompletedProcess:
    cmd = [toolchain.tool("qemu-aarch64"), "-cpu", QEMU_CPU] if qemu else []
    return subprocess.run([*cmd, str(exe), *args], capture_output=True, text=True, timeout=timeout, **kw)
