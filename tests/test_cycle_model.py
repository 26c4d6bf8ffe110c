"""Unit tests of the timing table (gen/cores/timing.py) and the Unicorn cycle model
(emu/bench/cycles.py): TRM examples, block-boundary corrections, data-dependent M3 multiplies,
agreement of the static and the executed model, and speed."""

import os
import shutil
import subprocess
import tempfile
import time

import pytest

from unicorn import Uc, UC_ARCH_ARM, UC_MODE_THUMB, UcError
from unicorn import arm_const as A

from gen.cores import cortex_m3, timing as T
from emu.bench.cycles import CycleCounter, straight_line_cycles

P = T.P
CODE = 0x0001_0000
RAM = 0x2000_0000
STOP = 0x0000_F000          # return address, outside the counted range
CPU = {"cortex-m4": A.UC_CPU_ARM_CORTEX_M4, "cortex-m3": A.UC_CPU_ARM_CORTEX_M3}

needs_as = pytest.mark.skipif(shutil.which("arm-none-eabi-as") is None,
                              reason="arm-none-eabi-as not installed")

_CACHE = {}


def assemble(body: str) -> bytes:
    """Assemble a Thumb-2 snippet (unified syntax) to raw bytes."""
    if body in _CACHE:
        return _CACHE[body]
    src = ".syntax unified\n.thumb\n.text\n" + body + "\n"
    with tempfile.TemporaryDirectory() as d:
        s, o, b = (os.path.join(d, n) for n in ("t.s", "t.o", "t.bin"))
        with open(s, "w") as f:
            f.write(src)
        subprocess.run(["arm-none-eabi-as", "-mcpu=cortex-m4", "-mthumb", s, "-o", o],
                       check=True, capture_output=True)
        subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", o, b],
                       check=True, capture_output=True)
        with open(b, "rb") as f:
            data = f.read()
    _CACHE[body] = data
    return data


def machine(code: bytes, core: str, regs=None):
    uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB)
    uc.ctl_set_cpu_model(CPU[core])
    uc.mem_map(0, 0x10_0000)
    uc.mem_map(RAM, 0x10_0000)
    uc.mem_write(CODE, code)
    uc.reg_write(A.UC_ARM_REG_SP, RAM + 0x8_0000)
    for r in range(13):
        uc.reg_write(getattr(A, f"UC_ARM_REG_R{r}"), RAM + 0x1000 + 0x100 * r)
    for k, v in (regs or {}).items():
        uc.reg_write(getattr(A, f"UC_ARM_REG_{k.upper()}"), v)
    uc.reg_write(A.UC_ARM_REG_LR, STOP | 1)
    return uc


def run(body: str, core: str = "cortex-m4", regs=None, counter_kw=None):
    """Assemble ``body`` + 'bx lr', run it as a function, return (counter, uc)."""
    code = assemble(body + "\nbx lr\n")
    uc = machine(code, core, regs)
    cc = CycleCounter(uc, core, CODE, CODE + len(code))
    uc.emu_start(CODE | 1, STOP)
    return cc, uc


RET = 1 + P   # the closing 'bx lr'


def straight(body: str, core: str = "cortex-m4", **kw) -> int:
    return straight_line_cycles(assemble(body), CODE, core, **kw)


