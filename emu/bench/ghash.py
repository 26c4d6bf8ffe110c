"""Build a generated Thumb-2 GHASH (gen/kernels/ghash/) into a tiny firmware, run it in the
emulator, measure.  The caller hands in the generated code: emu never imports kernels.

Used by tests/test_ghash_thumb2.py:

    fw = build_ghash_firmware(prefix, code, core, workdir)
    run = GhashRunner(fw)            # Machine + helpers
    run.init(h) -> hk words;  run.blocks(hk_addr, y, data, offset) -> (y', cycles)
    measure(gc, prefix, core, nbytes=4096) -> cycles per byte on the emu/bench/cycles.py model
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from emu.machines import toolchain as tc
from emu.bench.cycles import CycleCounter
from emu.machines.machine import Machine

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
    gc: object              # gen.kernels.ghash.asm.GhashCode (code, hk_words, rodata_bytes, constant_time)
    prefix: str


def build_ghash_firmware(prefix: str, gc, core: str, workdir: Path) -> GhashFirmware:
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


def measure(gc, prefix: str, core: str, nbytes: int = 4096, seed: int = 1) -> dict:
    """Cycles of one {prefix}_ghash_blocks call on nbytes (cycle model of emu/bench/cycles.py), for
    a GHASH kernel the caller generated (``gen.kernels.ghash.thumb2.thumb2(prefix, impl, core)``)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as d:
        fw = build_ghash_firmware(prefix, gc, core, Path(d))
        run = GhashRunner(fw)
        hk = run.init(rng.randbytes(16), count_cycles=True)
        _, cyc = run.blocks(hk, rng.randbytes(16), rng.randbytes(nbytes), count_cycles=True)
    return {"core": core, "bytes": nbytes, "cycles": cyc, "init_cycles": run.init_cycles,
            "cycles_per_byte": cyc / nbytes, "hk_bytes": 4 * gc.hk_words,
            "rodata_bytes": gc.rodata_bytes, "text_bytes": fw.symbols[f"{prefix}_ghash_blocks"][1],
            "constant_time": gc.constant_time}

