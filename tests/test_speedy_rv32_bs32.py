"""SPEEDY fully bitsliced over 32 blocks on RV32 (gen/kernels/speedy/rv32_bs32*.py): the IR parts
compute SPEEDY when composed as the kernel's loops compose them; the generated kernel computes it
in Unicorn's E31 and costs what the generator says (its loop exits' mispredictions aside); the
drops take it for 32 blocks and more, in place and misaligned, with counters wrapping at a group
boundary; a wrong mask or a dropped mirror row is caught."""
from __future__ import annotations

import random

import pytest

from emu.bench.rv32_cycles import CycleCounter
from emu.checks import blockcipher
from emu.checks.runner import EmuRunner
from emu.machines import layout, toolchain
from emu.machines.machine import Machine
from gen import ciphers, ir
from gen.build import build
from gen.config import from_dict
from gen.isa import rv32 as R
from gen.kernels.speedy import rv32_bs32 as B
from gen.kernels.speedy import rv32_bs32_asm as K

CORE = "sifive-e31"


def _words(ws):
    return b"".join(w.to_bytes(4, "little") for w in ws)


@pytest.mark.parametrize("name", ["speedy5", "speedy6", "speedy7"])
def test_the_ir_parts_composed_as_the_kernel_loops_are_speedy(name):
    spec = ciphers.get(name)
    rng = random.Random(name)
    key, blocks = rng.randbytes(24), [rng.randbytes(24) for _ in range(32)]
    assert B.encrypt32(spec, key, blocks) == [spec.encrypt(key, b) for b in blocks]


def test_the_row_body_is_the_sbox_on_every_lane_with_its_polarities():
    spec = ciphers.get("speedy5")
    pols = (1, 0, 1, 1, 0, 0)
    prog, q = B.row_program(spec, pols)
    rng = random.Random(3)
    held = [rng.getrandbits(32) for _ in range(6)]
    out = ir.run(prog, {"in": held, "rk": [0] * 6})["out"]
    for lane in range(32):
        x = sum((((held[j] >> lane) & 1) ^ pols[j]) << (5 - j) for j in range(6))
        y = sum((((out[j] >> lane) & 1) ^ q[j]) << (5 - j) for j in range(6))
        assert y == spec.sbox[x], lane


def test_mixcolumns_and_the_transpose_programs():
    rng = random.Random(5)
    x = [rng.getrandbits(32) for _ in range(32)]
    mc = ir.run(B.mix_program(), {"in": x, "rk": [0]})["out"]
    for i in range(32):
        want = 0
        for a in B.MC_OFFSETS:
            want ^= x[(i + a) % 32]
        assert mc[i] == want
    t = ir.run(B.transpose_program(), {"in": x, "rk": [0]})["out"]
    assert all((t[i] >> k) & 1 == (x[k] >> i) & 1 for i in range(32) for k in range(32))


def _firmware(kernel, tmp_path):
    src = tmp_path / "k.S"
    lines = ["    " + ln if not ln.endswith(":") else ln for ln in kernel.lines]
    src.write_text("\n".join(R.function_lines(kernel.sym, lines)) + "\n")
    return toolchain.link_firmware([src], CORE, tmp_path, compiler=[
        toolchain.tool("riscv64-unknown-elf-gcc"), "-march=rv32imac", "-mabi=ilp32", "-mno-relax"])