# ---------------------------------------------------------------------------------------
# TRM load/store examples (M4 TRM 3.3.2; same text in the M3 TRM)
# ---------------------------------------------------------------------------------------
TRM_CASES = [
    ("ldr r0, [r1]", 2),
    ("ldr r0, [r1]\nldr r1, [r2]", 3),                       # two LDRs pipeline
    ("ldr r0, [r1, r2]\nstr r0, [r3, #20]", 3),              # LDR;STR pipeline
    ("ldr r0, [r1, r2]\nstr r1, [r3, r2]", 3),
    ("ldr r0, [r1, r5]\nldr r1, [r2]\nldr r2, [r3, #4]", 4),  # three LDRs
    ("ldr r0, [r1]\nldr r2, [r0]", 4),                       # address uses the loaded value
    ("ldr r0, [r1]\nldr r2, [r3, r0]", 4),                   # index uses the loaded value
    ("str r0, [r1]\nldr r2, [r3]", 4),                       # nothing pipelines after a store
    ("str r0, [r1]\nstr r2, [r3]", 4),
    ("adds r1, r1, #4\nldr r0, [r1]", 4),                    # AGU stall after ALU write
    ("adds r4, r4, #4\nldr r0, [r1]", 3),                    # no dependence: no stall
    ("adds r1, r1, #4\nstr r0, [r1]", 4),
    ("adds r2, r2, #4\nstr r2, [r1]", 3),                    # data register is not an address
    ("ldrd r0, r2, [r1]", 3),
    ("ldr r0, [r1]\nldrd r2, r4, [r5]", 5),                  # LDRD does not pipeline
    ("ldm r0, {r1, r2, r3, r4}", 5),
    ("stm r0, {r1, r2, r3, r4}", 5),
    ("push {r4, r5, r6, r7, lr}", 6),
    ("pop {r4, r5, r6, r7}", 5),
    ("add.w r0, r1, r2, ror #7", 1),                         # flexible-operand shift
    ("mul r0, r1, r2", 1),
]


@needs_as
@pytest.mark.parametrize("body,expected", TRM_CASES)
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_trm_examples_static_and_executed(body, expected, core):
    assert straight(body, core) == expected
    cc, _ = run(body, core, regs={"r2": 8, "r5": 4})    # small index registers
    assert cc.cycles == expected + RET


def test_issue_cycles_table():
    m4, m3 = "cortex-m4", "cortex-m3"
    assert T.issue_cycles("alu", m4) == 1
    assert T.issue_cycles("ldr", m4) == 2 and T.issue_cycles("str", m3) == 2
    assert T.issue_cycles("ldrd", m4) == 3 and T.issue_cycles("strd", m3) == 3
    assert T.issue_cycles("ldm", m4, n=4) == 5 and T.issue_cycles("stm", m3, n=8) == 9
    assert T.issue_cycles("ldm_pc", m4, n=3) == 1 + 3 + P
    assert T.issue_cycles("branch", m4) == 1 + P
    assert T.issue_cycles("bcond", m4, taken=False) == 1
    assert T.issue_cycles("bcond", m4, taken=True) == 1 + P
    for c in ("mul", "mla", "umull", "umlal", "smlal"):
        assert T.issue_cycles(c, m4) == 1                    # M4: single-cycle MAC
    assert T.issue_cycles("mla", m3) == 2
    assert (T.issue_cycles("umull", m3, which="min"), T.issue_cycles("umull", m3)) == (3, 5)
    assert (T.issue_cycles("umlal", m3, which="min"), T.issue_cycles("smlal", m3)) == (4, 7)
    assert T.issue_cycles("dsp", m4) == 1
    assert not T.valid_on("dsp", m3)
    with pytest.raises(ValueError):
        T.issue_cycles("dsp", m3)
    with pytest.raises(ValueError):
        T.issue_cycles("alu", "cortex-m7")


def test_pair_rules_on_abstract_classes():
    ld = T.Insn("ldr", writes=frozenset({"r0"}), addr_regs=frozenset({"r1"}))
    ld2 = T.Insn("ldr", writes=frozenset({"r2"}), addr_regs=frozenset({"r3"}))
    ld_dep = T.Insn("ldr", writes=frozenset({"r2"}), addr_regs=frozenset({"r0"}))
    alu = T.Insn("alu", writes=frozenset({"r3"}))
    assert T.sequence_cycles([ld, ld2], "cortex-m4") == 3
    assert T.sequence_cycles([ld, ld2, ld2], "cortex-m4") == 4
    assert T.sequence_cycles([ld, ld_dep], "cortex-m4") == 4
    assert T.sequence_cycles([alu, ld2], "cortex-m4") == 4
    assert T.address_use_penalty("alu", "ldr") == 1


# ---------------------------------------------------------------------------------------
# Branches, measured by executing loops
# ---------------------------------------------------------------------------------------
LOOP = """
    movs r0, #{k}
1:  adds r1, r1, #1
    eors r2, r2, r1
    subs r0, r0, #1
    bne 1b
"""


