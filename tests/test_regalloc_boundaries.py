"""regalloc's regs_in / regs_out (issue 19's looped AES kernel): words that start in registers
and must end in registers, with the final parallel move (cycles through a free register,
spilled values reloaded), proven by check_allocation, which a wrong move fails."""
from dataclasses import replace

import pytest

from gen.ir import Builder
from gen.isa import thumb2 as t2
from gen.sched import listsched, regalloc

STATE = ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
BASES = {"m": regalloc.BaseSpec("home", "sp", -1)}


def _program(extra: int):
    """so[i] = si[(i + 1) % 8] ^ (sum of ``extra`` words of m, rotated per word): a rotation of
    the state (a cycle of moves) under register pressure that grows with ``extra``."""
    b = Builder("rot", is_imm=t2.is_imm)
    b.declare("si", 8, "r")
    b.declare("so", 8, "w")
    q = [b.ld("si", i) for i in range(8)]
    if extra:
        b.declare("m", extra, "r")
        ms = [b.ld("m", k) for k in range(extra)]
        q = [b.eor(q[i], b.xor_terms([(x, (i + k) % 32) for k, x in enumerate(ms)])) for i in range(8)]
    for i in range(8):
        b.st("so", i, q[(i + 1) % 8])
    return b.finish()


@pytest.mark.parametrize("extra", [0, 3, 12])
def test_state_stays_in_registers(extra):
    prog = _program(extra)
    order = listsched.schedule(prog, 0, "pressure")
    bases = {k: v for k, v in BASES.items() if k in prog.mems}
    kw = {"regs_in": {"si": STATE}, "regs_out": {"so": STATE}}
    alloc = regalloc.allocate(prog, order, bases, **kw)
    regalloc.check_allocation(prog, order, alloc, bases, **kw)
    # no load or store of the state itself: the only IR memory instructions are m's loads
    assert sum(1 for i in alloc.insns if i.mnem in ("ldr", "str") and not i.note) == extra
    moves = [i for i in alloc.insns if i.note.startswith("move ")]
    if extra == 0:      # a pure rotation: 8 moves and one through a free register
        assert len(moves) == 9 and len(alloc.insns) == 9
    # a wrong final move is caught
    k = next(n for n in reversed(range(len(alloc.insns))) if alloc.insns[n].note.startswith(("move ", "reload")))
    bad = list(alloc.insns)
    wrong = "r12" if bad[k].dst != "r12" else "lr"
    bad[k] = replace(bad[k], dst=wrong)
    with pytest.raises(AssertionError):
        regalloc.check_allocation(prog, order, regalloc.Allocation(bad, alloc.n_slots, 0, 0, 0, 0), bases, **kw)


def test_default_allocation_is_unchanged_without_boundaries():
    """Without regs_in/regs_out the state is loaded and stored through its memories as before."""
    prog = _program(3)
    order = listsched.schedule(prog, 0, "pressure")
    bases = {"si": regalloc.BaseSpec("home", "sp", -2), "so": regalloc.BaseSpec("home", "sp", -3), **BASES}
    alloc = regalloc.allocate(prog, order, bases)
    regalloc.check_allocation(prog, order, alloc, bases)
    assert not any(i.note.startswith("move ") for i in alloc.insns)
    assert sum(1 for i in alloc.insns if i.mnem == "str" and not i.note) == 8
