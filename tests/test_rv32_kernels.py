"""Generated RV32 kernels (issue 36, step 3): the IR split for RV32 keeps the function and leaves
one instruction per op; constants load right; the fixsliced AES kernel, scheduled and allocated
onto RV32's registers, computes what the IR computes when run in Unicorn's E31, and the
generator's cycle figure is the emulator's."""
import random

import pytest

from emu.bench.rv32_cycles import CycleCounter
from emu.machines import layout, toolchain
from emu.machines.machine import Machine
from gen import ir
from gen.circuits import aes_sbox
from gen.isa import rv32 as R
from gen.kernels import rv32_split
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import rv32 as aes_rv32

CORE = "sifive-e31"


def firmware(functions: dict, tmp_path):
    """Link {symbol: instructions} (gen/isa/rv32.Insn) at FLASH_BASE."""
    lines = []
    for sym, insns in functions.items():
        lines += R.function_lines(sym, ["    " + i.text() for i in insns])
    src = tmp_path / "k.S"
    src.write_text("\n".join(lines) + "\n")
    return toolchain.link_firmware([src], CORE, tmp_path, compiler=[
        toolchain.tool("riscv64-unknown-elf-gcc"), "-march=rv32imac", "-mabi=ilp32", "-mno-relax"])


def test_split_keeps_the_function_and_leaves_one_instruction_per_op():
    prog = AF.encrypt2_ir(128, "ffs", aes_sbox.DEFAULT)
    split = rv32_split.split(prog)
    assert all(op.shift is None and op.kind not in ("bic", "orn", "ror") for op in split.ops)
    assert all(op.imm is None or op.kind in ("movc", "lsl", "lsr") or R.is_imm(op.imm) for op in split.ops)
    assert sum(op.kind == "movc" for op in split.ops) <= 12           # one per distinct mask
    rng = random.Random(5)
    for _ in range(3):
        mem = {"in": [rng.getrandbits(32) for _ in range(8)], "rk": [rng.getrandbits(32) for _ in range(88)]}
        assert ir.run(split, mem)["out"] == ir.run(prog, mem)["out"]


def test_a_bic_orn_and_wide_immediate_split():
    b = ir.Builder("t")
    b.declare("in", 2, "r")
    b.declare("out", 3, "w")
    x, y = b.ld("in", 0), b.ld("in", 1)
    b.st("out", 0, b.bic(x, y, shift=("ror", 7)))
    b.st("out", 1, b.orn(x, y))
    b.st("out", 2, b.and_(x, imm=0xF0F0F0F0))
    prog = b.finish()
    split = rv32_split.split(prog)
    kinds = [op.kind for op in split.ops]
    assert "bic" not in kinds and "orn" not in kinds and kinds.count("mvn") == 2 and kinds.count("movc") == 1
    for words in ([0x12345678, 0x9ABCDEF0], [0xFFFFFFFF, 1]):
        assert ir.run(split, {"in": words})["out"] == ir.run(prog, {"in": words})["out"]


@pytest.mark.parametrize("value", [0, 5, 0x7FF, 0x800, 0xFFF, 0x1000, 0xFFFFF800, 0xFFFFFFFF, 0x80000000,
                                   0x12345FFF, 0x0F0F0F0F, 0xFCFCFCFC, 0x03030303])
def test_constants_load_right(value, tmp_path):
    body = R.expand_constants([R.Insn("li", dst="a0", imm=value)]) + [R.Insn("ret")]
    fw = firmware({"k": body}, tmp_path)
    assert Machine(CORE, fw.image).call(fw.addr("k")) == value
    assert len(body) - 1 == (1 if R.is_imm(value) or value & 0xFFF == 0 else 2)


