"""Benchmarks of an A-class drop: llvm-mca-19 costs the instructions a call really executed.

The call runs in Unicorn recording every executed address; the trace becomes a straight-line
stream with each instruction's text from ``llvm-objdump-19``, and ``llvm-mca-19 -mtriple=aarch64
-mcpu=CORE -iterations=1``'s "Total Cycles" is the figure.  No mispredictions, front end, cache
misses or AESE/AESMC fusion (none of the models fuses them); deterministic.  Steps and caveats:
docs/internals/benchmarks.md.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from unicorn import UC_HOOK_CODE

from emu.machines import toolchain
from emu.machines.machine import EmulationError, Machine
from emu.platforms import for_target

MCA = "llvm-mca-19"
OBJDUMP = "llvm-objdump-19"
CORES = ("cortex-a72", "neoverse-n1", "neoverse-v1", "cortex-a55")
#: the cores whose llvm-mca models know the SHA-3 extension (an EOR3 drop is costed on these only)
SHA3_CORES = ("neoverse-v1",)
SIZES = (16, 64, 256, 1024, 4096)
GHASH_BYTES = 4096
ECB_BLOCKS = 64
CTX_SYMBOL = "sg_ctx"
_TARGET = re.compile(r"(0x[0-9a-f]+ <[^>]*>)")


class BenchError(Exception):
    """A benchmarked call failed, or the stream could not be costed."""


def model_name(cores=CORES) -> str:
    return (f"{tool_version()} -iterations=1 over the executed instruction stream recorded in Unicorn "
            f"(emu/bench/mca.py); cores {', '.join(cores)}; no AESE/AESMC fusion, L1 hits, no mispredicts")


def tool_version() -> str:
    out = subprocess.run([toolchain.tool(MCA), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version (\S+)", out)
    return f"llvm-mca {m.group(1) if m else '?'}"


def instruction_text(elf: Path, workdir: Path) -> dict[int, str]:
    """address -> assembly text llvm-mca can read back (targets replaced by a label)."""
    out = toolchain.run([toolchain.tool(OBJDUMP), "-d", "--no-show-raw-insn", str(elf)], workdir)
    text = {}
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            insn = m.group(2).split("//")[0].strip().replace("\t", " ")
            text[int(m.group(1), 16)] = _TARGET.sub("Lt", insn)
    return text


def mca_cycles(lines: list[str], core: str, workdir: Path, iterations: int = 1) -> int:
    """Total cycles llvm-mca gives for ``lines`` (an instruction stream) on ``core``."""
    src = workdir / f"stream-{core}.s"
    src.write_text("Lt:\n" + "\n".join(lines) + "\n")
    out = toolchain.run([toolchain.tool(MCA), "-mtriple=aarch64", f"-mcpu={core}", f"-iterations={iterations}",
                         "-summary-view", "-resource-pressure=false", "-instruction-info=false", str(src)],
                        workdir)
    m = re.search(r"Total Cycles:\s+(\d+)", out)
    if not m:
        raise BenchError(f"llvm-mca gave no total for {core}:\n{out[:500]}")
    return int(m.group(1))


class Recorder:
    """The drop's firmware in Unicorn with a code hook that records executed addresses."""

    def __init__(self, fw: toolchain.Firmware, prefix: str, workdir: Path):
        self.fw, self.prefix, self.workdir = fw, prefix, workdir
        self.machine = Machine(fw.core, fw.image)
        self.text = instruction_text(fw.elf, workdir)
        self.trace: list[int] = []
        self.active = False
        self.machine.uc.hook_add(UC_HOOK_CODE, self._on_code)
        self.machine.uc.ctl_flush_tb()
        self.stack = 0

    def _on_code(self, uc, address, size, _user):
        if self.active:
            self.trace.append(address)

    def stream(self, fn: str, *args: int, expect: int | None = 0) -> list[str]:
        """The instruction stream of one call of PREFIX_fn(args) (sg_* names as they are)."""
        name = fn if fn.startswith("sg_") else f"{self.prefix}_{fn}"
        self.trace = []
        self.active = True
        try:
            rc = self.machine.call(self.fw.addr(name), *args)
        except EmulationError as exc:
            raise BenchError(f"{name}: {exc}") from None
        finally:
            self.active = False
        if expect is not None and rc & 0xFFFFFFFF != expect & 0xFFFFFFFF:
            raise BenchError(f"{name} returned {rc:#x}")
        self.stack = max(self.stack, self.machine.stack_used)
        missing = [a for a in self.trace if a not in self.text]
        if missing:
            raise BenchError(f"no disassembly for executed address {missing[0]:#x}")
        return [self.text[a] for a in self.trace]


def _pattern(n: int, salt: int) -> bytes:
    return bytes((i * 167 + salt * 31 + (i >> 8)) & 0xFF for i in range(n))


def _costs(lines: list[str], workdir: Path, cores) -> dict[str, int]:
    return {core: mca_cycles(lines, core, workdir) for core in cores}


def _per(c: dict[str, int], n: int) -> dict[str, float]:
    return {core: round(v / n, 3) for core, v in c.items()}