@needs_as
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
@pytest.mark.parametrize("k", [1, 2, 5, 100])
def test_loop_taken_and_not_taken(k, core):
    cc, uc = run(LOOP.format(k=k), core)
    assert uc.reg_read(A.UC_ARM_REG_R0) == 0
    body = 3
    expected = 1 + k * (body + 1) + (k - 1) * P + RET   # k-1 taken (1+P), last not taken (1)
    assert cc.cycles == expected


@needs_as
@pytest.mark.parametrize("r0,taken", [(0, True), (5, False)])
def test_cbz(r0, taken):
    body = """
    cbz r0, 1f
    adds r1, r1, #1
1:  adds r2, r2, #1
"""
    cc, _ = run(body, regs={"r0": r0})
    expected = (1 + P + 1) if taken else (1 + 1 + 1)
    assert cc.cycles == expected + RET


@needs_as
def test_call_and_pop_pc():
    body = """
    push {r4, lr}
    bl 1f
    pop {r4, pc}
1:  adds r0, r0, #1
    bx lr
"""
    code = assemble(body)
    uc = machine(code, "cortex-m4")
    cc = CycleCounter(uc, "cortex-m4", CODE, CODE + len(code))
    uc.emu_start(CODE | 1, STOP)
    # push 3, bl 1+P, adds 1, bx 1+P, pop {r4,pc} 1+2+P
    assert cc.cycles == 3 + (1 + P) + 1 + (1 + P) + (3 + P)


@needs_as
def test_conditional_branch_ending_the_run_is_resolved():
    # the taken beq jumps straight to STOP: no next block is entered
    code = assemble("cmp r0, r0\nit eq\nbxeq lr\nnop\nbx lr")
    uc = machine(code, "cortex-m4")
    cc = CycleCounter(uc, "cortex-m4", CODE, CODE + len(code))
    uc.emu_start(CODE | 1, STOP)
    assert cc.cycles == 1 + 1 + (1 + P)        # cmp, it, bxeq taken


# ---------------------------------------------------------------------------------------
# IT blocks
# ---------------------------------------------------------------------------------------
@needs_as
@pytest.mark.parametrize("r0,executed", [(0, True), (1, False)])
def test_it_predicated_load(r0, executed):
    body = """
    cmp r0, #0
    it eq
    ldreq r3, [r1]
    adds r4, r4, #1
"""
    cc, uc = run(body, regs={"r0": r0})
    expected = 1 + 1 + (2 if executed else 1) + 1
    assert cc.cycles == expected + RET
    assert not cc.missed_hooks


# ---------------------------------------------------------------------------------------
# Data-dependent multiplies and divides
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mn,lo,hi", [("umull", 3, 5), ("smull", 3, 5),
                                      ("umlal", 4, 6), ("smlal", 5, 7)])
def test_m3_long_multiply_model_ranges(mn, lo, hi):
    vals = [0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF0001]
    got = {cortex_m3.long_multiply_cycles(mn, a, b) for a in vals for b in vals}
    assert min(got) == lo and max(got) == hi
    assert cortex_m3.long_multiply_cycles(mn, 0x80000001, 0x80000001) == hi   # CT trick: top bit set


def test_divide_model():
    assert T.divide_cycles("udiv", 5, 0) == 2
    assert T.divide_cycles("udiv", 1, 2) == 2
    assert T.divide_cycles("udiv", 0xFFFFFFFF, 1) == 12
    assert T.divide_cycles("sdiv", 0x80000000, 0xFFFFFFFF) == 12
    assert all(2 <= T.divide_cycles("udiv", a, b) <= 12
               for a in (0, 7, 1 << 20, 0xFFFFFFFF) for b in (1, 3, 1 << 16, 0xFFFFFFFF))


