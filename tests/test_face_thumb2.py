"""FACE in generated Thumb-2 (gen/targets/cortex_m.py over gen/kernels/thumb2_function.py):
keystream equal to the plain kernel's on the emulated Cortex-M4 and Cortex-M3 (random keys,
counters just below the carries of bytes 15, 14, 13, 12 and the inc32 wrap, odd block counts,
streaming at odd offsets), the GCTR cycle figures on the M4 model, and thumb2_function on
random IR programs.

Run as a script (``python tests/test_face_thumb2.py [cortex-m4|cortex-m3] [128 192 256]``) it
prints the GCTR table (off / r1 / r2, set-up and fill cycles, break-even length).
"""
from __future__ import annotations

import random
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen import ir

from gen.drop import render as generate                                # noqa: E402
from gen.config import from_dict                            # noqa: E402
from gen.isa import thumb2 as t2                            # noqa: E402
from gen.kernels.thumb2_function import Param, compile_function, execute   # noqa: E402
from emu.machines import toolchain                                   # noqa: E402
from emu.machines.machine import Machine                             # noqa: E402

from tests.test_face import (CTR_HARNESS, GCTR_HARNESS, HarnessMachine, _ecb,  # noqa: E402
                             _inc32_blocks, _ref_keystream, r2_odd)


@lru_cache(maxsize=None)
def _header(keybits: int, face: str, core: str, spill: str = "stack") -> tuple[Path, str]:
    cfg = from_dict({"name": f"t{keybits}{face}{core[-2:]}{spill[0]}", "cipher": f"aes{keybits}", "mode": "gcm",
                     "target": core, "aes": {"slicing": "ffs"}, "ctr": {"face": face},
                     "schedule": {"spill": spill}})
    work = Path(tempfile.mkdtemp(prefix="face-t2-"))
    hp = work / f"{cfg.name}.h"
    hp.write_text(generate.header(cfg, "tests/test_face_thumb2.py")[0])
    return hp, cfg.prefix


UPDATE_HARNESS = r'''
/* GCTR as GCM runs it: start(), then update() over n bytes with GHASH switched off (the bulk
 * path: keystream pairs XORed straight into out), then the stream wiped. */
uint32_t sg_gctr_update(const uint8_t *iv, const uint8_t *in, uint32_t n, uint8_t *out)
{
    F(start)(&st, &ctx, iv, 12, 0);
    st.nohash = 1u;
    F(update)(&st, in, n, out);
#ifdef FACE
    F(face_wipe)(&st);
#else
    F(zero)(&st, sizeof st);
#endif
    return 0;
}
'''


class Bench(HarnessMachine):
    """A Thumb-2 drop + the GCTR and CTR harnesses of tests/test_face.py, on the emulated core."""

    def __init__(self, keybits: int, face: str, core: str, spill: str = "stack"):
        hp, prefix = _header(keybits, face, core, spill)
        super().__init__(hp, prefix, face, core,
                         GCTR_HARNESS + CTR_HARNESS.replace("#include HDR", "") + UPDATE_HARNESS, "h", keybits,
                         cflags=tuple(toolchain.header_cflags(hp)))

    def gctr_update(self, iv: bytes, n: int) -> tuple[int, bytes]:
        """Cycles of start + update (GHASH off) over n zero bytes: the keystream as GCM uses it."""
        self.m.reset_buffers()
        ivp, src, out = self.m.alloc(12, iv), self.m.alloc(n), self.m.alloc(n)
        self.call("sg_gctr_update", ivp, src, n, out)
        return self.cycles, self.m.read(out, n)

    def ctr(self, key: bytes, ctr: bytes, data: bytes, chunk: int, misalign: int = 0) -> bytes:
        self.m.reset_buffers()
        k, c = self.m.alloc(len(key), key), self.m.alloc(16, ctr)
        src = self.m.alloc(len(data), data, offset=misalign)
        dst = self.m.alloc(len(data) + 4, offset=(3 * misalign) % 4)
        assert self.call("sg_ctr", k, len(key), c, src, len(data), dst, chunk) == 0
        return self.m.read(dst, len(data))


