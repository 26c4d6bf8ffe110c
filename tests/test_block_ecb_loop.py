"""The ECB loop of the block-cipher drops (gen/kernels/block_ecb_thumb2.py): ecb_encrypt runs its
whole run in one call of ``encrypt_blocks_n``; the generator's figures for a step of that loop
and for one ``encrypt_blocks`` call agree with the emulated cycle model (emu/cycles.py) on the
core's own CPU model; the loop gives the reference model's blocks, in place too; counter-mode
drops keep the straight-line kernel (they call it once per refill)."""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest

from emu import layout, toolchain
from emu.blockcipher import ecb_reference
from gen import generate, presets
from gen.kernels import block_ecb_thumb2 as ECB

HARNESS = r'''
#include HDR
#define F_(a, b) a##_##b
#define F2(a, b) F_(a, b)
#define F(x) F2(PFX, x)
static F(ctx) ctx;
int sg_init(const uint8_t *key, uint32_t keylen) { return F(init)(&ctx, key, keylen); }
uint32_t sg_loop(uint8_t *out, const uint8_t *in, uint32_t n) { F(encrypt_blocks_n)(ctx.rk, out, in, n); return 0; }
uint32_t sg_one(uint8_t *out, const uint8_t *in) { F(encrypt_blocks)(ctx.rk, out, in); return 0; }
uint32_t sg_ecb(uint8_t *out, const uint8_t *in, uint32_t n) { F(ecb_encrypt)(&ctx, out, in, n); return 0; }
'''

#: one SPEEDY drop on the M3 (its CPU model in Unicorn), one Rijndael-256 drop on the M4
CASES = ["speedy5ecb-m3", "rijndael256ecb-m4"]


