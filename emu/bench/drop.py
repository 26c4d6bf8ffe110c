"""Benchmarks of a drop in the emulator, with the cycle model of emu/bench/cycles.py.

`bench_drop` links the drop with the batch driver (emu/machines/driver.c), calls the API functions
directly (AAPCS, buffers from `Machine.alloc`) and counts the modelled cycles of exactly that call.
It fills SPEC §4 `metrics` (key set-up, ECB, GHASH, encrypt and its GCTR part by exclusive
attribution to ELF symbols, decrypt, sizes, stack, caches).  Every input is fixed, so the figures
are identical from run to run.  What each metric measures: docs/internals/benchmarks.md.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from emu.machines import layout

from emu.machines import toolchain
from emu.bench.cycles import CycleCounter
from emu.machines.machine import EmulationError, Machine

SIZES = (16, 64, 256, 1024, 4096, 8192)
DECRYPT_SIZES = (16, 256, 4096)
ECB_BLOCKS = (2, 64)
GHASH_BYTES = 4096
GHASH_FUNCTIONS = ("ghash_blocks", "ghash_feed", "ghash_pad", "final_tag",       # after "PREFIX_"
                   "face_lean_ghash", "face_lean_tag")
CTX_SYMBOL = "sg_ctx"          # emu/machines/driver.c: `static F(ctx) sg_ctx;`, its size is sizeof(PREFIX_ctx)


class BenchError(Exception):
    """A benchmarked call failed (non-zero return, bad access): a drop bug, not a timing."""


def model_name(core: str) -> str:
    name = {"cortex-m4": "Cortex-M4", "cortex-m3": "Cortex-M3"}[core]
    return (f"slicegen cycle model: {name} TRM timings, zero wait states, "
            "branch refill P=2 (emu/bench/cycles.py, gen/cores/timing.py)")


def _pattern(n: int, salt: int) -> bytes:
    """Fixed, non-trivial bytes (a data-independent kernel does not care, a table one would)."""
    return bytes((i * 167 + salt * 31 + (i >> 8)) & 0xFF for i in range(n))


def ghash_part(prefix: str, by_function: dict) -> int:
    """Cycles of a GCM call spent in its GHASH functions (``GHASH_FUNCTIONS``; compiler clones
    such as ``name.part.0`` or ``name.constprop.0`` count as the function), from
    ``CycleCounter.by_function()``; the GCTR part is the rest."""
    names = {f"{prefix}_{f}" for f in GHASH_FUNCTIONS}
    return sum(c for fn, c in by_function.items() if fn is not None and fn.split(".")[0] in names)


def _r2(x: float) -> float:
    return round(x, 2)


class _Bench:
    def __init__(self, fw: toolchain.Firmware, prefix: str):
        self.fw = fw
        self.prefix = prefix
        self.machine = Machine(fw.core, fw.image)
        self.counter = CycleCounter(self.machine.uc, fw.core, layout.FLASH_BASE,
                                    layout.FLASH_BASE + len(fw.image))
        self.counter.attribute(fw.symbols)      # per-function sums; totals are the same without
        self.stack = 0

    def addr(self, fn: str) -> int:
        name = fn if fn.startswith("sg_") else f"{self.prefix}_{fn}"
        if name not in self.fw.symbols:
            raise BenchError(f"the drop has no function {name}")
        return self.fw.addr(name)

    def measure_split(self, fn: str, *args: int, expect: int | None = 0) -> tuple[int, dict]:
        """(cycles, cycles per function) of one call of PREFIX_fn(args), as ``measure``."""
        total = self.measure(fn, *args, expect=expect)
        return total, self.counter.by_function()

    def measure(self, fn: str, *args: int, expect: int | None = 0) -> int:
        """Cycles of one call of PREFIX_fn(args); checks its return value when `expect` is given."""
        func = self.addr(fn)
        self.counter.reset()
        try:
            rc = self.machine.call(func, *args)
        except EmulationError as exc:
            raise BenchError(f"{fn}: {exc}") from None
        cycles = self.counter.cycles
        if expect is not None and rc != expect & 0xFFFFFFFF:
            raise BenchError(f"{self.prefix}_{fn} returned {rc - (1 << 32) if rc >> 31 else rc}")
        if self.counter.missed_hooks:
            raise BenchError(f"cycle model missed data-dependent instructions at "
                             f"{', '.join(hex(a) for a in self.counter.missed_hooks)}")
        self.stack = max(self.stack, self.machine.stack_used)
        return cycles


def bench_drop(header_path: Path, prefix: str, target: str, keybits: int, workdir: Path,
               firmware: toolchain.Firmware | None = None, sizes=SIZES, progress=None,
               cache_bytes: int = 0) -> dict:
    """Measure a GCM drop; return the manifest `metrics` block (see the module docstring).

    `firmware` may be one already linked by validation (``toolchain.build_firmware`` of the same
    header); otherwise it is built in `workdir`. `progress`, when given, is called with a short
    line before each measurement. `cache_bytes` is the FACE RAM the generator declared
    (gen/kernels/face/aes_face.cache_bytes; the manifest's figure for a drop read from disk)."""
    header_path, workdir = Path(header_path), Path(workdir)
    say = progress or (lambda _msg: None)
    if keybits not in (128, 192, 256):
        raise ValueError(f"keybits must be 128, 192 or 256, not {keybits}")
    say(f"{prefix}: compiling")
    sizes_info = toolchain.drop_sizes(header_path, prefix, target, workdir)
    fw = firmware or toolchain.build_firmware(header_path, prefix, target, workdir)
    if CTX_SYMBOL not in fw.symbols or fw.symbols[CTX_SYMBOL][1] == 0:
        raise BenchError(f"cannot find the size of {prefix}_ctx (no {CTX_SYMBOL} in the firmware)")
    ctx_bytes = fw.symbols[CTX_SYMBOL][1]

    b = _Bench(fw, prefix)
    m = b.machine
    keylen = keybits // 8
    ctx = m.alloc(max(ctx_bytes, 8192))
    key = m.alloc(keylen, _pattern(keylen, 1), readonly=True)
    say(f"{prefix}: key setup")
    key_setup = b.measure("init", ctx, key, keylen)
    say(f"{prefix}: key schedule and GHASH key set-up alone")
    scratch = m.alloc(max(ctx_bytes, 8192))
    key_schedule = b.measure("sg_keyschedule", scratch, key, expect=None)
    h = m.alloc(16, _pattern(16, 7), readonly=True)
    ghash_init = b.measure("sg_ghash_init", scratch, h, expect=None)

    ecb = {}
    for nblocks in ECB_BLOCKS:
        say(f"{prefix}: ecb_encrypt, {nblocks} blocks")
        src = m.alloc(16 * nblocks, _pattern(16 * nblocks, 2), readonly=True)
        dst = m.alloc(16 * nblocks)
        ecb[str(nblocks)] = _r2(b.measure("ecb_encrypt", ctx, dst, src, nblocks, expect=None) / nblocks)

    say(f"{prefix}: ghash, {GHASH_BYTES} bytes")
    y = m.alloc(16, _pattern(16, 3))
    data = m.alloc(GHASH_BYTES, _pattern(GHASH_BYTES, 4), readonly=True)
    ghash = b.measure("ghash", ctx, y, data, GHASH_BYTES // 16, expect=None)

    cycles, per_byte, gctr, gctr_per_byte = {}, {}, {}, {}
    dec, dec_per_byte = {}, {}
    iv = m.alloc(12, _pattern(12, 5), readonly=True)
    for n in sizes:
        say(f"{prefix}: GCM encrypt, {n} bytes")
        msg = m.alloc(n, _pattern(n, 6), readonly=True)
        out = m.alloc(n)
        tag = m.alloc(16)
        c, by_fn = b.measure_split("encrypt", ctx, iv, 12, 0, 0, msg, n, out, tag, 16)
        if n in DECRYPT_SIZES:
            say(f"{prefix}: GCM decrypt, {n} bytes")
            plain = m.alloc(n)
            dec[str(n)] = b.measure("decrypt", ctx, iv, 12, 0, 0, out, n, tag, 16, plain)
            dec_per_byte[str(n)] = _r2(dec[str(n)] / n)
            if m.read(plain, n) != _pattern(n, 6):
                raise BenchError(f"{prefix}_decrypt did not give the message back ({n} bytes)")
        if not by_fn.get(f"{prefix}_ghash_blocks"):
            raise BenchError(f"no cycles in {prefix}_ghash_blocks during encrypt: cannot separate GCTR")
        cycles[str(n)] = c
        per_byte[str(n)] = _r2(c / n)
        gctr[str(n)] = c - ghash_part(prefix, by_fn)
        gctr_per_byte[str(n)] = _r2(gctr[str(n)] / n)

    return {
        "model": model_name(fw.core),
        "core": fw.core,
        "compiler": toolchain.compiler_description(fw.core, fw.extra_cflags),
        "key_setup_cycles": key_setup,
        "key_schedule_cycles": key_schedule,
        "ghash_init_cycles": ghash_init,
        "ecb_cycles_per_block": ecb,
        "ghash_cycles_per_byte": _r2(ghash / GHASH_BYTES),
        "cycles": cycles,
        "cycles_per_byte": per_byte,
        "gctr_cycles": gctr,
        "gctr_cycles_per_byte": gctr_per_byte,
        "decrypt_cycles": dec,
        "decrypt_cycles_per_byte": dec_per_byte,
        "text_bytes": sizes_info["text_bytes"],
        "rodata_bytes": sizes_info["rodata_bytes"],
        "ctx_bytes": ctx_bytes,
        "table_bytes": 0,
        "cache_bytes": cache_bytes,
        "stack_bytes": b.stack,
    }