@lru_cache(maxsize=None)
def bench(keybits: int, face: str, core: str, spill: str = "stack") -> Bench:
    return Bench(keybits, face, core, spill)


def _want(key, ctr, data):
    ks = _ecb(key, _inc32_blocks(ctr, -(-len(data) // 16)))[:len(data)]
    return bytes(a ^ b for a, b in zip(data, ks))


# ---------------------------------------------------------------------------------------------
# correctness on the emulated cores
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("core,keybits,face,spill", [
    ("cortex-m4", 128, "r2", "stack"), ("cortex-m4", 128, "r1", "stack"), ("cortex-m4", 256, "r2", "stack"),
    ("cortex-m3", 128, "r2", "stack"), ("cortex-m3", 192, "r1", "stack"), ("cortex-m4", 128, "off", "stack"),
    ("cortex-m3", 256, "off", "stack"), ("cortex-m4", 128, "r2", "fpu"), ("cortex-m4", 256, "r1", "fpu")])
def test_keystream_at_carries(core, keybits, face, spill):
    """Counters just below 2^8, 2^16, 2^24, 2^32 (inc32 wraps), odd block counts, odd chunks.
    face = off runs the plain path: ctr_pairs (gen/kernels/aes/ctr_thumb2.py) steps the two
    counters itself, so the wrap inside one call is checked there too. spill = fpu: the M4F
    FACE kernels (issue 34), built with the FPU flags the header names."""
    b = bench(keybits, face, core, spill)
    rng = random.Random(f"{core}{keybits}{face}")
    for boundary in (1 << 8, 1 << 16, 1 << 24, 1 << 32):
        key = rng.randbytes(keybits // 8)
        for below, length, chunk, mis in ((1, 600, 600, 0), (2, 4128, 4128, 1), (3, 1168, 333, 3),
                                          (254, 1000, 77, 2), (40, 301, 7, 1)):
            ctr = rng.randbytes(12) + r2_odd((boundary - below) & 0xFFFFFFFF, face).to_bytes(4, "big")
            data = rng.randbytes(length)
            assert b.ctr(key, ctr, data, chunk, mis) == _want(key, ctr, data), (boundary, below, length, chunk)


@pytest.mark.parametrize("core", ("cortex-m4", "cortex-m3"))
def test_keystream_random_keys_and_counters(core):
    b = bench(128, "r2", core)
    rng = random.Random(core)
    for _ in range(6):
        key, ctr = rng.randbytes(16), rng.randbytes(15) + bytes([rng.randrange(256) | 1])   # odd: r2_odd
        nblocks = rng.choice((3, 5, 17, 63, 129, 255))         # odd block counts
        data = rng.randbytes(16 * nblocks - rng.randrange(16))
        assert b.ctr(key, ctr, data, rng.choice((1, 13, 32, 511, 4096))) == _want(key, ctr, data)


def test_gctr_equals_plain_kernel_and_cycle_target():
    """The keystream of a whole 4 KiB message equals the plain kernel's; FACE r2 costs less."""
    iv = bytes(range(12))
    off, r1, r2 = bench(128, "off", "cortex-m4"), bench(128, "r1", "cortex-m4"), bench(128, "r2", "cortex-m4")
    c_off, ks_off = off.gctr(iv, 4096)
    c_r1, ks_r1 = r1.gctr(iv, 4096)
    c_r2, ks_r2 = r2.gctr(iv, 4096)
    assert ks_off == ks_r1 == ks_r2 == _ref_keystream(off.key, iv, 4096)
    # The harness's bare keystream (face_next into st.ks, then copied): r2 9.2 %, r1 6.3 % fewer
    # cycles than face = off on the cycle model (seed 0).
    assert c_r2 < 0.93 * c_off, (c_r2, c_off, 1 - c_r2 / c_off)
    assert c_r1 < 0.96 * c_off, (c_r1, c_off, 1 - c_r1 / c_off)
    # GCTR as GCM runs it (update, GHASH off; what emu/bench/drop.py's gctr_cycles measures): r2 about
    # 14 %, r1 about 10 % fewer cycles than off, whose plain path is the XOR-fused ctr_pairs loop
    # too (the FACE kernels take that loop's orders and allocation policy, so issue 18's
    # recomputing allocator made both faster). The 20 % is NOT reached: a FACE r2 pair in its loop is 21.7 % cheaper than a
    # plain pair in ctr_pairs' loop, but the 8 group fills of the run (metrics.kernel_cycles
    # face_fill_group, about 2.4k cycles each, 4.8 c/B) and the run's set-up, carry pair and wipe
    # take back more than a third of it.
    u_off, us_off = off.gctr_update(iv, 4096)
    u_r1, us_r1 = r1.gctr_update(iv, 4096)
    u_r2, us_r2 = r2.gctr_update(iv, 4096)
    assert us_off == us_r1 == us_r2 == _ref_keystream(off.key, iv, 4096)
    assert u_r2 < 0.88 * u_off, (u_r2, u_off, 1 - u_r2 / u_off)
    assert u_r1 < 0.91 * u_off, (u_r1, u_off, 1 - u_r1 / u_off)
    # the kernels alone: a one-pair FACE r2 call (XOR fused) is at least 20 % cheaper than a
    # one-pair plain call (2053 against 2627 today)
    r2.call("sg_fenc"); e = r2.cycles
    r2.call("sg_pxor"); p = r2.cycles
    assert e < 0.80 * p, (e, p)
    c_off, _ = off.gctr(iv, 64)                  # short: FACE stays out of the way
    c_r2, ks = r2.gctr(iv, 64)
    assert ks == _ref_keystream(off.key, iv, 64)
    assert c_r2 < 1.10 * c_off, (c_r2, c_off)      # short: no run is set up (5.5 % faster today:
    #                                                the harness's off path is keystream2, FACE's plain path ctr_pairs)


def _r2_fill_plain(keybits: int, slicing: str) -> ir.Program:
    """The r2 fill the plain way: every multiple made, each plane one emit_transpose32 with its
    blockwise stages 2, 4 | 8, 16 (no stage-16-first shortcut)."""
    from gen.kernels.face import aes_face as af
    from gen.kernels.aes.fixsliced import alignments, check_args
    a2 = alignments(check_args(keybits, slicing), slicing)[2]
    b = ir.Builder("plain_fill")
    cst = af.Consts(b)
    b.declare("fs", af.FS_WORDS["r2"], "r")
    b.declare("sv", 8, "r")
    b.declare("tab", af.GROUP * af.ENTRY_WORDS["r2"], "w")
    y = af.emit_r2_sboxes(b, [])
    for plane in range(8):
        t = plane & 1
        rows: list = [None] * 32
        for r2 in range(4):
            for r in range(4):
                rows[af.packed_pos(r2, (-r) % 4, a2) + t] = af.y_multiple(b, y[r], af.mc_coef(r2, r), plane)
        c2 = b.ld("fs", 32 + plane)
        af.emit_transpose32(b, cst, rows, lambda w_ix, w, plane=plane, c2=c2: b.st(
            "tab", 8 * (w_ix >> 1) + plane, b.eor(w, c2)), stages=(2, 4, 8, 16), parity=t)
    return b.finish()


@pytest.mark.parametrize("slicing", ["ffs", "sfs"])
def test_r2_fill_stage16_first_equals_plain_transposes(slicing):
    """The r2 fill (S-boxes in R2_SBOX_ORDER, stage 16 first with the (Y, 3Y) pair made from the
    (2Y, Y) pair's words, stages 2, 4, 8 after it) writes the same table as the plain transposes,
    with fewer ops."""
    from gen.kernels.face import aes_face as af
    fill = af.face_fill_ir(128, slicing, "r2")
    plain = _r2_fill_plain(128, slicing)
    assert len(fill.ops) < len(plain.ops)
    rng = random.Random(11)
    for _ in range(20):
        mem = {"fs": [rng.getrandbits(32) for _ in range(af.FS_WORDS["r2"])],
               "sv": [rng.getrandbits(32) for _ in range(8)]}
        assert ir.run(fill, mem)["tab"] == ir.run(plain, mem)["tab"]


# ---------------------------------------------------------------------------------------------
# thumb2_function on random IR programs
# ---------------------------------------------------------------------------------------------

def random_program(rng: random.Random, n_ops: int = 300) -> ir.Program:
    b = ir.Builder("rnd")
    sizes = {"a": 5, "b": 3, "c": 7, "d": 2, "e": 4}
    for m, n in sizes.items():       # a and c (pinned below) are constant: reloadable any time
        b.declare(m, n, "r", constant=m in ("a", "c"))
    b.declare("o", 9, "w")
    b.declare("p", 3, "w")
    vals = [b.ld(m, i) for m, n in sizes.items() for i in range(n)]
    vals += [b.movc(rng.getrandbits(32)), b.movc(0x0000FFFF), b.movc(0xFF00FF00)]
    for _ in range(n_ops):
        k = rng.random()
        x, y = rng.choice(vals[-20:]), rng.choice(vals)
        if k < 0.55:
            kind = rng.choice(ir.ALU_KINDS)
            sh = rng.choice([None, ("lsl", rng.randint(1, 31)), ("lsr", rng.randint(1, 31)),
                             ("ror", rng.randint(1, 31))])
            vals.append(b.alu(kind, x, y, shift=sh))
        elif k < 0.7:
            vals.append(b.alu(rng.choice(ir.ALU_KINDS), x, imm=rng.choice((0xFF, 0x55555555, 0x0F0F0F0F, 0x3FC))))
        elif k < 0.8:
            vals.append(b.shift(rng.choice(("lsl", "lsr", "ror")), x, rng.randint(1, 31)))
        elif k < 0.85:
            vals.append(b.mvn(x))
        elif k < 0.9:
            vals.append(b.movc(rng.getrandbits(32)))
        else:
            vals.append(b.ld(rng.choice(list(sizes)), 0))
    for i in range(9):
        b.st("o", i, vals[-1 - 3 * i])
    for i in range(3):
        b.st("p", i, vals[-2 - 5 * i])
    return b.finish()


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_thumb2_function_random_program(seed):
    rng = random.Random(seed)
    prog = random_program(rng)
    params = [Param("o", "uint8_t *", "o"), Param("a", "const uint32_t *", "a"), Param("unused", "int", None),
              Param("b", "const uint8_t *", "b"), Param("c", "const uint32_t *", "c"),
              Param("p", "uint32_t *", "p"), Param("d", "const uint32_t *", "d"), Param("e", "const uint32_t *", "e")]
    core = ("cortex-m4", "cortex-m3")[seed % 2]
    fn = compile_function(prog, "sg_rnd", params, core, seed=seed - 1, pinned=("a",) if seed != 2 else ())
    inputs = {m: [rng.getrandbits(32) for _ in range(prog.mems[m][0])] for m in prog.inputs}
    want = ir.run(prog, inputs)
    mem, args = {}, []
    for k, p in enumerate(params):
        base = 0x20000000 + 0x1000 * k
        args.append(base if p.mem else 0x1234)
        for i, w in enumerate(inputs.get(p.mem, ())):
            mem[base + 4 * i] = w
    regs = execute(fn, args, mem)
    for k, p in enumerate(params):
        if p.mem in prog.outputs:
            got = [mem.get(args[k] + 4 * i) for i in range(prog.mems[p.mem][0])]
            assert got == want[p.mem], p.mem
    assert regs["sp"] == 0x2000F000                          # the frame is unwound
    assert all(regs[r] == 0 for r in ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11"))  # restored
    text = fn.c_text()
    assert f".global sg_rnd" in text and ".thumb_func" in text and ".size sg_rnd" in text
    assert fn.prototype.startswith("void sg_rnd(uint8_t *o, const uint32_t *a, int unused,")
    assert {i.mnem for i in fn.insns} <= {"ldr", "str", "strd", "push", "pop", "add", "sub", "movw", "movt",
                                          *t2.LOGIC, *t2.MOVES, *t2.SHIFTS}
    assert fn.cycles > len(prog.ops)


def test_thumb2_function_spills_to_fpu_registers_one_for_one():
    """``spill = "fpu"`` (the M4F FACE kernels, issue 34): the same allocation, each spill store and
    reload a VMOV to or from s0-s15 and no spill slot left on the stack, the same result on the
    instruction model, fewer modelled cycles and a smaller frame; refused without an FPU."""
    rng = random.Random(4)
    prog = random_program(rng, 400)
    params = [Param(m, "uint32_t *", m) for m in ("o", "a", "b", "c", "p", "d", "e")]
    stack = compile_function(prog, "sg_rnd", params, "cortex-m4", pinned=("a",))
    fpu = compile_function(prog, "sg_rnd", params, "cortex-m4", pinned=("a",), spill="fpu")
    assert (fpu.spills, fpu.reloads) == (stack.spills, stack.reloads) and stack.spills > 10
    vmovs = [i for i in fpu.insns if i.mnem == "vmov"]
    assert len(vmovs) == fpu.spills + fpu.reloads
    assert {r for i in vmovs for r in (i.dst, *i.srcs) if r.startswith("s")} <= {f"s{k}" for k in range(16)}
    assert not [i for i in fpu.insns if i.base == "sp" and i.slot is not None and i.slot >= 0]
    assert fpu.cycles < stack.cycles and fpu.stack_bytes < stack.stack_bytes
    inputs = {m: [rng.getrandbits(32) for _ in range(prog.mems[m][0])] for m in prog.inputs}
    want = ir.run(prog, inputs)
    # fpu_homes (the looped FACE kernels): the homes too are FPU registers, the stack argument's
    # after its load; r0-r3 are not pushed, every pointer reload is a VMOV, s16.. (a home past
    # the spill slots) are saved and restored
    homed = compile_function(prog, "sg_rnd", params, "cortex-m4", pinned=("a",), spill="fpu", fpu_homes=True)
    assert homed.insns[0].regs == ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr")
    assert set(homed.fpu_arg_homes) == {"r0", "r2", "r3", "r12", "r11", "r10"}     # b, c, p, d, e (stack)
    assert [i.text().split("@")[0].strip() for i in homed.insns if i.note == "home"] == [
        f"vmov   {sreg}, {reg}" for reg, sreg in homed.fpu_arg_homes.items()]
    assert not [i for i in homed.insns if i.mnem == "ldr" and i.base == "sp" and i.note != "stack argument"]
    sp_words = lambda fn: sum(1 for i in fn.insns if i.base == "sp")
    assert homed.base_reloads > 0 and sp_words(homed) == 3 < sp_words(fpu)       # the stack arguments' loads
    for fn in (fpu, homed):
        mem, args = {}, []
        for k, p in enumerate(params):
            args.append(0x20000000 + 0x1000 * k)
            mem.update({args[-1] + 4 * i: w for i, w in enumerate(inputs.get(p.mem, ()))})
        saved = {f"s{k}": 0x5000 + k for k in range(16, 32)}
        regs = execute(fn, args, mem, fpu=saved)
        for k, p in enumerate(params):
            if p.mem in prog.outputs:
                assert [mem.get(args[k] + 4 * i) for i in range(prog.mems[p.mem][0])] == want[p.mem]
        assert {r: regs[r] for r in saved} == saved and regs["sp"] == 0x2000F000
    with pytest.raises(ValueError, match="fpu_homes needs spill = fpu"):
        compile_function(prog, "sg_rnd", params, "cortex-m4", fpu_homes=True)
    with pytest.raises(ValueError, match="cortex-m3 has none"):
        compile_function(prog, "sg_rnd", params, "cortex-m3", spill="fpu")
    with pytest.raises(ValueError, match="spill must be one of"):
        compile_function(prog, "sg_rnd", params, "cortex-m4", spill="heap")


def test_thumb2_function_assembles_and_runs_in_unicorn(tmp_path):
    """The printed text through the real assembler, run on the emulated M3 (unaligned buffers)."""
    rng = random.Random(9)
    prog = random_program(rng, 200)
    params = [Param(m, "uint32_t *" if prog.mems[m][1] == "w" else "const uint8_t *", m)
              for m in ("o", "a", "b", "c", "p", "d", "e")]
    fn = compile_function(prog, "sg_rnd", params, "cortex-m3", pinned=("c",))
    src = tmp_path / "f.c"
    src.write_text("#include <stdint.h>\n" + fn.c_text())
    fw = toolchain.link_firmware([src], "cortex-m3", tmp_path, stem="f", compiler=[
        toolchain.tool(toolchain.ARM_GCC), *toolchain.CORE_FLAGS["cortex-m3"], *toolchain.STRICT, "-ffreestanding"])
    addr = fw.addr("sg_rnd")
    m = Machine("cortex-m3", fw.image)
    inputs = {mm: [rng.getrandbits(32) for _ in range(prog.mems[mm][0])] for mm in prog.inputs}
    want = ir.run(prog, inputs)
    args = []
    for k, p in enumerate(params):
        data = b"".join(w.to_bytes(4, "little") for w in inputs.get(p.mem, [0] * prog.mems[p.mem][0]))
        args.append(m.alloc(len(data), data, offset=k % 4))            # misaligned on purpose
    m.call(addr & ~1, *args)
    for k, p in enumerate(params):
        if p.mem in prog.outputs:
            raw = m.read(args[k], 4 * prog.mems[p.mem][0])
            assert [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(len(raw) // 4)] == want[p.mem]


# ---------------------------------------------------------------------------------------------
# the performance table
# ---------------------------------------------------------------------------------------------

def performance_table(core: str = "cortex-m4", keybits_list=(128, 192, 256), n: int = 4096) -> list[str]:
    iv = bytes(range(12))
    lines = []
    for keybits in keybits_list:
        base = ubase = None
        ref = bench(keybits, "off", core)
        for face in ("off", "r1", "r2"):
            b = bench(keybits, face, core)
            c, ks = b.gctr(iv, n)
            assert ks == _ref_keystream(b.key, iv, n)
            base = base or c
            u, us = b.gctr_update(iv, n)
            assert us == _ref_keystream(b.key, iv, n)
            ubase = ubase or u
            line = (f"{core} AES-{keybits} {face:3} GCTR {n} B: {c:7d} cycles {c / n:6.2f} c/B "
                    f"{100 * (1 - c / base):5.1f}% less | update path {u / n:6.2f} c/B {100 * (1 - u / ubase):5.1f}% less")
            if face != "off":
                b.gctr(iv, 64)
                b.call("sg_setup"); s = b.cycles
                b.call("sg_fill", 0); f = b.cycles
                b.call("sg_fenc"); e = b.cycles
                b.call("sg_pxor"); p = b.cycles
                line += f" | setup {s} + fill {f}/group (x8 = {s + 8 * f}); pair {e} vs plain + XOR {p}"
                even = next((m for m in range(32, 4097, 32) if b.gctr(iv, m)[0] < ref.gctr(iv, m)[0]), None)
                line += f"; break-even {even} B"
            lines.append(line)
            print(line, flush=True)
    return lines


if __name__ == "__main__":
    args = sys.argv[1:]
    cores = [a for a in args if a.startswith("cortex")] or ["cortex-m4", "cortex-m3"]
    bits = tuple(int(a) for a in args if a.isdigit()) or (128, 192, 256)
    for c in cores:
        performance_table(c, bits)
