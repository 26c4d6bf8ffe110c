"""gen/isa/base.py as Thumb-2 implements it (THUMB2), the IR's ISA-neutral immediates and the
constant-memory flag that replaced the special name "rk"."""
import dataclasses

import pytest

from gen import ir
from gen.isa import base
from gen.isa import thumb2 as t2
from gen.sched import listsched, regalloc


def test_thumb2_fills_the_whole_interface():
    for f in dataclasses.fields(base.Isa):
        assert getattr(t2.THUMB2, f.name) is not None, f.name
    isa = t2.THUMB2
    assert isa.sp not in isa.allocatable and not isa.frame_regs & set(isa.allocatable)
    assert set(isa.arg_regs) <= set(isa.allocatable) and set(isa.callee_saved) <= set(isa.allocatable)


def test_memory_access_of_instructions():
    a = t2.THUMB2.access
    assert a(t2.ldr("r1", "r0", 4)) == "load" and a(t2.str_("r1", "r0")) == "store"
    assert a(t2.strd_slot("r1", "r2", 0)) == "store_pair"
    assert a(t2.Insn("eor", dst="r1", srcs=("r1", "r2"))) == "none"
    assert a(t2.Insn("umlal", dst="r1", dst2="r2", srcs=("r3", "r4"))) == "none"
    assert {a(t2.push(("r4", "lr"))), a(t2.pop(("r4", "pc"))), a(t2.Insn("bx", srcs=("lr",)))} == {"barrier"}
    assert all(x in base.ACCESS for x in ("none", "load", "store", "store_pair", "barrier"))


def test_frame_constructors():
    assert t2.add_sp(-8).text() == "sub    sp, sp, #8" and t2.add_sp(12).text() == "add    sp, sp, #12"
    assert [i.text() for i in t2.save(("r4", "lr"))] == ["push   {r4, lr}"]
    assert [i.text() for i in t2.restore_and_return(("r4", "r5"))] == ["pop    {r4, r5, pc}"]
    assert t2.strd_slot("r1", "r2", 3).slot == 3


def test_constants_lower_to_a_placeholder_then_expand():
    op = ir.Op("movc", dst=0, imm=0x12345678)
    ph = t2.lower(op, lambda v: "r3", lambda m: None)
    assert (ph.mnem, ph.dst, ph.imm) == ("mov", "r3", 0x12345678)
    assert [i.text() for i in t2.expand_constants([ph])] == ["movw   r3, #0x5678", "movt   r3, #0x1234"]
    small = t2.lower(ir.Op("movc", dst=0, imm=0xFF00FF00), lambda v: "r3", lambda m: None)
    assert t2.expand_constants([small]) == [small]                 # a modified immediate stays


def test_immediates_belong_to_the_isa():
    b = ir.Builder("any")                                          # no ISA: any 32-bit value
    b.declare("in", 1, "r")
    x = b.ld("in", 0)
    b.eor(x, imm=0x12345678)
    b = ir.Builder("thumb2", is_imm=t2.is_imm)                     # Thumb-2: checked when emitted
    b.declare("in", 1, "r")
    x = b.ld("in", 0)
    b.eor(x, imm=0x0F0F0F0F)
    with pytest.raises(AssertionError):
        b.eor(x, imm=0x12345678)
    with pytest.raises(ValueError):                                # and again by the lowering
        t2.lower(ir.Op("eor", dst=1, a=0, imm=0x12345678), lambda v: f"r{v}", lambda m: None)


def _keys_program(name: str, constant: bool) -> ir.Program:
    """k = name[0] loaded first and used last, three inputs live in between."""
    b = ir.Builder("p")
    b.declare(name, 1, "r", constant=constant)
    b.declare("in", 3, "r")
    b.declare("out", 1, "w")
    k = b.ld(name, 0)
    a, c, d = (b.ld("in", i) for i in range(3))
    b.st("out", 0, b.eor(b.eor(b.eor(a, c), d), k))
    return b.finish()


@pytest.mark.parametrize("name", ("rk", "keys"))
def test_constant_is_a_declaration_flag_not_a_name(name):
    const, plain = _keys_program(name, True), _keys_program(name, False)
    assert const.constant == {name} and not plain.constant
    store = len(const.ops) - 1
    assert const.ops[0].mem == name and const.ops[store].kind == "st"
    # a load of a constant memory need not come before the stores; an input's must
    assert 0 not in listsched.dependences(const)[store]
    assert 0 in listsched.dependences(plain)[store]
    # with 3 registers k is evicted: a constant word is loaded again, an input's is spilled
    bases = {m: regalloc.BaseSpec("pinned", r) for m, r in ((name, "r0"), ("in", "r1"), ("out", "r2"))}
    order = list(range(len(const.ops)))
    for prog, constant in ((const, True), (plain, False)):
        a = regalloc.allocate(prog, order, bases, regs=("r3", "r4", "r5"))
        regalloc.check_allocation(prog, order, a, bases)
        assert (a.remats, a.spills) == ((1, 0) if constant else (0, 1))


def test_constant_memories_are_inputs():
    b = ir.Builder("p")
    with pytest.raises(AssertionError):
        b.declare("out", 1, "w", constant=True)
