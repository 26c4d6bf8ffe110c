"""The loops of the block-cipher drops. ECB (gen/kernels/block_ecb_thumb2.py): ecb_encrypt runs
its whole run in one call of ``encrypt_blocks_n``. Counter mode (gen/kernels/block_ctr_thumb2.py,
SPEEDY): ctr_update runs its whole blocks in one call of ``ctr_blocks``, the XOR fused and the
counter stepped in the loop. The generator's figures for a step of each loop (and for one
``encrypt_blocks`` call) agree with the emulated cycle model (emu/bench/cycles.py) on the core's own
CPU model; the loops give the reference model's output, in place too, across a counter wrap; ECB
drops have no ctr kernel, counter-mode drops keep the straight-line ``encrypt_blocks``."""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest

from emu.checks.blockcipher import ctr_reference, ecb_reference
from gen import presets
from gen.drop import render as generate
from gen.kernels import block_ecb_thumb2 as ECB
from tests.test_face import HarnessMachine

HARNESS = r'''
#include HDR
#define F_(a, b) a##_##b
#define F2(a, b) F_(a, b)
#define F(x) F2(PFX, x)
static F(ctx) ctx;
int sg_init(const uint8_t *key, uint32_t keylen) { return F(init)(&ctx, key, keylen); }
#ifndef CTR
uint32_t sg_loop(uint8_t *out, const uint8_t *in, uint32_t n) { F(encrypt_blocks_n)(ctx.rk, out, in, n); return 0; }
uint32_t sg_one(uint8_t *out, const uint8_t *in) { F(encrypt_blocks)(ctx.rk, out, in); return 0; }
#endif
uint32_t sg_ecb(uint8_t *out, const uint8_t *in, uint32_t n) { F(ecb_encrypt)(&ctx, out, in, n); return 0; }
#ifdef CTR
static uint8_t cb[BLOCK];
uint32_t sg_ctr_blocks(uint8_t *out, const uint8_t *in, uint32_t n, const uint8_t *iv, uint8_t *cb_after)
{
    uint32_t i;
    for (i = 0; i < BLOCK; i++) cb[i] = iv[i];
    F(ctr_blocks)(ctx.rk, out, cb, in, in + BLOCK * n);
    for (i = 0; i < BLOCK; i++) cb_after[i] = cb[i];
    return 0;
}
uint32_t sg_ctr(const uint8_t *iv, const uint8_t *in, uint32_t len, uint8_t *out)
{
    return (uint32_t)F(ctr)(&ctx, iv, BLOCK, in, len, out);
}
#endif
'''

#: one SPEEDY drop on the M3 (its CPU model in Unicorn), one Rijndael-256 drop on the M4
CASES = ["speedy5ecb-m3", "rijndael256ecb-m4"]
#: counter mode: the family with ctr_blocks, on both cores
CTR_CASES = ["speedy5ctr-m3", "speedy7ctr-m4"]


class Drop(HarnessMachine):
    """The preset's drop linked with HARNESS (BLOCK and, in ctr mode, CTR defined in front of it),
    on its core, ``init`` run with the key bytes 0, 1, 2, ...; the kernel's cycles attributed."""

    def __init__(self, name: str):
        self.config = cfg = presets.preset(name)
        header, self.ks = generate.header(cfg, "tests/test_block_loops.py")
        self.text = header
        hp = Path(tempfile.mkdtemp(prefix="blockloops-")) / f"{cfg.name}.h"
        hp.write_text(header)
        source = f"#define BLOCK {cfg.spec.block_bytes}\n" + ("#define CTR\n" if cfg.mode == "ctr" else "") + HARNESS
        super().__init__(hp, cfg.prefix, "off", cfg.target, source, "blockloops", 8 * cfg.spec.key_bytes)
        self.cc.attribute(self.symbols)

    def cycles_in(self, caller: str, *args: int, kernel: str = "encrypt_blocks") -> int:
        """Cycles inside ``kernel`` (encrypt_blocks: with the loop it falls into) during one call."""
        names = {f"{self.config.prefix}_{kernel}"} | ({f"{self.config.prefix}_encrypt_blocks_n"}
                                                      if kernel == "encrypt_blocks" else set())
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
    assert _branches(drop.text, f"{drop.config.prefix}_encrypt_blocks") == ["blo"]


@pytest.fixture(scope="module", params=CTR_CASES)
def ctr_drop(request):
    return Drop(request.param)


