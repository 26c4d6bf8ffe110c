"""An IR program rewritten so that every op is one RV32I instruction (gen/isa/rv32.py lowers
op for op): RV32 has no shifted operand, no rotate and no and-not.

* ``a OP shift(b)`` -> the shifted value as its own op(s), then ``a OP t``; a rotation is
  ``lsr``, ``lsl``, ``orr`` (three instructions: issue 36's "rotations cost three").  A shifted
  operand used more than once is computed once (the same (b, shift) gives the same vreg).
* ``bic a, b`` -> ``and a, mvn(b)``; ``orn a, b`` -> ``orr a, mvn(b)`` (mvn = ``not``).
* An immediate that is not an I-type immediate -> a ``movc`` (LUI/ADDI) and the register form;
  one ``movc`` per distinct constant (the masks of the packing and of fixsliced MixColumns,
  Thumb-2 immediates, recur hundreds of times: the allocator keeps them or reloads them).
Same semantics (gen.ir.run gives the same memories: tests/test_rv32_kernels.py).
"""
from __future__ import annotations

from gen import ir
from gen.isa.rv32 import is_imm


def split(program: ir.Program) -> ir.Program:
    b = ir.Builder(program.name + "_rv32")
    for mem, (size, rw) in program.mems.items():
        b.declare(mem, size, rw, constant=mem in program.constant)
    ren: dict[int, int] = {}
    shifted: dict[tuple, int] = {}
    inverted: dict[int, int] = {}
    constants: dict[int, int] = {}

    def constant(value: int) -> int:
        if value not in constants:
            constants[value] = b.movc(value)
        return constants[value]

    def shifted_value(v: int, shift) -> int:
        key = (v, shift)
        if key not in shifted:
            t, n = shift
            if t == "ror":
                shifted[key] = b.orr(b.shift("lsr", v, n), b.shift("lsl", v, 32 - n))
            else:
                shifted[key] = b.shift(t, v, n)
        return shifted[key]

    def inverted_value(v: int) -> int:
        if v not in inverted:
            inverted[v] = b.mvn(v)
        return inverted[v]

    for op in program.ops:
        r = lambda x: None if x is None else ren[x]
        k = op.kind
        if k == "st":
            b.st(op.mem, op.index, r(op.a))
            continue
        if k == "ld":
            ren[op.dst] = b.ld(op.mem, op.index)
            continue
        if k == "movc":
            ren[op.dst] = constant(op.imm)
            continue
        if k in ir.SHIFT_KINDS:
            ren[op.dst] = shifted_value(r(op.a), (k, op.imm))
            continue
        if op.imm is not None:
            y, imm = (None, op.imm) if is_imm(op.imm) and k not in ("bic", "orn", "mvn") else (constant(op.imm), None)
        else:
            y, imm = (r(op.b) if op.shift is None else shifted_value(r(op.b), op.shift)), None
        if k == "mov":
            ren[op.dst] = y if imm is None else constant(imm)
        elif k == "mvn":
            ren[op.dst] = b.mvn(y) if imm is None else constant(~imm & ir.MASK32)
        elif k in ("bic", "orn"):
            ren[op.dst] = b.alu("and" if k == "bic" else "orr", r(op.a), inverted_value(y))
        else:
            ren[op.dst] = b.alu(k, r(op.a), y, imm=imm)
    return b.finish()
