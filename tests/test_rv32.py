"""The rv32imac platform (issue 36): Unicorn's SiFive E31 model enforces RV32IMAC, the E31 cycle
model (gen/cores/inorder.py over emu/bench/rv32_cycles.py) charges the manual's latencies, its
branch-predictor model and operand-dependent divides, and the constant-time checker catches a
division on a secret while passing a multiply."""
from pathlib import Path

import pytest

from emu.bench.rv32_cycles import CycleCounter, straight_line_cycles
from emu.ct.checker import check_function
from emu.machines import layout, toolchain
from emu.machines.machine import EmulationError, Machine
from emu.platforms import rv32_classify as C
from gen.cores import inorder

CORE = "sifive-e31"


def assemble(source: str, workdir: Path, rvc: bool = False) -> toolchain.Firmware:
    """An RV32IMAC assembly snippet linked at FLASH_BASE (labels become symbols)."""
    src = workdir / "snippet.S"
    src.write_text((".option rvc\n" if rvc else ".option norvc\n") + source + "\n")
    return toolchain.link_firmware([src], CORE, workdir, compiler=[toolchain.tool("riscv64-unknown-elf-gcc"),
                                                                   "-march=rv32imafc", "-mabi=ilp32", "-mno-relax"])


def code_of(fw, name):
    a, n = fw.symbols[name]
    return fw.image[a - layout.FLASH_BASE:a - layout.FLASH_BASE + n]


def fn(name, body):
    return f".text\n.globl {name}\n.type {name}, @function\n{name}:\n{body}\n.size {name}, .-{name}\n"


def test_the_e31_model_refuses_what_rv32imac_lacks(tmp_path):
    fw = assemble(fn("fpu", "fadd.s fa0, fa0, fa1\nret") + fn("mul", "mul a0, a0, a1\nret"), tmp_path)
    m = Machine(CORE, fw.image)
    assert m.call(fw.addr("mul"), 6, 7) == 42                        # M runs
    with pytest.raises(EmulationError):
        m.call(fw.addr("fpu"), 0, 0)                                  # F does not: the E31 is IMAC


def test_classes_of_rv32_instructions(tmp_path):
    fw = assemble(fn("f", "lw a0, 4(a1)\nlbu a2, 0(a1)\nsw a2, 0(a3)\nmul a4, a5, a6\ndivu a4, a5, a6\n"
                          "beq a0, a1, 1f\n1: jal ra, f\nret"), tmp_path)
    insns = C.classify_bytes(code_of(fw, "f"), 0)
    assert [i.cls for i in insns] == ["lw", "lsub", "store", "mul", "div", "branch", "jump", "jumpr"]
    assert insns[2].writes == frozenset() and insns[2].reads == {"a2", "a3"}
    assert insns[6].writes == {"ra"} and "ra" in insns[7].reads
    md = C.disassembler()
    code = code_of(fw, "f")
    assert C.classify(md, code[16:20], 16) is not None               # DIVU: operand-dependent time
    assert C.classify(md, code[12:16], 12) is None                   # MUL: fixed latency on the E31


def test_compressed_forms_read_what_they_update(tmp_path):
    fw = assemble(fn("f", "c.addi sp, -16\nc.add a0, a1\nc.mv a2, a3\nc.lwsp a4, 4(sp)\nc.jr ra"), tmp_path, rvc=True)
    i = C.classify_bytes(code_of(fw, "f"), 0)
    assert [x.mnemonic for x in i] == ["c.addi", "c.add", "c.mv", "c.lwsp", "c.jr"]
    assert i[0].reads == {"sp"} == i[0].writes and i[1].reads == {"a0", "a1"} and i[2].reads == {"a3"}
    assert i[3].reads == {"sp"} and i[3].writes == {"a4"}


def test_scoreboard_charges_the_manuals_latencies(tmp_path):
    body = ("add a1, a2, a3\nadd a4, a5, a6\n"       # independent: back to back
            "lw a0, 0(a1)\nadd a2, a0, a0\n"          # LW: latency 2, one stall
            "lbu a3, 0(a1)\nadd a2, a3, a3\n"         # LBU: latency 3, two stalls
            "mul a4, a5, a6\nmul a6, a5, a7\n"        # the multiplier blocks: 5 cycles apart
            "add a7, a6, a6")                         # MUL: latency 5
    fw = assemble(fn("f", body), tmp_path)
    sb = inorder.Scoreboard(CORE)
    issued = [sb.step(i) for i in C.classify_bytes(code_of(fw, "f"), 0)]
    assert issued == [0, 1, 2, 4, 5, 8, 9, 14, 19]
    assert straight_line_cycles(code_of(fw, "f"), 0) == 20 and sb.stall_cycles == 1 + 2 + 4 + 4