@pytest.mark.parametrize("keybits", [128, 256])
def test_the_aes_kernel_computes_the_ir_and_costs_what_the_generator_says(keybits, tmp_path):
    c = aes_rv32.compile_encrypt2(keybits, "ffs")
    fw = firmware({"enc": c.insns}, tmp_path)
    m = Machine(CORE, fw.image)
    counter = CycleCounter(m.uc, CORE, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    prog = AF.encrypt2_ir(keybits, "ffs", aes_sbox.DEFAULT)
    nrk = prog.mems["rk"][0]
    rng = random.Random(keybits)
    for _ in range(2):
        rk = [rng.getrandbits(32) for _ in range(nrk)]
        words = [rng.getrandbits(32) for _ in range(8)]
        pack = lambda ws: b"".join(w.to_bytes(4, "little") for w in ws)
        rk_p, in_p, out_p = m.alloc(4 * nrk, pack(rk)), m.alloc(32, pack(words)), m.alloc(32)
        counter.reset()
        m.call(fw.addr("enc"), rk_p, out_p, in_p)
        got = [int.from_bytes(m.read(out_p + 4 * i, 4), "little") for i in range(8)]
        assert got == ir.run(prog, {"in": words, "rk": rk})["out"]
        assert counter.cycles == c.cycles                     # one model, two clients
    assert m.stack_used == c.stack_bytes and c.used_regs <= len(aes_rv32.REGS)


@pytest.mark.parametrize("cipher", ["speedy5", "rijndael256"])
def test_the_block_function_computes_the_ir(cipher, tmp_path):
    """The RV32 target's block function (gen/targets/rv32imac.RV32_PROGRAMS) in Unicorn's E31."""
    from gen import ciphers
    from gen.kernels import rv32_function
    from gen.targets.rv32imac import RV32_PROGRAMS
    spec = ciphers.get(cipher)
    _, prog = RV32_PROGRAMS[spec.family](spec)
    c = rv32_function.compile_function(prog, seed=0)
    fw = firmware({"enc": c.insns}, tmp_path)
    m = Machine(CORE, fw.image)
    counter = CycleCounter(m.uc, CORE, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    rng = random.Random(7)
    pack = lambda ws: b"".join(w.to_bytes(4, "little") for w in ws)
    n_rk, n_in, n_out = prog.mems["rk"][0], prog.mems["in"][0], prog.mems["out"][0]
    rk, words = [rng.getrandbits(32) for _ in range(n_rk)], [rng.getrandbits(32) for _ in range(n_in)]
    rk_p, in_p, out_p = m.alloc(4 * n_rk, pack(rk)), m.alloc(4 * n_in, pack(words)), m.alloc(4 * n_out)
    m.call(fw.addr("enc"), rk_p, out_p, in_p)
    got = [int.from_bytes(m.read(out_p + 4 * i, 4), "little") for i in range(n_out)]
    assert got == ir.run(prog, {"in": words, "rk": rk})["out"] and counter.cycles == c.cycles


def test_both_rv32_gcm_forms_carry_the_same_two_block_kernel():
    """rv32_c (the FACE drops) and rv32_barrel_c (the barrel-shiftrows drops) take their two-block
    kernel, its C wrapper and the fixsliced key schedule from one function (encrypt2_c): the same
    seed, text and cycles; the barrel form's schedule is the same one under the ``_fs`` prefix."""
    seeds = range(2)
    schedule, kernel, c = aes_rv32.encrypt2_c("p", 128, "ffs", seeds)
    text, c1 = aes_rv32.rv32_c("p", 128, "ffs", seeds)
    assert text == schedule + "\n" + kernel and c1 == c
    assert "static void p_aes_encrypt2(const uint32_t *rk, uint8_t *out, const uint8_t *in)" in kernel
    fs_schedule = aes_rv32.encrypt2_c("p", 128, "ffs", seeds, schedule_prefix="p_fs")[0]
    assert "p_fs_aes_keyschedule(" in fs_schedule and fs_schedule != schedule
    barrel, c2, _ = aes_rv32.rv32_barrel_c("p", 128, "ffs", seeds)
    assert barrel.startswith(fs_schedule + "\n") and barrel.count(kernel) == 1 and c2 == c
