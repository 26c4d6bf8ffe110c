"""Build a generated Thumb-2 GHASH (gen/kernels/ghash/) into a tiny firmware, run it in the
emulator, measure.  It lives in emu/: the generator never runs the emulator.

Used by tests/test_ghash_thumb2.py and by benchmarks (``python -m emu.ghash_measure``):

    fw = build_ghash_firmware(prefix, code, core, workdir)
    run = GhashRunner(fw)            # Machine + helpers
    run.init(h) -> hk words;  run.blocks(hk_addr, y, data, offset) -> (y', cycles)
    measure(impl, core, nbytes=4096) -> cycles per byte on the emu/cycles.py model
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from emu import toolchain as tc
from emu.cycles import CycleCounter
from emu.machine import Machine
from gen.kernels.ghash.asm import GhashCode
from gen.kernels.ghash.thumb2 import thumb2

WRAPPER = """\
#include <stdint.h>
#include <stddef.h>
{code}
void sg_run_batch(void) {{ }}
void wrap_init(uint32_t *hk, const uint8_t *h) {{ {p}_ghash_init(hk, h); }}
"""


@dataclass
class GhashFirmware:
    core: str
    image: bytes
    symbols: dict
    elf: Path
    gc: GhashCode
    prefix: str


def build_ghash_firmware(prefix: str, gc: GhashCode, core: str, workdir: Path) -> GhashFirmware:
    workdir = Path(workdir)
    src = workdir / "ghash_fw.c"
    src.write_text(WRAPPER.format(code=gc.code, p=prefix))
    fw = tc.link_firmware([src], core, workdir, stem="ghash_fw")
    symbols = {n: a for n, a in fw.symbols.items() if a[1]}
    return GhashFirmware(core, fw.image, symbols, fw.elf, gc, prefix)


class GhashRunner:
    def __init__(self, fw: GhashFirmware):
        self.fw = fw
        self.m = Machine(fw.core, fw.image)
        self.blocks_addr, self.blocks_size = fw.symbols[f"{fw.prefix}_ghash_blocks"]
        self.counter = None
        self.init_counter = None
        self.init_cycles = None

    def init(self, h: bytes, count_cycles: bool = False) -> int:
        """Run the generated init; returns the address of hk (work area).  With
        ``count_cycles`` the modelled cycles of the whole call (init and everything it
        calls, the wrapper's own few cycles included) go to ``self.init_cycles``."""
        m = self.m
        hk = m.alloc(4 * self.fw.gc.hk_words + 4, bytes(4 * self.fw.gc.hk_words) + b"\xef\xbe\xad\xde")
        hp = m.alloc(16, h, readonly=True, offset=1)
        if count_cycles:
            if self.init_counter is None:
                self.init_counter = CycleCounter(m.uc, self.fw.core, 0, len(self.fw.image))
            self.init_counter.reset()
        m.call(self.fw.symbols["wrap_init"][0], hk, hp)
        if count_cycles:
            self.init_cycles = self.init_counter.cycles
        if m.read(hk + 4 * self.fw.gc.hk_words, 4) != b"\xef\xbe\xad\xde":
            raise AssertionError("init wrote past hk_words")
        return hk

    def blocks(self, hk: int, y: bytes, data: bytes, offset: int = 0, y_offset: int = 0,
               count_cycles: bool = False):
        m = self.m
        yp = m.alloc(16, y, offset=y_offset)
        ip = m.alloc(max(len(data), 1), data, readonly=True, offset=offset)
        cyc = None
        if count_cycles:
            if self.counter is None:
                self.counter = CycleCounter(m.uc, self.fw.core, self.blocks_addr,
                                            self.blocks_addr + self.blocks_size)
            self.counter.reset()
        m.call(self.blocks_addr, hk, yp, ip, len(data) // 16, timeout_s=300)
        if count_cycles:
            cyc = self.counter.cycles
        return m.read(yp, 16), cyc


def measure(impl: str, core: str, nbytes: int = 4096, seed: int = 1) -> dict:
    """Cycles of one {prefix}_ghash_blocks call on nbytes (cycle model of emu/cycles.py)."""
    rng = random.Random(seed)
    prefix = "bench"
    gc = thumb2(prefix, impl, core)
    with tempfile.TemporaryDirectory() as d:
        fw = build_ghash_firmware(prefix, gc, core, Path(d))
        run = GhashRunner(fw)
        hk = run.init(rng.randbytes(16), count_cycles=True)
        _, cyc = run.blocks(hk, rng.randbytes(16), rng.randbytes(nbytes), count_cycles=True)
    return {"impl": impl, "core": core, "bytes": nbytes, "cycles": cyc, "init_cycles": run.init_cycles,
            "cycles_per_byte": cyc / nbytes, "hk_bytes": 4 * gc.hk_words,
            "rodata_bytes": gc.rodata_bytes, "text_bytes": fw.symbols[f"{prefix}_ghash_blocks"][1],
            "constant_time": gc.constant_time}


if __name__ == "__main__":  # pragma: no cover
    for core in ("cortex-m4", "cortex-m3"):
        for impl in ("ctmul", "table4", "table8"):
            r = measure(impl, core)
            print(f"{impl:7} {core:10} {r['cycles_per_byte']:6.1f} c/B  init {r['init_cycles']:6d} c  "
                  f"text {r['text_bytes']} "
                  f"hk {r['hk_bytes']} rodata {r['rodata_bytes']}")