def _loop_firmware(tmp_path):
    return assemble(fn("count", "li t0, 0\n1: addi a0, a0, -1\nadd t0, t0, a0\nbnez a0, 1b\nmv a0, t0\nret"), tmp_path)


@pytest.mark.parametrize("n", [1, 10, 100])
def test_a_loop_costs_its_body_plus_two_mispredicts(tmp_path, n):
    """3 cycles an iteration; the first taken bnez (BHT weakly not-taken, BTB empty) and the exit
    (BHT saturated taken) mispredict, +3 each; a one-pass loop predicts right."""
    fw = _loop_firmware(tmp_path)
    m = Machine(CORE, fw.image)
    cc = CycleCounter(m.uc, CORE, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    assert m.call(fw.addr("count"), n) == sum(range(n))
    assert cc.cycles == 1 + 3 * n + 2 + (6 if n > 1 else 0)
    assert cc.mispredicts == (2 if n > 1 else 0)


def test_divide_time_follows_its_operands(tmp_path):
    fw = assemble(fn("d", "divu a0, a0, a1\naddi a0, a0, 1\nret"), tmp_path)   # the add waits for the quotient
    m = Machine(CORE, fw.image)
    cc = CycleCounter(m.uc, CORE, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    costs = []
    for a, b in ((0xFFFFFFFF, 1), (1, 0xFFFFFFFF), (5, 0)):
        cc.reset()
        m.call(fw.addr("d"), a, b)
        costs.append(cc.cycles)
    assert costs[0] - costs[1] == 32 and costs[1] == costs[2] and not cc.missed_hooks


def test_constant_time_checker_catches_a_division_on_a_secret(tmp_path):
    fw = assemble(fn("leak", "divu a0, a0, a1\nret") + fn("fine", "mul a0, a0, a1\nmulhu a1, a0, a1\nret"), tmp_path)
    m = Machine(CORE, fw.image)
    secrets = [(7, 3), (0xFFFFFFFF, 2), (12345, 0x80000000), (0, 9)]
    r = check_function(m, fw, "leak", lambda _m, s: s, secrets)
    assert not r.verified and r.divergence.what == "timing class" and "divu" in r.divergence.disassembly
    assert check_function(m, fw, "fine", lambda _m, s: s, secrets).verified


def test_llvm_mca_differs_from_the_e31_model_where_the_manual_says(tmp_path):
    """Over the same executed stream: loads and ALU chains cost alike; llvm-mca's sifive-e31
    (LLVM's Rocket model) pipelines MULs at latency 4 where the E31 blocks 5 cycles per MUL."""
    from emu.bench import rv32_mca
    muls = "\n".join(f"mul a{2 + i % 5}, a0, a1" for i in range(20))
    alu = "\n".join(["lw a2, 0(sp)", "add a3, a2, a2", "lbu a4, 1(sp)", "xor a5, a4, a3"] * 10)
    fw = assemble(fn("muls", muls + "\nret") + fn("alu", alu + "\nret"), tmp_path)
    got = {}
    for name in ("muls", "alu"):
        got[name] = rv32_mca.cross_check(fw, lambda _m, _call, name=name: (name, ()), tmp_path)
    a = got["alu"]
    assert abs(a["model_cycles"] - a["llvm_mca_cycles"]) <= 3 and a["stall_cycles"] == 10 * (1 + 2)
    m = got["muls"]
    assert m["muls"] == 20 and m["model_cycles"] == 5 * 19 + 2      # 20 MULs 5 cycles apart, then ret
    assert m["llvm_mca_cycles"] < 40                                 # pipelined: one a cycle



@pytest.mark.parametrize("cc", [["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb"], ["gcc"],
                                ["riscv64-unknown-elf-gcc", "-march=rv64imac", "-mabi=lp64"]])
def test_an_rv32_drop_compiled_for_another_target_stops_at_its_error(cc, tmp_path):
    from tests.conftest import ROOT
    header = ROOT / "out" / "aes128gcm-rv32" / "aes128gcm-rv32.h"
    src = tmp_path / "impl.c"
    src.write_text(f'#define AES128GCM_RV32_IMPLEMENTATION\n#include "{header}"\n')
    with pytest.raises(toolchain.BuildError, match="generated for rv32imac"):
        toolchain.run([toolchain.tool(cc[0]), *cc[1:], "-ffreestanding", "-c", str(src), "-o", str(tmp_path / "o.o")],
                      tmp_path)