class Drop:
    def __init__(self, name: str):
        from emu.cycles import CycleCounter
        from emu.machine import Machine
        self.config = cfg = presets.preset(name)
        header, self.ks = generate.header(cfg, "tests/test_block_ecb_loop.py")
        self.text = header
        work = Path(tempfile.mkdtemp(prefix="ecbloop-"))
        hp = work / f"{cfg.name}.h"
        hp.write_text(header)
        src = work / "ecbloop_harness.c"
        src.write_text(HARNESS)
        p = cfg.prefix
        defs = [f'-DHDR="{hp}"', f"-DPFX={p}", f"-D{p.upper()}_IMPLEMENTATION"]
        fw = toolchain.link_firmware([src], cfg.target, work, stem="ecbloop", defines=defs, compiler=[
            toolchain.tool(toolchain.ARM_GCC), *toolchain.CORE_FLAGS[cfg.target], *toolchain.STRICT,
            "-Wno-unused-function", "-ffreestanding"])
        self.syms = {name: addr for name, (addr, _) in fw.symbols.items()}
        self.m = Machine(cfg.target, fw.image)
        self.cc = CycleCounter(self.m.uc, cfg.target, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
        self.cc.attribute(fw.symbols)
        self.key = bytes(random.Random(name).getrandbits(8) for _ in range(cfg.spec.key_bytes))
        assert self.call("sg_init", self.m.alloc(len(self.key), self.key), len(self.key)) == 0

    def call(self, fn: str, *args: int) -> int:
        self.cc.reset()
        return self.m.call(self.syms[fn], *args)

    def cycles_in(self, caller: str, *args: int) -> int:
        """Cycles inside the kernel (encrypt_blocks and the loop it falls into) during one call."""
        names = {f"{self.config.prefix}_encrypt_blocks", f"{self.config.prefix}_encrypt_blocks_n"}
        self.call(caller, *args)
        return sum(c for name, c in self.cc.by_function().items() if name and name.split(".")[0] in names)


@pytest.fixture(scope="module", params=CASES)
def drop(request):
    return Drop(request.param)


def test_loop_step_and_call_match_emulation(drop):
    m, b = drop.m, drop.config.spec.block_bytes
    m.reset_buffers()
    src, dst = m.alloc(3 * b), m.alloc(3 * b)
    one = drop.cycles_in("sg_loop", dst, src, 1)
    three = drop.cycles_in("sg_loop", dst, src, 3)
    k = drop.ks.kernel_cycles
    assert (three - one) % 2 == 0 and (three - one) // 2 == k["encrypt_blocks_n_per_step"]
    assert drop.cycles_in("sg_one", dst, src) == k["encrypt_blocks_call"] == one + 1   # + movs r3, #1
    assert k["encrypt_blocks_n_per_step"] < k["encrypt_blocks_call"]       # no frame per block


def test_ecb_runs_the_loop_and_matches_the_reference_in_place(drop):
    spec, m = drop.config.spec, drop.m
    rng = random.Random(7)
    for n in (1, 2, 5):
        data = bytes(rng.getrandbits(8) for _ in range(n * spec.block_bytes))
        want = ecb_reference(spec, drop.key, data)
        m.reset_buffers()
        src, dst = m.alloc(len(data), data), m.alloc(len(data))
        drop.call("sg_ecb", dst, src, n)
        assert bytes(m.read(dst, len(data))) == want
        drop.call("sg_ecb", src, src, n)                                   # out == in
        assert bytes(m.read(src, len(data))) == want
    # one call of the kernel for the whole run, whatever n: no C loop around it
    assert f"{drop.config.prefix}_encrypt_blocks_n(ctx->rk, out, in, nblocks)" in drop.text


def test_the_kernel_has_one_branch_the_loops(drop):
    from gen.isa import thumb2 as t2
    asm = drop.text.split(f"{drop.config.prefix}_encrypt_blocks:")[1].split(".popsection")[0]
    lines = [ln.strip().strip('"').replace("\\n", "").strip() for ln in asm.splitlines()]
    mnems = [t2.parse_mnemonic(ln) for ln in lines if ln and not ln.startswith(".") and not ln.endswith(":")]
    assert len(mnems) > 500
    branches = [mn for mn in mnems if mn in ("b", "bx", "bl", "blx", "cbz", "cbnz") or
                (mn.startswith("b") and len(mn) == 3 and mn not in ("bic", "bfi", "bfc"))]
    assert branches == ["blo"] and "blo    1b" in asm


def test_counter_mode_drops_keep_the_straight_kernel():
    header, ks = generate.header(presets.preset("speedy5ctr-m4"), "tests/test_block_ecb_loop.py")
    assert "encrypt_blocks_n" not in header and "encrypt_blocks_n_per_step" not in ks.kernel_cycles
    assert not ks.encrypt_n


@pytest.mark.parametrize("step", [16, 24, 28, 32, 40, 48])
def test_end_pointer_computes_in_plus_step_n(step):
    """Each form of ``end_pointer`` (shifted ADD, two ADDs, MOV + MLA) is r2 + step r3."""
    from gen.isa import thumb2 as t2
    for n, base in ((1, 0x20000000), (7, 0x20001234)):
        regs = {"r2": base, "r3": n, "r12": 0}
        for ln in ECB.end_pointer(step):
            mn, ops = ln.split("@")[0].split(None, 1)
            ops = [o.strip() for o in ops.split(",")]
            val = lambda o: regs[o] if o in regs else int(o.lstrip("#"))
            if mn == "mov":
                regs[ops[0]] = val(ops[1])
            elif mn == "mla":
                regs[ops[0]] = (regs[ops[1]] * regs[ops[2]] + regs[ops[3]]) & 0xFFFFFFFF
            else:
                assert mn == "add"
                shifted = val(ops[2]) << int(ops[3].split("#")[1]) if len(ops) == 4 else val(ops[2])
                regs[ops[0]] = (val(ops[1]) + shifted) & 0xFFFFFFFF
        assert regs["r3"] == base + step * n, (step, ECB.end_pointer(step))
        assert all(t2.parse_mnemonic(ln) in ("add", "mov", "mla") for ln in ECB.end_pointer(step))
