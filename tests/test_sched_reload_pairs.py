"""Loads moved next to loads with renamed registers (gen/sched/reload_pairs.py): the move only
renaming allows, exact prices (never more cycles), a checker that rejects broken renames and
illegal moves, and kernels that still compute the same thing (interpreter and IR)."""
import random

import pytest

from gen import ir
from gen.isa import thumb2 as t2
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.kernels.thumb2_function import Param, compile_function, execute as run_function
from gen.sched import listsched, regalloc, reload_pairs, strd_pairs

CORES = ("cortex-m4", "cortex-m3")


def alu(dst, a, b):
    return t2.Insn("eor", dst=dst, srcs=(a, b))


def body_false_dependence():
    """A reload of r3 that belongs right behind the load of r1, but r3's old value is read
    in between: only a renamed register lets it move (r6, r7 are free there)."""
    return [alu("r6", "r0", "r0"), alu("r7", "r0", "r6"),       # r6, r7: written, dead afterwards
            alu("r3", "r0", "r7"),
            t2.ldr("r1", "r0", 4),
            alu("r2", "r1", "r1"), alu("r4", "r3", "r2"),        # last read of the old r3
            t2.ldr_slot("r3", 0, "reload a"),
            alu("r5", "r3", "r4"), alu("r5", "r5", "r3"),
            t2.str_("r5", "r0", 8)]


def run(body, regs=None, slot0=0x77):
    mem = {0x1000 + 4: 0x1234567, 0x8000: slot0}
    r = {f"r{k}": 0 for k in range(13)}
    r.update(r0=0x1000, sp=0x8000, lr=0)
    r.update(regs or {})
    t2.execute([t2.resolve(i, lambda s: 4 * s) for i in body], r, mem)
    return mem[0x1000 + 8]


def test_renaming_moves_the_reload_behind_the_load():
    body = body_false_dependence()
    # polish cannot do it: the reload stays where it is
    assert listsched.cycles(listsched.polish(body), "cortex-m4") == listsched.cycles(body, "cortex-m4")
    new, moves = reload_pairs.improve(body, "cortex-m4", debug=True)
    assert moves == 1
    assert listsched.cycles(new, "cortex-m4") == listsched.cycles(body, "cortex-m4") - 1
    k = next(k for k, i in enumerate(new) if i.note == "reload a")
    assert new[k - 1].mnem == "ldr" and new[k - 1].base == "r0"      # pipelined behind it
    assert new[k].dst != "r3" and new[k].base == "sp"                # renamed, sp untouched
    reload_pairs.check(body, new)
    assert run(new) == run(body)


def test_check_rejects_a_broken_rename():
    body = body_false_dependence()
    new, _ = reload_pairs.improve(body, "cortex-m4")
    k = next(k for k, i in enumerate(new) if i.note == "reload a")
    y = new[k].dst
    # a reader left on the old register
    j = next(j for j in range(k + 1, len(new)) if y in new[j].srcs)
    bad = list(new)
    bad[j] = t2.Insn(bad[j].mnem, dst=bad[j].dst, srcs=tuple("r3" if r == y else r for r in bad[j].srcs))
    with pytest.raises(AssertionError):
        reload_pairs.check(body, bad)
    # the reload renamed, its readers not
    bad = list(new)
    bad[k] = t2.ldr_slot("r8", 0, "reload a")
    with pytest.raises(AssertionError):
        reload_pairs.check(body, bad)
    # a renamed register that still holds a live value (r0, the base of the later store)
    bad = [t2.ldr_slot("r0", 0, "reload a") if i is new[k] else
           t2.Insn(i.mnem, dst=i.dst, srcs=tuple("r0" if r == y else r for r in i.srcs)) if i.mnem == "eor" else i
           for i in new]
    with pytest.raises(AssertionError):
        reload_pairs.check(body, bad)