@needs_as
@pytest.mark.parametrize("mn", ["umull", "smull", "umlal", "smlal"])
def test_long_multiply_m3_data_dependent_m4_constant(mn):
    body = f"{mn} r0, r1, r2, r3"
    small = {"r2": 3, "r3": 5}
    large = {"r2": 0x8000_0001, "r3": 0x8123_4567}
    m3 = [run(body, "cortex-m3", regs=r)[0].cycles for r in (small, large)]
    m4 = [run(body, "cortex-m4", regs=r)[0].cycles for r in (small, large)]
    assert m3[0] < m3[1]
    assert m3[0] - RET == cortex_m3.long_multiply_cycles(mn, 3, 5)
    assert m3[1] - RET == T.issue_cycles({"smull": "umull"}.get(mn, mn), "cortex-m3")
    assert m4[0] == m4[1] == 1 + RET


@needs_as
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_divide_executed(core):
    body = "udiv r0, r1, r2"
    fast = run(body, core, regs={"r1": 1, "r2": 7})[0].cycles
    slow = run(body, core, regs={"r1": 0xFFFFFFFF, "r2": 1})[0].cycles
    assert (fast - RET, slow - RET) == (2, 12)


@needs_as
def test_m3_rejects_dsp_instruction():
    code = assemble("smulbb r0, r1, r2\nbx lr")
    uc = machine(code, "cortex-m3")
    CycleCounter(uc, "cortex-m3", CODE, CODE + len(code))
    with pytest.raises(UcError):
        uc.emu_start(CODE | 1, STOP)
    uc4 = machine(code, "cortex-m4")
    cc4 = CycleCounter(uc4, "cortex-m4", CODE, CODE + len(code))
    uc4.emu_start(CODE | 1, STOP)
    assert cc4.cycles == 1 + RET