def bench_mca_drop(header: Path, prefix: str, target: str, keybits: int, workdir: Path,
                   fw: toolchain.Firmware, sizes=SIZES, cores=None) -> dict:
    """The manifest's ``metrics`` for an A-class GCM drop: cycles per core (llvm-mca) of init,
    ecb_encrypt (64 blocks), ghash (4096 bytes) and encrypt/decrypt (96-bit IV, no AAD,
    16-byte tag) per message size. ``cycles``/``cycles_per_byte`` are the first core's (Cortex-A72);
    ``cycles_by_core``/``cycles_per_byte_by_core`` give every core. A drop emulated on
    ``armv8a-max`` (EOR3) is costed on the SHA-3 cores only."""
    workdir = Path(workdir)
    cores = cores or (SHA3_CORES if fw.core == "armv8a-max" else CORES)
    plat = for_target(target)
    sizes_info = toolchain.platform_drop_sizes(plat, header, prefix, fw.core, workdir)
    if fw.symbols.get(CTX_SYMBOL, (0, 0))[1] == 0:
        raise BenchError(f"cannot find the size of {prefix}_ctx (no {CTX_SYMBOL} in the firmware)")
    ctx_bytes = fw.symbols[CTX_SYMBOL][1]
    r = Recorder(fw, prefix, workdir)
    m = r.machine
    keylen = keybits // 8
    ctx = m.alloc(max(ctx_bytes, 1024))
    key = m.alloc(keylen, _pattern(keylen, 1), readonly=True)
    init = _costs(r.stream("init", ctx, key, keylen), workdir, cores)
    scratch = m.alloc(max(ctx_bytes, 1024))
    schedule = _costs(r.stream("sg_keyschedule", scratch, key, expect=None), workdir, cores)
    h = m.alloc(16, _pattern(16, 7), readonly=True)
    ghash_init = _costs(r.stream("sg_ghash_init", scratch, h, expect=None), workdir, cores)
    src = m.alloc(16 * ECB_BLOCKS, _pattern(16 * ECB_BLOCKS, 2), readonly=True)
    dst = m.alloc(16 * ECB_BLOCKS)
    ecb = _costs(r.stream("ecb_encrypt", ctx, dst, src, ECB_BLOCKS, expect=None), workdir, cores)
    y = m.alloc(16, _pattern(16, 3))
    data = m.alloc(GHASH_BYTES, _pattern(GHASH_BYTES, 4), readonly=True)
    gh = _costs(r.stream("ghash", ctx, y, data, GHASH_BYTES // 16, expect=None), workdir, cores)
    iv = m.alloc(12, _pattern(12, 5), readonly=True)
    enc, dec = {}, {}
    for n in sizes:
        msg = m.alloc(n, _pattern(n, 6), readonly=True)
        out, tag, back = m.alloc(n), m.alloc(16), m.alloc(n)
        enc[n] = _costs(r.stream("encrypt", ctx, iv, 12, 0, 0, msg, n, out, tag, 16), workdir, cores)
        dec[n] = _costs(r.stream("decrypt", ctx, iv, 12, 0, 0, out, n, tag, 16, back), workdir, cores)
        if m.read(back, n) != _pattern(n, 6):
            raise BenchError(f"{prefix}_decrypt did not give the message back ({n} bytes)")
    first = cores[0]
    return {
        "model": model_name(cores),
        "core": fw.core,
        "mca_cores": list(cores),
        "compiler": toolchain.compiler_description(fw.core, fw.extra_cflags),
        "key_setup_cycles": init[first],
        "key_setup_cycles_by_core": init,
        "key_schedule_cycles": schedule[first],
        "ghash_init_cycles": ghash_init[first],
        "ecb_cycles_per_block": {str(ECB_BLOCKS): round(ecb[first] / ECB_BLOCKS, 2)},
        "ecb_cycles_per_byte_by_core": _per(ecb, 16 * ECB_BLOCKS),
        "ghash_cycles_per_byte": round(gh[first] / GHASH_BYTES, 3),
        "ghash_cycles_per_byte_by_core": _per(gh, GHASH_BYTES),
        "cycles": {str(n): enc[n][first] for n in sizes},
        "cycles_per_byte": {str(n): round(enc[n][first] / n, 3) for n in sizes},
        "cycles_by_core": {core: {str(n): enc[n][core] for n in sizes} for core in cores},
        "cycles_per_byte_by_core": {core: {str(n): round(enc[n][core] / n, 3) for n in sizes} for core in cores},
        "decrypt_cycles": {str(n): dec[n][first] for n in sizes},
        "decrypt_cycles_per_byte": {str(n): round(dec[n][first] / n, 3) for n in sizes},
        "decrypt_cycles_per_byte_by_core": {core: {str(n): round(dec[n][core] / n, 3) for n in sizes}
                                            for core in cores},
        "text_bytes": sizes_info["text_bytes"],
        "rodata_bytes": sizes_info["rodata_bytes"],
        "ctx_bytes": ctx_bytes,
        "table_bytes": 0,
        "cache_bytes": 0,
        "stack_bytes": r.stack,
    }