def test_check_rejects_a_reload_above_its_store_and_a_load_above_a_store():
    body = [alu("r2", "r0", "r0"), t2.str_slot("r2", 0, "spill"), alu("r2", "r0", "r2"),
            t2.ldr_slot("r3", 0, "reload"), alu("r4", "r3", "r2"), t2.str_("r4", "r1", 0),
            t2.ldr("r5", "r0", 0), alu("r6", "r5", "r4"), t2.str_("r6", "r1", 4)]
    reload_pairs.check(body, list(body))
    moved = [body[0], body[3], body[1]] + body[2:3] + body[4:]
    with pytest.raises(AssertionError):
        reload_pairs.check(body, moved)
    # r0 and r1 may point to one buffer: the load must stay behind the store
    moved = body[:5] + [body[6], body[5]] + body[7:]
    with pytest.raises(AssertionError):
        reload_pairs.check(body, moved)
    # the pass itself keeps both where they are
    new, _ = reload_pairs.improve(body, "cortex-m4")
    reload_pairs.check(body, new)


def random_program(rng, n_ops=160):
    b = ir.Builder("rand")
    b.declare("in", 8, "r")
    b.declare("rk", 24, "r", constant=True)
    b.declare("out", 8, "w")
    live = [b.ld("in", i) for i in range(8)]
    for _ in range(n_ops):
        r = rng.random()
        if r < 0.15:
            live.append(b.ld("rk", rng.randrange(24)))
        elif r < 0.25:
            live.append(b.shift(rng.choice(["lsl", "lsr", "ror"]), rng.choice(live), rng.randint(1, 31)))
        else:
            live.append(b.alu(rng.choice(ir.ALU_KINDS), rng.choice(live), rng.choice(live)))
        if len(live) > 30:
            live.pop(rng.randrange(len(live)))
    for i in range(8):
        b.st("out", i, live[-1 - 3 * i])
    return b.finish()


@pytest.mark.parametrize("seed", range(6))
def test_random_bodies_never_slower_same_results(seed):
    rng = random.Random(seed)
    prog = random_program(rng)
    core = CORES[seed % 2]
    regs = t2.ALLOCATABLE if seed % 3 else ("r1", "r2", "r3", "r4", "r5", "r6", "r7")
    order = listsched.schedule(prog, seed, "pressure")
    alloc = regalloc.allocate(prog, order, aes_thumb2.BASES, regs=regs, seed=seed)
    body = listsched.post_schedule(alloc.insns, core, seed, readonly=alloc.readonly)
    body, _ = strd_pairs.pair(body, core)
    new, moves = reload_pairs.improve(body, core, debug=True)       # debug: every price re-counted
    reload_pairs.check(body, new)
    assert listsched.cycles(new, core) <= listsched.cycles(body, core)
    assert sum(i.base == "sp" for i in new) == sum(i.base == "sp" for i in body)
    assert reload_pairs.improve(body, core)[0] == new                 # deterministic
    # executed with the kernel's frame: same output words
    inputs = {"in": [rng.getrandbits(32) for _ in range(8)], "rk": [rng.getrandbits(32) for _ in range(24)]}
    want = ir.run(prog, inputs)["out"]
    for b in (body, new):
        s = 4 * (strd_pairs.n_slots(b) + 1)
        mem = {0x10000 + 4 * i: w for i, w in enumerate(inputs["in"])}
        mem.update({0x20000 + 4 * i: w for i, w in enumerate(inputs["rk"])})
        sp = 0x80000
        off = {aes_thumb2.HOME_RK: 0x20000, aes_thumb2.HOME_OUT: 0x30000, aes_thumb2.HOME_IN: 0x10000}
        for k, v in off.items():
            mem[sp + aes_thumb2.home_offset(k, s)] = v
        r = {f"r{i}": 0xDEAD0000 + i for i in range(13)}
        r.update(lr=0xDEADBEEF, sp=sp, r0=0x20000, r1=0x30000, r2=0x10000)
        t2.execute([t2.resolve(i, lambda k: aes_thumb2.home_offset(k, s)) for i in b], r, mem)
        assert [mem.get(0x30000 + 4 * i) for i in range(8)] == want


