"""An IR program rewritten so that every op is one RV32I instruction (gen/isa/rv32.py lowers
op for op): RV32 has no shifted operand, no rotate and no and-not.

* ``a OP shift(b)`` -> the shifted value as its own op(s), then ``a OP t``; a rotation is
  ``lsr``, ``lsl``, ``orr`` (three instructions: issue 36's "rotations cost three").  A shifted
  operand used more than once is computed once (the same (b, shift) gives the same vreg).
* A rotation of a value whose possibly-set bits are known (``known``: a dataflow over AND masks,
  constants, shifts, XOR/OR) and do not wrap around is ONE shift: ror(x & m, n) = (x & m) >> n
  when m has no bit below n, (x & m) << (32 - n) when no bit at or above n.  Bit permutations
  (ShiftRows inside bytes, the packing gathers, masked MixColumns neighbours) rotate masked
  parts that never wrap: on RV32 they cost a shift, not a rotation.
* ``bic a, b`` -> ``and a, mvn(b)``; ``orn a, b`` -> ``orr a, mvn(b)`` (mvn = ``not``).
* An immediate that is not an I-type immediate -> a ``movc`` (LUI/ADDI) and the register form;
  one ``movc`` per distinct constant (the masks of the packing and of fixsliced MixColumns,
  Thumb-2 immediates, recur hundreds of times: the allocator keeps them or reloads them).
Same semantics (gen.ir.run gives the same memories: tests/test_rv32_kernels.py).
"""
from __future__ import annotations

from gen import ir
from gen.isa.rv32 import is_imm


def split(program: ir.Program, stats: dict | None = None) -> ir.Program:
    """``stats`` (optional) gets ``rotations`` (spelled as three instructions),
    ``rotations_as_shifts`` (lowered to one shift: nothing wraps) and ``origin`` (for each op of
    the result, the index of the op of ``program`` it comes from)."""
    b = ir.Builder(program.name + "_rv32")
    counts = {"rotations": 0, "rotations_as_shifts": 0}
    for mem, (size, rw) in program.mems.items():
        b.declare(mem, size, rw, constant=mem in program.constant)
    ren: dict[int, int] = {}
    shifted: dict[tuple, int] = {}
    inverted: dict[int, int] = {}
    constants: dict[int, int] = {}
    known: dict[int, int] = {}          # new vreg -> the bits it may have set

    def note(v: int, m: int) -> int:
        known[v] = m & ir.MASK32
        return v

    def constant(value: int) -> int:
        if value not in constants:
            constants[value] = note(b.movc(value), value)
        return constants[value]

    def shifted_value(v: int, shift) -> int:
        key = (v, shift)
        if key not in shifted:
            t, n = shift
            m = known.get(v, ir.MASK32)
            if t == "ror" and m & ((1 << n) - 1) == 0:          # nothing wraps: a right shift
                t = "lsr"
                counts["rotations_as_shifts"] += 1
            elif t == "ror" and m >> n == 0:                    # everything wraps: a left shift
                t, n = "lsl", 32 - n
                counts["rotations_as_shifts"] += 1
            if t == "ror":
                counts["rotations"] += 1
                shifted[key] = note(b.orr(b.shift("lsr", v, n), b.shift("lsl", v, 32 - n)),
                                    ir.apply_shift(m, shift))
            else:
                shifted[key] = note(b.shift(t, v, n), ir.apply_shift(m, (t, n)))
        return shifted[key]

    def inverted_value(v: int) -> int:
        if v not in inverted:
            inverted[v] = b.mvn(v)
        return inverted[v]

    origin: list[int] = []
    for n, op in enumerate(program.ops):
        origin.extend([n - 1] * (len(b.ops) - len(origin)))
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
        my = known.get(y, ir.MASK32) if imm is None else imm & ir.MASK32
        if k == "mov":
            ren[op.dst] = y if imm is None else constant(imm)
        elif k == "mvn":
            ren[op.dst] = b.mvn(y) if imm is None else constant(~imm & ir.MASK32)
        elif k in ("bic", "orn"):
            ren[op.dst] = b.alu("and" if k == "bic" else "orr", r(op.a), inverted_value(y))
            if k == "bic":
                note(ren[op.dst], known.get(r(op.a), ir.MASK32))
        else:
            ma = known.get(r(op.a), ir.MASK32)
            ren[op.dst] = note(b.alu(k, r(op.a), y, imm=imm), ma & my if k == "and" else ma | my)
    origin.extend([len(program.ops) - 1] * (len(b.ops) - len(origin)))
    out = b.finish()
    assert len(out.ops) == len(origin), "the split left dead ops"
    if stats is not None:
        stats.update(counts, origin=origin)
    return out