def _branches(text: str, sym: str) -> list:
    from gen.isa import thumb2 as t2
    asm = text.split(f'"{sym}:\\n"')[1].split(".popsection")[0]        # from its label in the __asm__
    lines = [ln.strip().strip('"').replace("\\n", "").strip() for ln in asm.splitlines()]
    mnems = [t2.parse_mnemonic(ln) for ln in lines if ln and not ln.startswith(".") and not ln.endswith(":")]
    assert len(mnems) > 500
    return [mn for mn in mnems if mn in ("b", "bx", "bl", "blx", "cbz", "cbnz") or
            (mn.startswith("b") and len(mn) == 3 and mn not in ("bic", "bfi", "bfc"))]


def test_ctr_loop_step_matches_emulation(ctr_drop):
    m, b = ctr_drop.m, ctr_drop.config.spec.block_bytes
    m.reset_buffers()
    src, dst, iv, after = m.alloc(3 * b), m.alloc(3 * b), m.alloc(b, bytes(b)), m.alloc(b)
    one = ctr_drop.cycles_in("sg_ctr_blocks", dst, src, 1, iv, after, kernel="ctr_blocks")
    three = ctr_drop.cycles_in("sg_ctr_blocks", dst, src, 3, iv, after, kernel="ctr_blocks")
    k = ctr_drop.ks.kernel_cycles
    assert (three - one) % 2 == 0 and (three - one) // 2 == k["ctr_blocks_per_step"]
    assert _branches(ctr_drop.text, f"{ctr_drop.config.prefix}_ctr_blocks") == ["blo"]


def test_ctr_blocks_steps_the_counter_across_its_wrap(ctr_drop):
    spec, m = ctr_drop.config.spec, ctr_drop.m
    b = spec.block_bytes
    iv = bytes(range(b - 4)) + b"\xff\xff\xff\xfe"
    data = bytes(random.Random(3).getrandbits(8) for _ in range(4 * b))
    m.reset_buffers()
    src, dst, ivp, after = m.alloc(len(data), data), m.alloc(len(data)), m.alloc(b, iv), m.alloc(b)
    ctr_drop.call("sg_ctr_blocks", dst, src, 4, ivp, after)
    assert bytes(m.read(dst, len(data))) == ctr_reference(spec, ctr_drop.key, iv, data)
    assert bytes(m.read(after, b)) == iv[:-4] + b"\x00\x00\x00\x02"        # + 4 mod 2^32


def test_ctr_matches_the_reference_whole_blocks_and_pieces_in_place(ctr_drop):
    spec, m = ctr_drop.config.spec, ctr_drop.m
    b = spec.block_bytes
    rng = random.Random(11)
    iv = bytes(range(b - 4)) + b"\xff\xff\xff\xfd"
    for n in (1, b - 1, b, b + 1, 5 * b, 5 * b + 7):
        data = bytes(rng.getrandbits(8) for _ in range(n))
        want = ctr_reference(spec, ctr_drop.key, iv, data)
        m.reset_buffers()
        ivp, src, dst = m.alloc(b, iv), m.alloc(n, data), m.alloc(n)
        assert ctr_drop.call("sg_ctr", ivp, src, n, dst) == 0
        assert bytes(m.read(dst, n)) == want, n
        assert ctr_drop.call("sg_ctr", ivp, src, n, src) == 0                # out == in
        assert bytes(m.read(src, n)) == want, n
    assert f"{ctr_drop.config.prefix}_ctr_blocks(s->ctx->rk, out, s->cb, in, in + n)" in ctr_drop.text


def test_each_mode_has_its_loop_only():
    header, ks = generate.header(presets.preset("speedy5ctr-m4"), "tests/test_block_loops.py")
    assert "encrypt_blocks_n" not in header and "encrypt_blocks_n_per_step" not in ks.kernel_cycles
    assert not ks.encrypt_n and ks.ctr_blocks and "ctr_blocks_per_step" in ks.kernel_cycles
    assert "speedy5ctr_m4_encrypt_blocks(const uint32_t *rk" in header      # ECB and partial blocks
    header, ks = generate.header(presets.preset("speedy5ecb-m4"), "tests/test_block_loops.py")
    assert "ctr_blocks" not in header and not ks.ctr_blocks
    header, ks = generate.header(presets.preset("rijndael256ctr-m4"), "tests/test_block_loops.py")
    assert "ctr_blocks" not in header and "encrypt_blocks_n" not in header      # no second copy


