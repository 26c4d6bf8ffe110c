"""Print an IR program (gen/ir.py) as C99: one statement per op, ``uint32_t v<n>`` locals.

Memories are mapped to C by the caller, ``{mem: (access, c_name)}``:
  'words'     a ``uint32_t *`` (or const) array: ``v = name[i];`` / ``name[i] = v;``
  'bytes_le'  a byte pointer read/written as little-endian words with byte loads and shifts
              (no alignment needed, no pointer casts); a store is one line of four byte stores.
Rotations print as ``((x >> n) | (x << (32 - n)))`` with 1 <= n <= 31 (no undefined shifts).
The output is straight-line: no branches, no data-dependent indices.
"""
from __future__ import annotations

from gen.ir import Op, Program


def _v(r: int) -> str:
    return f"v{r}"


def _hex(x: int) -> str:
    return f"0x{x:08x}u"


def _shifted(r: int, shift) -> str:
    if shift is None:
        return _v(r)
    t, n = shift
    assert 1 <= n <= 31
    if t == "lsl":
        return f"({_v(r)} << {n})"
    if t == "lsr":
        return f"({_v(r)} >> {n})"
    return f"(({_v(r)} >> {n}) | ({_v(r)} << {32 - n}))"


def _op2(op: Op) -> str:
    return _hex(op.imm) if op.imm is not None else _shifted(op.b, op.shift)


def statement(op: Op, mems: dict[str, tuple[str, str]]) -> str:
    k = op.kind
    if k == "st":
        access, name = mems[op.mem]
        if access == "words":
            return f"{name}[{op.index}] = {_v(op.a)};"
        base, v = 4 * op.index, _v(op.a)
        return " ".join(f"{name}[{base + i}] = (uint8_t)({v} >> {8 * i});" if i else
                        f"{name}[{base}] = (uint8_t){v};" for i in range(4))
    if k == "ld":
        access, name = mems[op.mem]
        if access == "words":
            rhs = f"{name}[{op.index}]"
        else:
            base = 4 * op.index
            rhs = " | ".join(f"((uint32_t){name}[{base + i}] << {8 * i})" if i else
                             f"(uint32_t){name}[{base}]" for i in range(4))
    elif k == "movc":
        rhs = _hex(op.imm)
    elif k in ("lsl", "lsr", "ror"):
        rhs = _shifted(op.a, (k, op.imm))
    elif k == "mov":
        rhs = _op2(op)
    elif k == "mvn":
        rhs = f"~{_op2(op)}"
    else:
        a, y = _v(op.a), _op2(op)
        rhs = {"eor": f"{a} ^ {y}", "and": f"{a} & {y}", "orr": f"{a} | {y}",
               "bic": f"{a} & ~{y}", "orn": f"{a} | ~{y}"}[k]
    return f"uint32_t {_v(op.dst)} = {rhs};"


def body(program: Program, mems: dict[str, tuple[str, str]], indent: str = "    ") -> str:
    missing = sorted(set(program.mems) - set(mems))
    assert not missing, f"no C mapping for memories {missing}"
    return "".join(f"{indent}{statement(op, mems)}\n" for op in program.ops)


def function(signature: str, program: Program, mems: dict[str, tuple[str, str]]) -> str:
    """``signature {`` + body + ``}``; the program's name is recorded in a comment."""
    return f"/* IR program {program.name}: {len(program.ops)} ops */\n{signature}\n{{\n" \
           f"{body(program, mems)}}}\n"
