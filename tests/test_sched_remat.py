"""gen/sched/remat.py and regalloc's ``recompute``: spilled values brought back by one ALU
instruction (their own op, or an XOR identity proven by linear signatures), spill stores written
only when some reload cannot recompute.  check_allocation proves every recomputed instruction;
the allocated code runs like the IR (interpreter here, Unicorn in test_aes_thumb2)."""
import random
from dataclasses import replace

import pytest

from gen import ir
from gen.isa import thumb2 as t2
from gen.kernels.aes import compact_thumb2, thumb2 as aes_thumb2
from gen.sched import listsched, regalloc, remat

from test_sched_regalloc import BASES, execute, random_program


def xor_program(rng, n_ops=160):
    """Mostly plain XORs of a few inputs (many identities), some ANDs, more live values than registers."""
    b = ir.Builder("xors")
    b.declare("in", 8, "r")
    b.declare("rk", 8, "r", constant=True)
    b.declare("out", 8, "w")
    live = [b.ld("in", i) for i in range(8)]
    for _ in range(n_ops):
        x, y = rng.sample(live, 2)
        live.append(b.and_(x, y) if rng.random() < 0.15 else b.eor(x, y))
        if len(live) > 30:
            live.pop(rng.randrange(len(live)))
    for i in range(8):
        b.st("out", i, live[-1 - 2 * i])
    return b.finish()


def all_values(prog, inputs) -> dict:
    """Every value of ``prog`` on ``inputs`` (the IR interpreter, each value stored to one more memory)."""
    vs = sorted(op.dst for op in prog.ops if op.dst is not None)
    ops = list(prog.ops) + [ir.Op("st", a=v, mem="all", index=k) for k, v in enumerate(vs)]
    mems = dict(prog.mems, all=(len(vs), "w"))
    words = ir.run(ir.Program("all", ops, mems, prog.n_vregs, prog.constant), inputs)["all"]
    return dict(zip(vs, words))


def test_linear_signatures_prove_only_true_identities():
    rng = random.Random(5)
    prog = xor_program(rng)
    sig, defs = remat.linear_signatures(prog), remat.definitions(prog)
    values = all_values(prog, {"in": [rng.getrandbits(32) for _ in range(8)], "rk": [0] * 8})
    vs = sorted(sig)
    found = rejected = 0
    for v in vs[8:90]:
        for a in vs[:vs.index(v)]:
            for c in vs[:vs.index(v)]:
                op = ir.Op("eor", dst=v, a=a, b=c)
                if remat.proves(op, v, defs, sig):
                    found += op != defs[v]
                    assert values[v] == values[a] ^ values[c], (v, a, c)
                else:
                    rejected += values[v] != values[a] ^ values[c]
    assert found > 20 and rejected > 1000
    and_op = next(op for op in prog.ops if op.kind == "and")     # a leaf is only its own op
    assert remat.proves(and_op, and_op.dst, defs, sig)
    assert not remat.proves(replace(and_op, kind="orr"), and_op.dst, defs, sig)


def compile_with(prog, seed, recompute, regs=t2.ALLOCATABLE):
    order = listsched.schedule(prog, seed, "pressure")
    alloc = regalloc.allocate(prog, order, BASES, regs=regs, seed=seed, recompute=recompute, remat_bonus=2.0)
    regalloc.check_allocation(prog, order, alloc, BASES)
    body = listsched.post_schedule(alloc.insns, "cortex-m4", seed, readonly=alloc.readonly)
    return order, alloc, body


@pytest.mark.parametrize("make", [xor_program, random_program])
def test_recomputing_allocations_run_like_the_ir(make):
    rng = random.Random(17)
    recomputed = dropped = 0
    for trial in range(8):
        prog = make(rng)
        inputs = {"in": [rng.getrandbits(32) for _ in range(8)],
                  "rk": [rng.getrandbits(32) for _ in range(prog.mems["rk"][0])]}
        want = ir.run(prog, inputs)["out"]
        regs = ("r1", "r2", "r3", "r4", "r5", "r6", "r7") if trial % 2 else t2.ALLOCATABLE
        _, plain, _ = compile_with(prog, 0, False, regs)
        order, alloc, body = compile_with(prog, 0, True, regs)
        assert execute(prog, body, alloc.n_slots, inputs) == want, trial
        notes = [i.note for i in alloc.insns]
        assert sum(n.startswith("remat ") for n in notes) == alloc.recomputed
        assert sum(n.startswith("spill ") for n in notes) == alloc.spills
        recomputed += alloc.recomputed
        dropped += plain.spills - alloc.spills
    if make is xor_program:          # identities everywhere: used, and some stores never needed
        assert recomputed > 0 and dropped > 0


def _first_remat(alloc):
    return next(k for k, i in enumerate(alloc.insns) if i.note.startswith("remat "))


@pytest.mark.parametrize("mutate", ["source", "operation", "value"])
def test_check_allocation_catches_a_wrong_recomputation(mutate):
    rng = random.Random(3)
    prog = xor_program(rng)
    order, alloc, _ = compile_with(prog, 0, True, ("r1", "r2", "r3", "r4", "r5", "r6"))
    k = _first_remat(alloc)
    ins = alloc.insns[k]
    if mutate == "source":         # another register, holding another value
        other = next(r for r in ("r1", "r2", "r3", "r4", "r5", "r6") if r not in ins.srcs and r != ins.dst)
        bad = replace(ins, srcs=(ins.srcs[0], other))
    elif mutate == "operation":
        bad = replace(ins, mnem="and" if ins.mnem != "and" else "orr")
    else:                          # claims to recompute a value it does not compute
        bad = replace(ins, note=f"remat v{int(ins.note[7:]) - 1}")
    broken = replace(alloc, insns=alloc.insns[:k] + [bad] + alloc.insns[k + 1:])
    regalloc.check_allocation(prog, order, alloc, BASES)
    with pytest.raises(AssertionError):
        regalloc.check_allocation(prog, order, broken, BASES)


@pytest.mark.parametrize("keybits, slicing", [(128, "ffs"), (192, "ffs"), (256, "ffs"), (128, "sfs"), (256, "sfs")])
def test_every_aes_segment_kind_is_proven_with_the_kernel_policy(keybits, slicing):
    """The kernel's allocation (recompute on) proven by check_allocation over every segment kind of
    the unrolled kernel (plain and XOR-fused) and of the size objective's looped one; recomputed
    instructions are there, and each is proven one by one (a wrong one is caught: test above)."""
    assert aes_thumb2.ALLOC_POLICY.get("recompute") is True
    for xor in (False, True):
        seg = aes_thumb2.build(keybits, slicing, ark_in_sbox=True, xor=xor)
        order = listsched.schedule(seg.program, 0, "pressure", segments=seg.segment, rank=seg.rank)
        bases = aes_thumb2.BASES_XOR if xor else aes_thumb2.BASES
        alloc = regalloc.allocate(seg.program, order, bases, **aes_thumb2.ALLOC_POLICY)
        regalloc.check_allocation(seg.program, order, alloc, bases)
        assert alloc.recomputed > 0 and alloc.spills > 0
        kinds = {seg.segment[order[k]] for k in range(len(order))}
        assert len(kinds) == 2 * (keybits // 32 + 6) + 2       # packing, nr x (ark+sbox, linear), final
    looped = compact_thumb2.thumb2("t", keybits, slicing, "cortex-m4")     # checks every segment inside
    assert set(looped.segments) >= {"first", "ark+sbox", "last"}