@pytest.mark.parametrize("step", [16, 24, 28, 32, 40, 48])
def test_entry_computes_out_plus_step_n_and_in_minus_out(step):
    """Each form of ``end_pointer`` (shifted ADD, two ADDs, MOV + MLA) is r1 + step r3, and the
    entry's last line leaves in - out in r2 (the homes of an out-stepped loop)."""
    from gen.isa import thumb2 as t2
    for n, base in ((1, 0x20000000), (7, 0x20001234)):
        regs = {"r1": base, "r2": 0x20004000, "r3": n, "r12": 0}
        for ln in ECB.entry(step):
            mn, ops = ln.split("@")[0].split(None, 1)
            ops = [o.strip() for o in ops.split(",")]
            val = lambda o: regs[o] if o in regs else int(o.lstrip("#"))
            if mn == "mov":
                regs[ops[0]] = val(ops[1])
            elif mn == "mla":
                regs[ops[0]] = (regs[ops[1]] * regs[ops[2]] + regs[ops[3]]) & 0xFFFFFFFF
            elif mn == "sub":
                regs[ops[0]] = (val(ops[1]) - val(ops[2])) & 0xFFFFFFFF
            else:
                assert mn == "add"
                shifted = val(ops[2]) << int(ops[3].split("#")[1]) if len(ops) == 4 else val(ops[2])
                regs[ops[0]] = (val(ops[1]) + shifted) & 0xFFFFFFFF
        assert regs["r3"] == base + step * n, (step, ECB.end_pointer(step))
        assert regs["r2"] == 0x20004000 - base and ECB.entry(step)[:-1] == ECB.end_pointer(step)
        assert all(t2.parse_mnemonic(ln) in ("add", "mov", "mla") for ln in ECB.end_pointer(step))


def test_back_edge_skips_a_pointer_the_body_left_in_its_register():
    """held_at_end: a pointer register the body never wrote, or last wrote by its own reload with
    its home untouched since, still holds the pointer: the back edge does not reload it."""
    from gen.isa import thumb2 as t2
    from gen.kernels.thumb2_function import held_at_end, out_stepped_edge
    fpu = {"r0": "s12", "r1": "s13", "r2": "s14", "r3": "s15"}
    get = lambda r: t2.Insn("vmov", dst=r, srcs=(fpu[r],))
    regs = ("r0", "r1", "r2", "r3")
    body = [t2.ldr("r3", "r2", 0), t2.Insn("vmov", dst="r1", srcs=("s13",), note="reload"), t2.str_("r3", "r1", 0)]
    assert held_at_end(body, get, regs) == {"r0", "r1", "r2"}
    assert held_at_end(body + [t2.Insn("vmov", dst="s13", srcs=("r3",))], get, regs) == {"r0", "r2"}
    assert held_at_end(body + [t2.Insn("eor", dst="r1", srcs=("r1", "r3"))], get, regs) == {"r0", "r2"}
    assert held_at_end(body + [t2.Insn("vmov", dst="r1", srcs=("s12",))], get, regs) == {"r0", "r2"}
    homes = {"r1": 48, "r2": 52, "r3": 56}
    sget = lambda r: t2.ldr(r, "sp", homes[r])
    sbody = [t2.ldr("r1", "sp", 48), t2.str_("r4", "sp", 40)]
    assert held_at_end(sbody, sget, ("r1", "r2")) == {"r1", "r2"}
    assert held_at_end(sbody + [t2.Insn("strd", srcs=("r4", "r5"), base="sp", offset=44)], sget, ("r1", "r2")) == {"r2"}
    assert held_at_end(sbody + [t2.str_("r4", "sp", 52)], sget, ("r1", "r2")) == {"r1"}
    homes["r0"] = 44
    sput = lambda r: t2.str_(r, "sp", homes[r])
    edge, lines = out_stepped_edge(sget, sput, 32, "next", "r7", reload=("r0",), held={"r0"})
    assert [i.text() for i in edge] == ["ldr    r3, [sp, #56]", "ldr    r2, [sp, #52]", "str    r7, [sp, #48]",
                                        "add    r2, r7, r2"]
    assert lines[-2:] == ["    cmp    r7, r3", "    blo    1b"]
    edge, lines = out_stepped_edge(sget, sput, 32, "next", "r3", reload=("r0",))   # out must outlive the reloads
    assert [i.text() for i in edge[:1]] + [i.text() for i in edge[-2:]] == [
        "mov    r1, r3", "str    r1, [sp, #48]", "add    r2, r1, r2"] and "ldr    r0, [sp, #44]" in [i.text() for i in edge]
    edge, lines = out_stepped_edge(sget, sput, 32, "next", None)                   # out not stepped by the body
    assert [i.text() for i in edge[:2]] == ["ldr    r1, [sp, #48]", "add    r1, r1, #32"] and lines[-2] == "    cmp    r1, r3"


