"""Spill stores paired into STRD (gen/sched/strd_pairs.py): legal moves only, adjacent slots,
never more cycles, and the same values everywhere (symbolic check and execution)."""
import random

import pytest

from gen.isa import thumb2 as t2
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.sched import listsched, strd_pairs


def alu(dst, a, b):
    return t2.Insn("eor", dst=dst, srcs=(a, b))


def body_two_spills():
    return [alu("r3", "r1", "r2"), alu("r4", "r1", "r3"),
            t2.str_slot("r3", 0, "spill a"), alu("r5", "r4", "r4"),
            t2.str_slot("r4", 1, "spill b"), alu("r3", "r5", "r5"), alu("r4", "r5", "r3"),
            t2.ldr_slot("r6", 0, "reload a"), t2.ldr_slot("r7", 1, "reload b"),
            alu("r0", "r6", "r7"), alu("r0", "r0", "r4")]


def test_two_spill_stores_become_one_strd_to_adjacent_words():
    body = body_two_spills()
    new, n = strd_pairs.pair(body, "cortex-m4")
    assert n == 1
    strd = [i for i in new if i.mnem == "strd"]
    assert len(strd) == 1 and strd[0].srcs == ("r3", "r4")
    reloads = {i.dst: i.slot for i in new if i.mnem == "ldr"}
    assert reloads["r6"] == strd[0].slot and reloads["r7"] == strd[0].slot + 1
    assert listsched.cycles(new, "cortex-m4") == listsched.cycles(body, "cortex-m4") - 1
    strd_pairs.check(body, new)
    # executed: the same result in r0
    results = []
    for b in (body, new):
        regs = {f"r{k}": 0 for k in range(13)}
        regs.update(r1=0x1234, r2=0xF0F0, sp=0x1000)
        t2.execute([t2.resolve(i, lambda s: 4 * s) for i in b], regs, {})
        results.append(regs["r0"])
    assert results[0] == results[1] != 0
    assert t2.resolve(strd[0], lambda s: 4 * s).text().startswith(f"strd   r3, r4, [sp")


def test_a_store_whose_register_is_overwritten_in_between_is_not_moved():
    body = body_two_spills()
    body.insert(3, alu("r4", "r1", "r1"))         # r4 changes between the two stores...
    body.insert(4, alu("r4", "r1", "r3"))         # ...and is recomputed: B cannot move up to A
    new, n = strd_pairs.pair(body, "cortex-m4")
    strd = [i for i in new if i.mnem == "strd"]
    assert n == 0 and not strd
    strd_pairs.check(body, new)


def test_a_store_pipelined_behind_a_load_is_left_alone():
    body = [t2.ldr("r3", "r1", 0), t2.str_slot("r3", 0, "spill a"), t2.ldr("r4", "r1", 4),
            t2.str_slot("r4", 1, "spill b"), t2.ldr_slot("r5", 0, "reload a"), t2.ldr_slot("r6", 1, "reload b"),
            alu("r0", "r5", "r6")]
    new, n = strd_pairs.pair(body, "cortex-m4")
    assert n == 0 and listsched.cycles(new, "cortex-m4") == listsched.cycles(body, "cortex-m4")


def test_check_catches_a_wrong_slot():
    body = body_two_spills()
    new, _ = strd_pairs.pair(body, "cortex-m4")
    swapped = [t2.ldr_slot(i.dst, i.slot ^ 1, i.note) if i.mnem == "ldr" else i for i in new]
    with pytest.raises(AssertionError):
        strd_pairs.check(body, swapped)


def test_slots_of_dead_ranges_are_reused():
    body = []
    for k in range(6):                    # six short-lived spills, one after the other
        r = f"r{3 + k % 2}"
        body += [alu(r, "r1", "r2"), t2.str_slot(r, k, f"spill {k}"), alu(r, "r1", r),
                 t2.ldr_slot("r6", k, f"reload {k}"), alu("r0", "r0", "r6")]
    new, _ = strd_pairs.pair(body, "cortex-m4")
    strd_pairs.check(body, new)
    assert strd_pairs.n_slots(new) <= 2


@pytest.mark.parametrize("bits,slicing", [(128, "ffs"), (256, "sfs")])
def test_aes_kernel_pairs_and_stays_correct(bits, slicing):
    c = aes_thumb2.compile_encrypt2(bits, slicing, "cortex-m4")
    strd = [i for i in c.body if i.mnem == "strd"]
    assert c.strd == len(strd) >= 40
    # every STRD writes two adjacent words inside the frame, below the pushed registers
    frame = c.stack_bytes - 4 * len(aes_thumb2.PUSHED)
    assert all(0 <= i.offset and i.offset + 8 <= frame for i in strd)
    # run the whole function on the instruction interpreter against the IR
    from gen.kernels.aes import fixsliced as AF
    from gen import ir
    rng = random.Random(bits)
    prog = AF.encrypt2_ir(bits, slicing)
    rk = [rng.getrandbits(32) for _ in range(8 * (AF.ROUNDS[bits] + 1))]
    inw = [rng.getrandbits(32) for _ in range(8)]
    want = ir.run(prog, {"in": inw, "rk": rk})["out"]
    mem = {}
    RK, IN, OUT, SP = 0x1000, 0x3000, 0x4000, 0x8000
    for k, w in enumerate(rk):
        mem[RK + 4 * k] = w
    for k, w in enumerate(inw):
        mem[IN + 4 * k] = w
    regs = {f"r{k}": 0 for k in range(13)}
    regs.update(r0=RK, r1=OUT, r2=IN, sp=SP, lr=0, pc=0)
    t2.execute(c.insns, regs, mem)
    assert [mem[OUT + 4 * k] for k in range(8)] == want
    assert regs["sp"] == SP