def _run_aes(c, bits, rng, xor=False):
    prog = AF.encrypt2_ir(bits, "ffs")
    rk = [rng.getrandbits(32) for _ in range(8 * (AF.ROUNDS[bits] + 1))]
    inw = [rng.getrandbits(32) for _ in range(8)]
    msg = [rng.getrandbits(32) for _ in range(8)]
    want = ir.run(prog, {"in": inw, "rk": rk})["out"]
    if xor:
        want = [a ^ b for a, b in zip(want, msg)]
    RK, IN, OUT, MSG, SP = 0x1000, 0x3000, 0x4000, 0x5000, 0x8000
    mem = {RK + 4 * k: w for k, w in enumerate(rk)}
    mem.update({IN + 4 * k: w for k, w in enumerate(inw)})
    mem.update({MSG + 4 * k: w for k, w in enumerate(msg)})
    regs = {f"r{k}": 0 for k in range(13)}
    regs.update(r0=RK, r1=OUT, r2=IN, r3=MSG, sp=SP, lr=0, pc=0)
    t2.execute(c.insns, regs, mem)
    assert regs["sp"] == SP
    return [mem[OUT + 4 * k] for k in range(8)], want


@pytest.mark.parametrize("bits,core,xor", [(128, "cortex-m4", False), (256, "cortex-m3", True)])
def test_aes_kernel_renamed_still_encrypts(bits, core, xor):
    c = aes_thumb2.compile_encrypt2(bits, "ffs", core, xor=xor)
    assert c.moved > 0
    rng = random.Random(bits)
    for _ in range(2):
        got, want = _run_aes(c, bits, rng, xor)
        assert got == want
    # the pass pays: fewer modelled cycles than the body it started from
    seg = aes_thumb2.build(bits, "ffs", ark_in_sbox=True, xor=xor)
    order = listsched.schedule(seg.program, 0, "pressure", segments=seg.segment, rank=seg.rank)
    bases = aes_thumb2.BASES_XOR if xor else aes_thumb2.BASES
    alloc = regalloc.allocate(seg.program, order, bases, seed=0)
    paired, _ = strd_pairs.pair(aes_thumb2.post(alloc, core, 0), core)
    assert listsched.cycles(c.body, core) <= listsched.cycles(paired, core) - 5


def test_compile_function_with_renaming_runs_correctly():
    """thumb2_function's path (pinned and homed bases, stack arguments, movw/movt constants)."""
    rng = random.Random(5)
    b = ir.Builder("f")
    for m, n in (("a", 6), ("b", 4), ("c", 5), ("d", 3), ("e", 4)):
        b.declare(m, n, "r")
    b.declare("o", 8, "w")
    vals = [b.ld(m, i) for m, n in (("a", 6), ("b", 4), ("c", 5), ("d", 3), ("e", 4)) for i in range(n)]
    vals.append(b.movc(0x12345678))
    for _ in range(250):
        x, y = rng.choice(vals[-16:]), rng.choice(vals)
        vals.append(b.alu(rng.choice(ir.ALU_KINDS), x, y, shift=rng.choice([None, ("ror", 7)])))
        if rng.random() < 0.1:
            vals.append(b.ld(rng.choice("abcde"), 1))
    for i in range(8):
        b.st("o", i, vals[-1 - 2 * i])
    prog = b.finish()
    params = [Param(m, "const uint32_t *", m) for m in "abcde"] + [Param("o", "uint32_t *", "o")]
    inputs = {m: [rng.getrandbits(32) for _ in range(prog.mems[m][0])] for m in prog.inputs}
    want = ir.run(prog, inputs)["o"]
    for core, pinned in (("cortex-m4", ("a",)), ("cortex-m3", ())):
        fn = compile_function(prog, "f", params, core, pinned=pinned)
        mem, args = {}, []
        for k, p in enumerate(params):
            base = 0x20000000 + 0x1000 * k
            args.append(base)
            for i, w in enumerate(inputs.get(p.mem, ())):
                mem[base + 4 * i] = w
        regs = run_function(fn, args, mem)
        assert [mem.get(args[-1] + 4 * i) for i in range(8)] == want
        assert regs["sp"] == 0x2000F000


def test_live_out_register_keeps_its_final_value():
    body = body_false_dependence()
    free, _ = reload_pairs.improve(body, "cortex-m4")
    with pytest.raises(AssertionError):                  # r3 no longer ends with the reload
        reload_pairs.check(body, free, live_out=frozenset({"r3"}))
    kept, _ = reload_pairs.improve(body, "cortex-m4", live_out=frozenset({"r3"}))
    reload_pairs.check(body, kept, live_out=frozenset({"r3"}))