# ---------------------------------------------------------------------------------------
# Static model == executed model, including Unicorn's block splits of long code
# ---------------------------------------------------------------------------------------
def _mixed_straight_line(n_groups: int) -> str:
    pats = [
        "ldr r0, [r1, #{o}]\nldr r2, [r3, #{o}]\neors r0, r0, r2\nstr r0, [r4, #{o}]",
        "adds r5, r5, #4\nldr r6, [r5]\nror r6, r6, #7\nstr r6, [r5, #4]",
        "ldm r1, {{r6, r7}}\nmul r6, r6, r7\nstrd r6, r7, [r4, #{o}]\nbic r7, r7, r6, lsl #3",
        "ldr r6, [r1, #{o}]\nldr r7, [r6, #0]\nmovs r7, #0\neor.w r8, r8, r8, lsr #2",
        "ldrd r6, r7, [r3, #{o}]\nadd r7, r7, r6\nmla r7, r6, r7, r8\nmvns r6, r7",
        "push {{r6, r7}}\npop {{r6, r7}}\nldrb r6, [r1, #{o}]\nstrh r6, [r4, #{o}]",
    ]
    lines = []
    for g in range(n_groups):
        lines.append(pats[(g * 7 + g // 6) % len(pats)].format(o=(g % 16) * 4))
        if g % 25 == 24:
            lines.append("mov r5, r4")   # keep r5 inside RAM
    return "\n".join(lines)


@needs_as
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
@pytest.mark.parametrize("groups", [3, 40, 400])
def test_straight_line_agrees_with_executed(core, groups):
    body = _mixed_straight_line(groups)
    # r1/r3 point at RAM holding RAM addresses, so 'ldr r7, [r6]' stays mapped
    code = assemble(body + "\nbx lr\n")
    uc = machine(code, core, regs={"r6": RAM + 0x100, "r7": 0})
    for base in (0x1000, 0x1300, 0x1400):
        uc.mem_write(RAM + base, (RAM + 0x2000).to_bytes(4, "little") * 64)
    cc = CycleCounter(uc, core, CODE, CODE + len(code))
    uc.emu_start(CODE | 1, STOP)
    static = straight(body, core)
    assert cc.cycles == static + RET
    if groups == 400:
        assert cc.block_hook_calls > 1      # Unicorn split it: the boundary rule was exercised


# ---------------------------------------------------------------------------------------
# Determinism, attaching after translation, detaching
# ---------------------------------------------------------------------------------------
@needs_as
def test_reset_rerun_and_late_attach():
    code = assemble(LOOP.format(k=50) + "\nbx lr\n")
    uc = machine(code, "cortex-m4")
    uc.emu_start(CODE | 1, STOP)                     # translated before any hook exists
    cc = CycleCounter(uc, "cortex-m4", CODE, CODE + len(code))
    expected = 1 + 50 * 4 + 49 * P + RET
    for _ in range(3):
        cc.reset()
        uc.reg_write(A.UC_ARM_REG_LR, STOP | 1)
        uc.emu_start(CODE | 1, STOP)
        assert cc.cycles == expected
    cc.detach()
    before = cc.cycles
    uc.reg_write(A.UC_ARM_REG_LR, STOP | 1)
    uc.emu_start(CODE | 1, STOP)
    assert cc.cycles == before


# ---------------------------------------------------------------------------------------
# Speed: per-block, not per-instruction
# ---------------------------------------------------------------------------------------
@needs_as
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_speed_block_hooks_only(core):
    k = 40_000
    body = """
    movw r0, #{lo}
    movt r0, #{hi}
1:  ldr r2, [r1]
    ldr r3, [r1, #4]
    eors r2, r2, r3
    subs r0, r0, #1
    bne 1b
""".format(lo=k & 0xFFFF, hi=k >> 16)
    code = assemble(body + "\nbx lr\n")
    uc = machine(code, core)
    cc = CycleCounter(uc, core, CODE, CODE + len(code))
    t0 = time.perf_counter()
    uc.emu_start(CODE | 1, STOP)
    dt = time.perf_counter() - t0
    n_insns = 2 + 5 * k + 1
    assert cc.cycles == 2 + k * (2 + 1 + 1 + 1 + 1) + (k - 1) * P + RET
    assert k <= cc.block_hook_calls <= k + 3          # one callback per block, not per insn
    assert cc.code_hook_calls == 0
    assert dt < 3.0, f"{n_insns} instructions took {dt:.2f}s"
    print(f"\n{core}: {n_insns} instructions counted in {dt:.3f}s = {n_insns / dt:,.0f} insn/s")


@needs_as
@pytest.mark.parametrize("r0,big,expected", [(0, True, 5), (0, False, 3), (1, True, 1)])
def test_m3_predicated_long_multiply(r0, big, expected):
    body = "cmp r0, #0\nit eq\numulleq r4, r5, r2, r3"
    regs = {"r0": r0, "r2": 0x9000_0000 if big else 2, "r3": 0x8000_0000 if big else 9}
    cc, _ = run(body, "cortex-m3", regs=regs)
    assert cc.cycles == 1 + 1 + expected + RET
    assert not cc.missed_hooks


@needs_as
def test_data_that_looks_like_a_multiply_is_harmless():
    # the .hword pair decodes as 'umull r0, r1, r2, r3' but is never executed
    code = assemble("adds r0, r0, #1\nbx lr\n.hword 0xFBA2, 0x0103\n")
    uc = machine(code, "cortex-m3")
    cc = CycleCounter(uc, "cortex-m3", CODE, CODE + len(code))
    uc.emu_start(CODE | 1, STOP)
    assert cc.cycles == 1 + RET and cc.code_hook_calls == 0


@needs_as
def test_counter_attached_before_code_is_written_reports_missed_hooks():
    code = assemble("umull r0, r1, r2, r3\nbx lr")
    uc = machine(b"\x00" * len(code), "cortex-m3")
    cc = CycleCounter(uc, "cortex-m3", CODE, CODE + len(code))   # too early: nothing to scan
    uc.mem_write(CODE, code)
    uc.emu_start(CODE | 1, STOP)
    assert cc.missed_hooks == [CODE]                # says its M3 multiply count is a minimum
    assert cc.cycles == 3 + RET
    cc.rescan()                                     # the fix: scan again once code is there
    cc.reset()
    uc.reg_write(A.UC_ARM_REG_LR, STOP | 1)
    uc.emu_start(CODE | 1, STOP)
    assert not cc.missed_hooks
    assert cc.cycles == cortex_m3.long_multiply_cycles("umull", RAM + 0x1200, RAM + 0x1300) + RET
