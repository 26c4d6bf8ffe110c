"""gen/isa/thumb2.py: printing, registers read/written, timing classes, ISA levels, lowering."""
import pytest

from gen import ir
from gen.isa import thumb2 as t2
from gen.cores import timing as T
from emu.platforms import thumb2_classify
from emu.machines import toolchain


def test_printing_unified_syntax():
    assert t2.Insn("eor", dst="r3", srcs=("r4", "r5"), shift=("ror", 8)).text() == "eor    r3, r4, r5, ror #8"
    assert t2.Insn("eor", dst="r3", srcs=("r3", "r5")).text() == "eors   r3, r3, r5"      # 16-bit form
    assert t2.Insn("eor", dst="r9", srcs=("r9", "r5")).text() == "eor    r9, r9, r5"      # high reg: no S
    assert t2.Insn("and", dst="r1", srcs=("r2",), imm=0x0F0F0F0F).text() == "and    r1, r2, #0xf0f0f0f"
    assert t2.Insn("mov", dst="r1", srcs=("r2",), shift=("lsr", 4)).text() == "lsrs   r1, r2, #4"
    assert t2.Insn("ror", dst="r1", srcs=("r2",), imm=4).text() == "ror    r1, r2, #4"
    assert t2.ldr("r7", "r0", 8).text() == "ldr    r7, [r0, #8]"
    assert t2.str_("lr", "sp").text() == "str    lr, [sp]"
    assert t2.push(("r4", "lr")).text() == "push   {r4, lr}"
    with pytest.raises(ValueError):
        t2.ldr_slot("r1", 3).text()          # symbolic slot not resolved
    assert t2.resolve(t2.ldr_slot("r1", 3), lambda k: 4 * k).text() == "ldr    r1, [sp, #12]"


def test_reads_writes_and_classes():
    i = t2.Insn("orn", dst="r1", srcs=("r2", "r3"), shift=("lsl", 1))
    assert i.reads() == {"r2", "r3"} and i.writes() == {"r1"} and i.cls == "alu"
    ld = t2.ldr("r5", "r0", 4)
    assert ld.reads() == {"r0"} and ld.writes() == {"r5"} and ld.cls == "ldr"
    assert ld.addr_regs() == {"r0"}
    st = t2.str_("r5", "r6", 4)
    assert st.reads() == {"r5", "r6"} and st.writes() == set() and st.cls == "str"
    p = t2.pop(("r4", "r5", "pc"))
    assert p.cls == "ldm_pc" and {"r4", "r5", "sp"} <= p.writes()
    assert t2.push(("r4", "lr")).cls == "stm" and t2.push(("r4", "lr")).cycles("cortex-m3") == 3
    mt = t2.Insn("movt", dst="r2", imm=0x1234)
    assert "r2" in mt.reads()                # movt keeps the low half
    # pipelining in the shared model: LDR;LDR = 3 cycles, LDR;STR using the loaded base = 4
    seq = [t2.ldr("r1", "r0"), t2.ldr("r2", "r0", 4)]
    assert sum(T.issue_cycles(i.cls, "cortex-m4") for i in seq) - 1 == \
        T.sequence_cycles([i.timing() for i in seq], "cortex-m4")
    dep = [t2.ldr("r1", "sp"), t2.str_("r2", "r1")]
    assert T.sequence_cycles([i.timing() for i in dep], "cortex-m4") == 4


def test_m3_rejects_m4_only_instructions():
    for m in ("uadd8", "sel", "pkhbt", "smlad", "umaal", "qadd", "sxtab16"):
        i = t2.Insn(m, dst="r0", srcs=("r1", "r2"))
        assert i.isa == "m4" and t2.is_dsp(m)
        assert i.valid_on("cortex-m4") and not i.valid_on("cortex-m3")
        with pytest.raises(ValueError, match="cortex-m3"):
            t2.check_core([t2.Insn("eor", dst="r0", srcs=("r0", "r1")), i], "cortex-m3")
    for m in ("eor", "bic", "orn", "ror", "ldr", "str", "mul", "umull", "rbit"):
        i = t2.Insn(m, dst="r0", srcs=("r1", "r2"))
        assert i.isa == "m3" and i.valid_on("cortex-m3")


def test_lowering_one_op_one_instruction():
    def reg(v):
        return f"r{v + 3}"

    def base(mem):
        return {"rk": "r0", "in": "r2", "out": "r1"}[mem]
    cases = [
        (ir.Op("eor", 0, 1, 2, ("ror", 24)), "eor    r3, r4, r5, ror #24"),
        (ir.Op("bic", 0, 1, imm=0xFF00FF00), "bic    r3, r4, #0xff00ff00"),
        (ir.Op("mvn", 0, b=1), "mvns   r3, r4"),
        (ir.Op("lsl", 0, 1, imm=3), "lsls   r3, r4, #3"),
        (ir.Op("ld", 0, mem="rk", index=9), "ldr    r3, [r0, #36]"),
        (ir.Op("st", a=1, mem="out", index=0), "str    r4, [r1]"),
    ]
    for op, text in cases:
        assert t2.lower(op, reg, base).text() == text
    assert [i.mnem for i in t2.lower_movc("r1", 0x12345678)] == ["movw", "movt"]
    assert [i.mnem for i in t2.lower_movc("r1", 0x0F0F0F0F)] == ["mov"]


