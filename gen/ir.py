"""A tiny straight-line IR on 32-bit virtual registers.

One op is meant to become ONE machine instruction.  SSA, no branches, no computed addresses
(memory indices are Python constants), so anything printed from it is constant-time by
construction.  Memories are 'r' or 'w', an input may be ``constant`` (reloadable at any time).
``run(program, memories)`` interprets a program.  The op kinds and operands:
docs/internals/scheduler.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional

MASK32 = 0xFFFFFFFF
ALU_KINDS = ("eor", "and", "orr", "bic", "orn")
UNARY_KINDS = ("mov", "mvn")
SHIFT_KINDS = ("lsl", "lsr", "ror")
KINDS = ALU_KINDS + UNARY_KINDS + SHIFT_KINDS + ("movc", "ld", "st")
SHIFT_TYPES = SHIFT_KINDS


def _ror(x: int, n: int) -> int:
    n %= 32
    return ((x >> n) | (x << (32 - n))) & MASK32 if n else x


def apply_shift(x: int, shift: Optional[tuple[str, int]]) -> int:
    if shift is None:
        return x
    t, n = shift
    if t == "lsl":
        return (x << n) & MASK32
    if t == "lsr":
        return x >> n
    return _ror(x, n)


@dataclass(frozen=True)
class Op:
    kind: str
    dst: Optional[int] = None
    a: Optional[int] = None
    b: Optional[int] = None
    shift: Optional[tuple[str, int]] = None
    imm: Optional[int] = None
    mem: Optional[str] = None
    index: Optional[int] = None

    def reads(self) -> tuple[int, ...]:
        """Virtual registers this op reads, in operand order."""
        return tuple(r for r in (self.a, self.b) if r is not None)

    def writes(self) -> tuple[int, ...]:
        return () if self.dst is None else (self.dst,)

    def check(self) -> None:
        k = self.kind
        assert k in KINDS, k
        if self.shift is not None:
            t, n = self.shift
            assert t in SHIFT_TYPES and 1 <= n <= 31 and self.b is not None, self
        if k in ALU_KINDS or k in UNARY_KINDS:
            assert (k in ALU_KINDS) == (self.a is not None), self
            assert (self.b is None) != (self.imm is None), self
        elif k in SHIFT_KINDS:
            assert self.a is not None and self.b is None and self.imm is not None and 1 <= self.imm <= 31
        elif k == "movc":
            assert self.a is None and self.b is None and 0 <= self.imm <= MASK32
        elif k == "ld":
            assert self.mem and self.index is not None and self.dst is not None
        elif k == "st":
            assert self.mem and self.index is not None and self.a is not None and self.dst is None
        if k != "st":
            assert self.dst is not None

    def __str__(self) -> str:
        v = lambda r: f"v{r}"
        if self.kind == "ld":
            return f"{v(self.dst)} = ld {self.mem}[{self.index}]"
        if self.kind == "st":
            return f"st {self.mem}[{self.index}] = {v(self.a)}"
        if self.kind == "movc":
            return f"{v(self.dst)} = movc #{self.imm:#010x}"
        if self.kind in SHIFT_KINDS:
            return f"{v(self.dst)} = {self.kind} {v(self.a)}, #{self.imm}"
        op2 = f"#{self.imm:#x}" if self.imm is not None else v(self.b)
        if self.shift:
            op2 += f", {self.shift[0]} #{self.shift[1]}"
        srcs = ([v(self.a)] if self.a is not None else []) + [op2]
        return f"{v(self.dst)} = {self.kind} " + ", ".join(srcs)


@dataclass
class Program:
    """A straight-line SSA program over named word memories.

    ``mems`` maps a memory name to ``(size_in_words, 'r' | 'w')``; 'r' memories are inputs
    (only loaded), 'w' memories outputs (only stored).  ``constant``: the inputs nothing writes
    while the program runs (see the module docstring), whose loads may be repeated any time.
    """
    name: str
    ops: list[Op]
    mems: dict[str, tuple[int, str]]
    n_vregs: int = 0
    constant: frozenset = frozenset()

    @property
    def inputs(self) -> list[str]:
        return sorted(m for m, (_, rw) in self.mems.items() if rw == "r")

    @property
    def outputs(self) -> list[str]:
        return sorted(m for m, (_, rw) in self.mems.items() if rw == "w")

    def validate(self) -> None:
        for m in self.constant:
            assert self.mems[m][1] == "r", f"constant memory {m} is not an input"
        defined: set[int] = set()
        for op in self.ops:
            op.check()
            for r in op.reads():
                assert r in defined, f"v{r} read before written in {op}"
            for r in op.writes():
                assert r not in defined, f"v{r} written twice"
                defined.add(r)
            if op.kind in ("ld", "st"):
                size, rw = self.mems[op.mem]
                assert 0 <= op.index < size, op
                assert rw == ("r" if op.kind == "ld" else "w"), op

    def stats(self) -> dict[str, int]:
        """{'ops': total, 'ld': loads, 'st': stores, '<kind>': count ...} (sorted keys)."""
        out: dict[str, int] = {"ops": len(self.ops)}
        for op in self.ops:
            out[op.kind] = out.get(op.kind, 0) + 1
        return dict(sorted(out.items()))

    def __str__(self) -> str:
        return "\n".join(str(op) for op in self.ops)


def run(program: Program, memories: dict[str, list[int]]) -> dict[str, list[int]]:
    """Interpret ``program``. ``memories`` holds the input memories (lists of words); the result
    holds every memory (inputs copied, outputs zero-initialised then written)."""
    mem = {name: list(memories.get(name, [0] * size)) for name, (size, _) in program.mems.items()}
    reg: dict[int, int] = {}
    for op in program.ops:
        k = op.kind
        if k == "ld":
            reg[op.dst] = mem[op.mem][op.index] & MASK32
            continue
        if k == "st":
            mem[op.mem][op.index] = reg[op.a]
            continue
        if k == "movc":
            reg[op.dst] = op.imm
            continue
        if k in SHIFT_KINDS:
            reg[op.dst] = apply_shift(reg[op.a], (k, op.imm))
            continue
        y = op.imm if op.imm is not None else apply_shift(reg[op.b], op.shift)
        if k == "mov":
            r = y
        elif k == "mvn":
            r = ~y
        else:
            x = reg[op.a]
            r = {"eor": x ^ y, "and": x & y, "orr": x | y, "bic": x & ~y, "orn": x | ~y}[k]
        reg[op.dst] = r & MASK32
    return mem


class Builder:
    """Appends ops and hands out fresh vregs.  ``finish`` removes dead ops and validates.

    ``is_imm`` (optional): the ISA's test of an immediate operand (e.g. gen.isa.thumb2.is_imm);
    given, every ALU or move immediate is checked as it is emitted."""

    def __init__(self, name: str, is_imm: Optional[Callable[[int], bool]] = None):
        self.name = name
        self.is_imm = is_imm
        self.ops: list[Op] = []
        self.next = 0
        self.mems: dict[str, tuple[int, str]] = {}
        self.constant: set[str] = set()

    def _new(self) -> int:
        self.next += 1
        return self.next - 1

    def _emit(self, **kw) -> int:
        dst = self._new()
        op = Op(dst=dst, **kw)
        op.check()
        if self.is_imm and op.imm is not None and op.kind in ALU_KINDS + UNARY_KINDS:
            assert self.is_imm(op.imm), f"not an immediate of the ISA: {op.imm:#x}"
        self.ops.append(op)
        return dst

    def declare(self, mem: str, size: int, rw: str, constant: bool = False) -> None:
        """Memory ``mem`` of ``size`` words, 'r' (input) or 'w' (output); ``constant``: an input
        nothing writes while the program runs (see the module docstring)."""
        assert rw in ("r", "w") and not (constant and rw != "r"), (mem, rw, constant)
        self.mems[mem] = (size, rw)
        if constant:
            self.constant.add(mem)

    # dst = a OP shift(b)   or   dst = a OP imm
    def alu(self, kind: str, a: int, b: Optional[int] = None, shift=None, imm: Optional[int] = None) -> int:
        assert kind in ALU_KINDS
        shift = _norm_shift(shift)
        return self._emit(kind=kind, a=a, b=b, shift=shift, imm=imm)

    def eor(self, a, b=None, shift=None, imm=None): return self.alu("eor", a, b, shift, imm)
    def and_(self, a, b=None, shift=None, imm=None): return self.alu("and", a, b, shift, imm)
    def orr(self, a, b=None, shift=None, imm=None): return self.alu("orr", a, b, shift, imm)
    def bic(self, a, b=None, shift=None, imm=None): return self.alu("bic", a, b, shift, imm)
    def orn(self, a, b=None, shift=None, imm=None): return self.alu("orn", a, b, shift, imm)

    def mov(self, b: int, shift=None) -> int:
        return self._emit(kind="mov", b=b, shift=_norm_shift(shift))

    def mvn(self, b: Optional[int] = None, shift=None, imm: Optional[int] = None) -> int:
        return self._emit(kind="mvn", b=b, shift=_norm_shift(shift), imm=imm)

    def shift(self, kind: str, a: int, n: int) -> int:
        """a SHIFT n; a rotation by 0 (mod 32) returns ``a`` itself, emitting nothing."""
        if kind == "ror":
            n %= 32
            if n == 0:
                return a
        return self._emit(kind=kind, a=a, imm=n)

    def ror(self, a: int, n: int) -> int: return self.shift("ror", a, n)

    def movc(self, value: int) -> int:
        return self._emit(kind="movc", imm=value & MASK32)

    def ld(self, mem: str, index: int) -> int:
        return self._emit(kind="ld", mem=mem, index=index)

    def copy(self, op: Op, rename: Callable[[int], int]) -> Optional[int]:
        """Append ``op`` of another program, its operands renamed by ``rename``; its new vreg
        (None for a store)."""
        a, b = (None if r is None else rename(r) for r in (op.a, op.b))
        if op.kind == "st":
            self.st(op.mem, op.index, a)
            return None
        return self._emit(kind=op.kind, a=a, b=b, shift=op.shift, imm=op.imm, mem=op.mem, index=op.index)

    def st(self, mem: str, index: int, src: int) -> None:
        op = Op(kind="st", a=src, mem=mem, index=index)
        op.check()
        self.ops.append(op)

    def xor_terms(self, terms: Iterable[tuple[int, int]]) -> int:
        """XOR of ror(v, n) over terms [(v, n), ...], using the flexible operand for rotations.
        Emits len(terms) - 1 ops (plus one ``ror`` when no term is unrotated)."""
        terms = [(v, n % 32) for v, n in terms]
        assert terms
        base_i = next((i for i, (_, n) in enumerate(terms) if n == 0), 0)
        v, n = terms.pop(base_i)
        acc = self.ror(v, n)
        for v, n in terms:
            acc = self.eor(acc, v, shift=("ror", n) if n else None)
        return acc

    def finish(self) -> Program:
        """Dead-code elimination, renumbering in program order, validation."""
        live: set[int] = set()
        kept: list[Op] = []
        for op in reversed(self.ops):
            if op.kind == "st" or (op.dst in live):
                kept.append(op)
                live.update(op.reads())
        kept.reverse()
        ren: dict[int, int] = {}
        out: list[Op] = []
        for op in kept:
            f = lambda r: None if r is None else ren[r]
            a, b = f(op.a), f(op.b)
            dst = None
            if op.dst is not None:
                dst = ren[op.dst] = len(ren)
            out.append(Op(op.kind, dst, a, b, op.shift, op.imm, op.mem, op.index))
        prog = Program(self.name, out, dict(sorted(self.mems.items())), len(ren), frozenset(self.constant))
        prog.validate()
        return prog


def _norm_shift(shift):
    if shift is None:
        return None
    t, n = shift
    if t == "ror":
        n %= 32
        if n == 0:
            return None
    assert 1 <= n <= 31
    return (t, n)