def test_post_indexed_out_steps_out_with_its_word_0_store_or_not_at_all():
    """thumb2_function.post_indexed_out: the store of out's word 0 becomes ``str rX, [rO], #32``
    and the stores after it keep their addresses (offset - 32); when something after it writes
    or reads rO, or stores through another register, or no store is at word 0, nothing changes."""
    from gen.isa import thumb2 as t2
    from gen.kernels.thumb2_function import post_indexed_out
    reload = t2.Insn("vmov", dst="r1", srcs=("s13",), note="reload out pointer")
    body = [t2.ldr("r4", "r2", 0), t2.ldr("r5", "r2", 4), reload,
            t2.str_("r4", "r1", 4), t2.str_("r5", "r1", 0), t2.Insn("eor", dst="r4", srcs=("r4", "r5")),
            t2.str_("r4", "r1", 8)]
    stepped, reg = post_indexed_out(body, 32)
    assert reg == "r1"
    assert [i.text() for i in stepped[3:]] == ["str    r4, [r1, #4]", "str    r5, [r1], #32",
                                               "eors   r4, r4, r5", "str    r4, [r1, #-24]"]
    regs, mem = {"r1": 0x400, "r2": 0x300, "s13": 0x400}, {0x300: 7, 0x304: 9}
    t2.execute(stepped, regs, mem)
    assert regs["r1"] == 0x420 and (mem[0x400], mem[0x404], mem[0x408]) == (9, 7, 7 ^ 9)
    for tail in ([t2.Insn("add", dst="r1", srcs=("r1",), imm=4)], [t2.Insn("eor", dst="r4", srcs=("r4", "r1"))],
                 [t2.str_("r4", "r6", 12)], [t2.str_("r1", "r1", 12)]):
        assert post_indexed_out(body + tail, 32) == (body + tail, None)
    no_word0 = body[:4] + body[5:]
    assert post_indexed_out(no_word0, 32) == (no_word0, None)


@pytest.mark.parametrize("core,spill", [("cortex-m4", "fpu"), ("cortex-m3", "stack")])
def test_aes_ecb_loop_runs_out_stepped_on_the_instruction_model(core, spill):
    """The AES ECB loop (gen/kernels/aes/ecb_thumb2.py) run pair after pair on gen.isa.thumb2.execute:
    ENTRY (the output's end, in - out), the prologue (in again, round keys into s16-s31 on the
    M4F), the body with its post-indexed store, the back edge (in = out + (in - out), compare on
    out): three pairs give the IR's output, apart and in place, and every register the prologue
    saved (r4-r11, s16-s31) is back at the end."""
    from gen import ir
    from gen.isa import thumb2 as t2
    from gen.kernels.aes import ecb_thumb2, fixsliced as AF
    from gen.kernels.thumb2_function import split_frame
    c = ecb_thumb2.compile_kernel(128, "ffs", core, 0, spill)
    start, end, _ = split_frame(c.insns)
    edge, lines = ecb_thumb2.loop_edge(c)
    out_reg = lines[-2].split()[1].rstrip(",")
    assert lines[-2].split()[2] == "r3" and lines[-1].split() == ["blo", "1b"]
    assert sum(i.post is not None for i in c.insns) == 1
    rng = random.Random(3)
    prog = AF.encrypt2_ir(128, "ffs")
    rk = [rng.getrandbits(32) for _ in range(88)]
    blocks = [[rng.getrandbits(32) for _ in range(8)] for _ in range(3)]
    want = [w for b in blocks for w in ir.run(prog, {"in": b, "rk": rk})["out"]]
    RK, SP = 0x1000, 0x8000
    for IN, OUT in ((0x3000, 0x5000), (0x3000, 0x3000)):
        mem = {RK + 4 * k: w for k, w in enumerate(rk)}
        mem.update({IN + 4 * k: w for k, w in enumerate(sum(blocks, []))})
        saved = {**{f"r{k}": 0x100 + k for k in range(4, 12)}, **{f"s{k}": 0x200 + k for k in range(16, 32)}}
        regs = {f"r{k}": 0 for k in range(13)} | saved
        regs.update(r0=RK, r1=OUT, r2=IN, r3=3, sp=SP, lr=0xDEAD, pc=0)
        regs["r3"] = regs["r1"] + 32 * regs["r3"]            # ENTRY: add r3, r1, r3, lsl #5
        regs["r2"] = regs["r2"] - regs["r1"]                  # ENTRY: sub r2, r2, r1
        t2.execute(c.insns[:start], regs, mem)
        steps = 0
        while True:
            t2.execute(c.insns[start:end] + edge, regs, mem)
            steps += 1
            if not regs[out_reg] < regs["r3"]:
                break
        t2.execute(c.insns[end:], regs, mem)
        assert steps == 3 and regs["sp"] == SP and regs["pc"] == 0xDEAD
        assert [mem[OUT + 4 * k] for k in range(24)] == want
        assert {r: regs[r] for r in saved if r in regs} == saved