@pytest.mark.parametrize("name", ["speedy5", "speedy7"])
def test_the_kernel_in_unicorn_is_speedy_and_costs_its_model(name, tmp_path):
    spec = ciphers.get(name)
    k = K.kernel(spec, "bs32")
    fw = _firmware(k, tmp_path)
    m = Machine(CORE, fw.image)
    counter = CycleCounter(m.uc, CORE, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    rng = random.Random(name)
    for key, pt, ct in spec.known_answers()[:2]:
        blocks = [pt] + [rng.randbytes(24) for _ in range(31)]
        masks = B.mask_words(spec, key)
        mp, ip, op = m.alloc(4 * len(masks), _words(masks)), m.alloc(768, b"".join(blocks)), m.alloc(768)
        counter.reset()
        m.call(fw.addr("bs32"), mp, op, ip)
        got = m.read(op, 768)
        assert got[:24] == ct
        assert got == b"".join(spec.encrypt(key, b) for b in blocks)
        # the model counts every instruction; the emulator adds the predictor's misses: at most
        # two a loop run (entry, exit) and one a call and a return, 3 cycles each
        r = spec.rounds
        loop_runs, calls = 2 * r + 2 * (r - 1) + 1 + (r - 1) + 2, 3 * r + 1
        assert 0 <= counter.cycles - k.cycles <= 3 * (2 * loop_runs + 2 * calls), (counter.cycles, k.cycles)
    assert m.stack_used == k.frame


def test_a_dropped_mirror_row_or_a_wrong_mask_is_caught(tmp_path):
    """The same harness fails the kernel when one row's mirror store is gone (ShiftColumns then
    reads a stale row) or one mask word is wrong."""
    spec = ciphers.get("speedy5")
    k = K.kernel(spec, "bs32")
    # drop the first mirror store (the destination is STATE_BYTES past the source pointer a2,
    # the mirror rows 768 bytes further) of the first S-box pass's mirrored body
    cut = next(n for n, ln in enumerate(k.lines) if ln.startswith("sw") and "(a2)" in ln
               and int(ln.split(",")[1].split("(")[0]) >= K.STATE_BYTES + 768)
    broken = K.Kernel(k.sym, k.lines[:cut] + k.lines[cut + 1:], k.bodies, k.frame, k.cycles, k.instructions)
    rng = random.Random(9)
    key, blocks = rng.randbytes(24), [rng.randbytes(24) for _ in range(32)]
    want = b"".join(spec.encrypt(key, b) for b in blocks)
    for kern, masks in ((broken, B.mask_words(spec, key)),
                        (k, [w ^ (0xFFFFFFFF if n == 200 else 0) for n, w in enumerate(B.mask_words(spec, key))])):
        fw = _firmware(kern, tmp_path)
        m = Machine(CORE, fw.image)
        mp, ip, op = m.alloc(4 * len(masks), _words(masks)), m.alloc(768, b"".join(blocks)), m.alloc(768)
        m.call(fw.addr("bs32"), mp, op, ip)
        assert m.read(op, 768) != want


@pytest.fixture(scope="module", params=["speedy5ctr-rv32", "speedy7ecb-rv32"])
def drop(request, tmp_path_factory):
    name = request.param
    cipher, mode = name[:7], name[7:10]
    config = from_dict({"name": name, "cipher": cipher, "mode": mode, "target": "rv32imac"})
    return config, build(config, "tests/test_speedy_rv32_bs32.py", tmp_path_factory.mktemp("out"))


def test_the_drop_takes_the_kernel_for_long_messages(drop, tmp_path):
    """ECB over 0, 1, 31, 32, 33, 64, 65, 97 blocks and CTR over groups (counter wrapping at and
    inside a group boundary), in place and misaligned, against the reference SPEEDY; and the
    figures: 64 blocks cost less a block than one block, the kernel is in the manifest."""
    config, res = drop
    spec = config.spec
    cases = blockcipher.long_cases(spec, config.mode, random.Random(1))
    assert {len(c.data) // 24 for c in cases if c.op == blockcipher.OP_ECB} == set(blockcipher.LONG_BLOCKS)
    fw = blockcipher.firmware(res.path / f"{config.name}.h", config.prefix, "rv32imac", spec, config.mode, tmp_path)
    results = EmuRunner(fw, codec=blockcipher.Codec).run(cases)
    assert [blockcipher.check(c, r) for c, r in zip(cases, results)] == [None] * len(cases)
    met = res.manifest["metrics"]
    assert met["kernel_cycles"]["encrypt32"] < 32 * met["kernel_cycles"]["encrypt_blocks"] * 0.8
    assert met["ecb_cycles_per_block"]["64"] < 0.8 * met["ecb_cycles_per_block"]["1"]
    assert met["ctx_bytes"] == 24 * (spec.rounds + 1) + 4 * 192 * (spec.rounds + 1)
    assert res.manifest["validation"]["constant_time_check"] == "verified"
    # the constant-time check runs the 32-block kernel too (33 blocks: a group and one more)
    from emu.ct.block import check_block_drop
    ct = check_block_drop(fw, config.prefix, spec, config.mode, runs=2)
    long = {name: n for name, status, n in ct.checks if "33 blocks" in name or f"len{33 * 24 + 5}" in name}
    assert ct.verified and len(long) == (2 if config.mode == "ctr" else 1), ct.checks
    assert all(n > 30000 for n in long.values()), long     # the kernel's instructions were traced


def test_the_polarity_plan_needs_6_nots_an_sbox_and_computes_it():
    """polarity.search: 6 + 6 NOTs a round (the one-block kernel's greedy rule: 8 + 8); both S-box
    programs it gives compute the S-box on every lane with the polarities they say."""
    from gen.kernels.speedy import polarity
    spec = ciphers.get("speedy6")
    plan = polarity.search(spec)
    assert plan.nots == (6, 6)
    ls = B.layers(spec)
    rng = random.Random(11)
    for name, q in (("first", ls["q1"]), ("second", ls["q2"])):
        kw = dict(ls[name], ark="")
        prog, qo = B.row_program(spec, **kw)
        assert qo == q and sum(1 for op in prog.ops if op.kind == "mvn") == plan.nots[name == "second"]
        held = [rng.getrandbits(32) for _ in range(6)]
        out = ir.run(prog, {"in": held, "rk": [0] * 6})["out"]
        for lane in range(32):
            x = sum((((held[j] >> lane) & 1) ^ kw["pols"][j]) << (5 - j) for j in range(6))
            y = sum((((out[j] >> lane) & 1) ^ q[j]) << (5 - j) for j in range(6))
            assert y == spec.sbox[x], (name, lane)