def test_printed_forms_assemble_for_m3_with_the_classes_we_claim(tmp_path):
    insns = [
        t2.Insn("eor", dst="r3", srcs=("r4", "r5"), shift=("ror", 8)),
        t2.Insn("eor", dst="r3", srcs=("r3", "r5")),
        t2.Insn("and", dst="r11", srcs=("lr",), imm=0x0F0F0F0F),
        t2.Insn("orn", dst="r1", srcs=("r2", "r12"), shift=("lsl", 1)),
        t2.Insn("bic", dst="r1", srcs=("r1", "r2")),
        t2.Insn("mvn", dst="r6", srcs=("r7",)),
        t2.Insn("mov", dst="r1", srcs=("r9",), shift=("ror", 4)),
        t2.Insn("lsr", dst="r10", srcs=("r2",), imm=31),
        t2.ldr("lr", "r0", 476), t2.str_("r12", "sp", 1020), t2.ldr("r4", "sp", 8),
        t2.push(("r1", "r2", "r4", "lr")), t2.Insn("sub", dst="sp", srcs=("sp",), imm=12),
        t2.Insn("add", dst="sp", srcs=("sp",), imm=20), t2.pop(("r4", "pc")),
    ]
    code = toolchain.assemble("\n".join(i.text() for i in insns), "cortex-m3", tmp_path)
    got = thumb2_classify.classify_bytes(code, 0)
    assert [g.cls for g in got] == [i.cls for i in insns]
    assert [sorted(g.writes - {"pc"}) for g in got] == [sorted(i.writes() - {"pc"}) for i in insns]
    assert len(code) < 4 * len(insns)        # the S forms took the 16-bit encodings


def test_execute_matches_ir_semantics():
    import random
    rng = random.Random(5)
    for _ in range(200):
        kind = rng.choice(ir.ALU_KINDS)
        sh = rng.choice([None, ("lsl", rng.randint(1, 31)), ("lsr", rng.randint(1, 31)), ("ror", rng.randint(1, 31))])
        a, b = rng.getrandbits(32), rng.getrandbits(32)
        prog = ir.Program("p", [ir.Op("ld", 0, mem="in", index=0), ir.Op("ld", 1, mem="in", index=1),
                                ir.Op(kind, 2, 0, 1, sh), ir.Op("st", a=2, mem="out", index=0)],
                          {"in": (2, "r"), "out": (1, "w")}, 3)
        want = ir.run(prog, {"in": [a, b]})["out"][0]
        regs = {"r1": a, "r2": b}
        t2.execute([t2.Insn(kind, dst="r3", srcs=("r1", "r2"), shift=sh)], regs, {})
        assert regs["r3"] == want


def test_fpu_lists_and_post_indexed_forms_assemble_for_m4f_with_the_classes_we_claim(tmp_path):
    """What the Cortex-M4F loops print (VPUSH/VLDM/VPOP of s16-s31: 1 + N cycles, as LDM/STM) and
    what every out-stepped loop prints (a post-indexed STR writing its base, negative offsets):
    the emulator's classes, list lengths, written and address registers are the generator's."""
    sregs = tuple(f"s{k}" for k in range(16, 32))
    insns = [t2.Insn("vpush", regs=sregs), t2.Insn("vldm", base="r12", regs=sregs),
             t2.Insn("vldm", base="r0", regs=sregs[:8]), t2.Insn("vpop", regs=sregs),
             t2.Insn("str", srcs=("r8",), base="r1", offset=0, post=32), t2.str_("r4", "r1", -24),
             t2.Insn("ldr", dst="r5", base="r2", offset=0, post=32), t2.Insn("add", dst="r2", srcs=("r1", "r2"))]
    assert [i.text() for i in insns[:5]] == ["vpush  {s16-s31}", "vldm   r12, {s16-s31}", "vldm   r0, {s16-s23}",
                                             "vpop   {s16-s31}", "str    r8, [r1], #32"]
    assert all(i.isa == "m4" for i in insns[:4]) and not insns[0].valid_on("cortex-m3")
    code = toolchain.assemble(".fpu fpv4-sp-d16\n" + "\n".join(i.text() for i in insns), "cortex-m4", tmp_path)
    got = thumb2_classify.classify_bytes(code, 0)
    assert [g.cls for g in got] == [i.cls for i in insns] == ["stm", "ldm", "ldm", "ldm", "str", "str", "ldr", "alu"]
    assert [g.n for g in got] == [i.timing().n for i in insns] == [16, 16, 8, 16, 0, 0, 0, 0]
    assert [g.addr_regs for g in got] == [i.addr_regs() for i in insns]
    # written core registers (capstone reports no sp write for VPUSH/VPOP; nothing prices one)
    assert [g.writes for g in got[4:]] == [i.writes() for i in insns[4:]]
    assert {"r1"} <= got[4].writes and {"r2", "r5"} <= got[6].writes
    assert [T.issue_cycles(i.cls, "cortex-m4", n=i.timing().n) for i in insns[:4]] == [17, 17, 9, 17]
