"""Benchmarks of an A-class drop: llvm-mca-19 costs the instructions a call really executed.

The call runs in Unicorn recording every executed address; the trace becomes a straight-line
stream with each instruction's text from ``llvm-objdump-19``, and ``llvm-mca-19 -mtriple=aarch64
-mcpu=CORE -iterations=1``'s "Total Cycles" is the figure (cores: gen/cores/aarch64.py).  No
mispredictions, front end or cache misses; deterministic.  Every figure is given twice: as the
models are (``*_by_core``) and with AESE/AESMC fusion (``metrics.fused``: each adjacent pair costed
as its AESE alone, gen/cores/aarch64.fuse_aes), since every modelled core fuses and no model does.
Steps and caveats: docs/internals/benchmarks.md.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from unicorn import UC_HOOK_CODE

from emu.machines import toolchain
from gen.cores import aarch64
from emu.machines.machine import EmulationError, Machine
from emu.platforms import for_target

MCA = "llvm-mca-19"
OBJDUMP = "llvm-objdump-19"
CORES = aarch64.CORES
SHA3_CORES = aarch64.SHA3_CORES
SIZES = (16, 64, 256, 1024, 4096)
GHASH_BYTES = 4096
GMAC_BYTES = 4096
CTR_TABLE_BYTES = 1024      #: ctx.ctr_tab, the ctx's last member when the drop has one (gen/kernels/armv8/ctr_table.py)
GHASH_KEY_BYTES = 320       #: ctx.hk, just before ctr_tab (H^1..H^8, gen/kernels/armv8/ghash.py)
KERNEL_BYTES = 4096         #: the stitched kernel alone over this many bytes (beside peers' kernels)
ECB_BLOCKS = 64
CTR_PAIRS = ECB_BLOCKS // 2
CTX_SYMBOL = "sg_ctx"
_TARGET = re.compile(r"(0x[0-9a-f]+ <[^>]*>)")


class BenchError(Exception):
    """A benchmarked call failed, or the stream could not be costed."""


def model_name(cores=CORES) -> str:
    return (f"{tool_version()} -iterations=1 over the executed instruction stream recorded in Unicorn "
            f"(emu/bench/mca.py); cores {', '.join(cores)}; as modelled (no AESE/AESMC fusion) and, under "
            f"metrics.fused, each adjacent AESE/AESMC pair costed as the AESE alone; L1 hits, no mispredicts")


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


def mca_cycles(lines: list[str], core: str, workdir: Path, iterations: int = 1, sha3: bool = False) -> int:
    """Total cycles llvm-mca gives for ``lines`` (an instruction stream) on ``core`` (``sha3``: the
    stream may use the SHA-3 extension, for a model where it is optional)."""
    src = workdir / f"stream-{core}.s"
    src.write_text("Lt:\n" + "\n".join(lines) + "\n")
    out = toolchain.run([toolchain.tool(MCA), "-mtriple=aarch64", f"-mcpu={core}", *aarch64.mattr(core, sha3),
                         f"-iterations={iterations}",
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


def _costs(lines: list[str], workdir: Path, cores, sha3: bool = False) -> tuple[dict[str, int], dict[str, int]]:
    """(cycles per core as modelled, cycles per core with fused AESE/AESMC pairs)."""
    plain = {core: mca_cycles(lines, core, workdir, sha3=sha3) for core in cores}
    fused_lines = aarch64.fuse_aes(lines)
    if fused_lines == lines:
        return plain, dict(plain)
    return plain, {core: mca_cycles(fused_lines, core, workdir, sha3=sha3) for core in cores}


def _per(c: dict[str, int], n: int) -> dict[str, float]:
    return {core: round(v / n, 3) for core, v in c.items()}


def _ctr(r: Recorder, ctx: int, ctx_bytes: int, iv: int, cost):
    """Counter mode as a CTR user of the drop gets it: one call of ``{prefix}_ctr_pairs`` over
    CTR_PAIRS pairs from IV || 2 (where GCM's message starts), with the round-1 table (ctx.ctr_tab)
    and without; (with, without) costs, or None when the drop has no such kernel. The two
    outputs must agree (which also proves the table's place in the ctx)."""
    name = f"{r.prefix}_ctr_pairs"
    if name not in r.fw.symbols:
        return None
    m = r.machine
    n = 32 * CTR_PAIRS
    src = m.alloc(n, _pattern(n, 9), readonly=True)
    res, outs = [], []
    for tab in (ctx + ctx_bytes - CTR_TABLE_BYTES, 0):
        j = m.read(iv, 12)
        cb = m.alloc(32, j + (2).to_bytes(4, "big") + j + (3).to_bytes(4, "big"))
        dst = m.alloc(n)
        res.append(cost(r.stream("ctr_pairs", ctx, dst, cb, src, CTR_PAIRS, tab, expect=None)))
        outs.append(m.read(dst, n))
    if outs[0] != outs[1]:
        raise BenchError(f"{name}: the round-1 table and full rounds disagree (is ctr_tab the ctx's last KiB?)")
    return res


def _kernel(r: Recorder, ctx: int, ctx_bytes: int, iv: int, cost):
    """The stitched kernel alone, as a peer's GCM kernel is measured: one call of
    ``{prefix}_ctr_ghash_pairs`` over KERNEL_BYTES from IV || 2 with the round-1 table (no J0,
    no length block, no tag, no glue); its costs, or None when the drop has no such kernel. Its
    GHASH must equal the drop's own ``ghash`` of the ciphertext (which proves hk's place)."""
    name = f"{r.prefix}_ctr_ghash_pairs"
    if name not in r.fw.symbols:
        return None
    m = r.machine
    n = KERNEL_BYTES
    j = m.read(iv, 12)
    cb = m.alloc(32, j + (2).to_bytes(4, "big") + j + (3).to_bytes(4, "big"))
    src, dst, y, y2 = m.alloc(n, _pattern(n, 10), readonly=True), m.alloc(n), m.alloc(16), m.alloc(16)
    hk = ctx + ctx_bytes - CTR_TABLE_BYTES - GHASH_KEY_BYTES
    res = cost(r.stream("ctr_ghash_pairs", ctx, dst, cb, src, n // 32, hk, y, ctx + ctx_bytes - CTR_TABLE_BYTES,
                        expect=None))
    r.stream("ghash", ctx, y2, dst, n // 16, expect=None)
    if m.read(y, 16) != m.read(y2, 16):
        raise BenchError(f"{name}: its GHASH differs from {r.prefix}_ghash of its output (is hk where it is assumed?)")
    return res


def _by_core(v: int, init, ecb, gh, gmac, enc, dec, sizes, cores, ctr=None, kernel=None) -> dict:
    """The per-core figures of variant v (0: as modelled, 1: fused pairs)."""
    more = {} if ctr is None else {"ctr_cycles_per_byte_by_core": _per(ctr[0][v], 32 * CTR_PAIRS),
                                   "ctr_no_table_cycles_per_byte_by_core": _per(ctr[1][v], 32 * CTR_PAIRS)}
    if kernel is not None:
        more["gcm_kernel_cycles_per_byte_by_core"] = _per(kernel[v], KERNEL_BYTES)
    return {**more,
        "key_setup_cycles_by_core": init[v],
        "ecb_cycles_per_byte_by_core": _per(ecb[v], 16 * ECB_BLOCKS),
        "ghash_cycles_per_byte_by_core": _per(gh[v], GHASH_BYTES),
        "gmac_cycles_by_core": gmac[v],
        "gmac_cycles_per_byte_by_core": _per(gmac[v], GMAC_BYTES),
        "cycles_by_core": {core: {str(n): enc[n][v][core] for n in sizes} for core in cores},
        "cycles_per_byte_by_core": {core: {str(n): round(enc[n][v][core] / n, 3) for n in sizes} for core in cores},
        "decrypt_cycles_per_byte_by_core": {core: {str(n): round(dec[n][v][core] / n, 3) for n in sizes}
                                            for core in cores},
    }


def bench_mca_drop(header: Path, prefix: str, target: str, keybits: int, workdir: Path,
                   fw: toolchain.Firmware, sizes=SIZES, cores=None) -> dict:
    """The manifest's ``metrics`` for an A-class GCM drop: cycles per core (llvm-mca) of init,
    ecb_encrypt (64 blocks), ghash (4096 bytes), GMAC (encrypt of 4096 bytes of AAD and no
    message), counter mode (ctr_pairs over 64 blocks, with and without the round-1 table), the
    stitched kernel alone over 4 KiB (as peers' GCM kernels are measured) and encrypt/decrypt (96-bit IV, no AAD, 16-byte tag) per message size.
    ``cycles``/``cycles_per_byte`` are the first core's (Cortex-A72);
    ``cycles_by_core``/``cycles_per_byte_by_core`` give every core; ``fused`` the same per-core
    figures with fused AESE/AESMC pairs. A drop emulated on ``armv8a-max`` (EOR3) is costed on
    the SHA-3 cores only."""
    workdir = Path(workdir)
    sha3 = fw.core == "armv8a-max"
    cores = cores or (SHA3_CORES if sha3 else CORES)
    plat = for_target(target)
    sizes_info = toolchain.platform_drop_sizes(plat, header, prefix, fw.core, workdir)
    if fw.symbols.get(CTX_SYMBOL, (0, 0))[1] == 0:
        raise BenchError(f"cannot find the size of {prefix}_ctx (no {CTX_SYMBOL} in the firmware)")
    ctx_bytes = fw.symbols[CTX_SYMBOL][1]
    r = Recorder(fw, prefix, workdir)
    m = r.machine

    def cost(lines):
        return _costs(lines, workdir, cores, sha3)

    keylen = keybits // 8
    ctx = m.alloc(max(ctx_bytes, 1024))
    key = m.alloc(keylen, _pattern(keylen, 1), readonly=True)
    init = cost(r.stream("init", ctx, key, keylen))
    scratch = m.alloc(max(ctx_bytes, 1024))
    schedule = cost(r.stream("sg_keyschedule", scratch, key, expect=None))[0]
    h = m.alloc(16, _pattern(16, 7), readonly=True)
    ghash_init = cost(r.stream("sg_ghash_init", scratch, h, expect=None))[0]
    src = m.alloc(16 * ECB_BLOCKS, _pattern(16 * ECB_BLOCKS, 2), readonly=True)
    dst = m.alloc(16 * ECB_BLOCKS)
    ecb = cost(r.stream("ecb_encrypt", ctx, dst, src, ECB_BLOCKS, expect=None))
    y = m.alloc(16, _pattern(16, 3))
    data = m.alloc(GHASH_BYTES, _pattern(GHASH_BYTES, 4), readonly=True)
    gh = cost(r.stream("ghash", ctx, y, data, GHASH_BYTES // 16, expect=None))
    iv = m.alloc(12, _pattern(12, 5), readonly=True)
    aad = m.alloc(GMAC_BYTES, _pattern(GMAC_BYTES, 8), readonly=True)
    gtag = m.alloc(16)
    gmac = cost(r.stream("encrypt", ctx, iv, 12, aad, GMAC_BYTES, 0, 0, 0, gtag, 16))
    ctr = _ctr(r, ctx, ctx_bytes, iv, cost)
    kernel = _kernel(r, ctx, ctx_bytes, iv, cost)
    enc, dec = {}, {}
    for n in sizes:
        msg = m.alloc(n, _pattern(n, 6), readonly=True)
        out, tag, back = m.alloc(n), m.alloc(16), m.alloc(n)
        enc[n] = cost(r.stream("encrypt", ctx, iv, 12, 0, 0, msg, n, out, tag, 16))
        dec[n] = cost(r.stream("decrypt", ctx, iv, 12, 0, 0, out, n, tag, 16, back))
        if m.read(back, n) != _pattern(n, 6):
            raise BenchError(f"{prefix}_decrypt did not give the message back ({n} bytes)")
    first = cores[0]
    plain = _by_core(0, init, ecb, gh, gmac, enc, dec, sizes, cores, ctr, kernel)
    return {
        "model": model_name(cores),
        "core": fw.core,
        "mca_cores": list(cores),
        "compiler": toolchain.compiler_description(fw.core, fw.extra_cflags),
        "key_setup_cycles": init[0][first],
        "key_schedule_cycles": schedule[first],
        "ghash_init_cycles": ghash_init[first],
        "ecb_cycles_per_block": {str(ECB_BLOCKS): round(ecb[0][first] / ECB_BLOCKS, 2)},
        "ghash_cycles_per_byte": round(gh[0][first] / GHASH_BYTES, 3),
        "gmac_cycles": {str(GMAC_BYTES): gmac[0][first]},
        "cycles": {str(n): enc[n][0][first] for n in sizes},
        "cycles_per_byte": {str(n): round(enc[n][0][first] / n, 3) for n in sizes},
        "decrypt_cycles": {str(n): dec[n][0][first] for n in sizes},
        "decrypt_cycles_per_byte": {str(n): round(dec[n][0][first] / n, 3) for n in sizes},
        **plain,
        "fused": {"transform": "each adjacent `aese vX.16b, vK.16b; aesmc vX.16b, vX.16b` of the executed "
                               "stream costed as the AESE alone (gen/cores/aarch64.fuse_aes)",
                  **_by_core(1, init, ecb, gh, gmac, enc, dec, sizes, cores, ctr, kernel)},
        "text_bytes": sizes_info["text_bytes"],
        "rodata_bytes": sizes_info["rodata_bytes"],
        "ctx_bytes": ctx_bytes,
        "table_bytes": 0,
        "cache_bytes": 0,
        "stack_bytes": r.stack,
    }

