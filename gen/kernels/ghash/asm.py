"""Small helpers shared by the Thumb-2 GHASH generators: an instruction buffer and the
wrapping of a generated function into a file-scope ``__asm__`` block of C text.

Only formatting lives here; what the instructions compute is decided by the kernels
(``thumb2.py`` for ctmul, ``tables.py`` for table4/table8).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence

from gen.isa import thumb2 as t2

from . import model as M


@dataclass(frozen=True)
class GhashCode:
    """Generated GHASH code (C text) and what a caller must know about it.

    ``hk_words``: uint32_t words the caller reserves for ``{prefix}_ghash_init``;
    ``constant_time``: False for the table variants (memory addresses depend on data);
    ``rodata_bytes``: constant tables the code adds to .rodata (besides hk)."""
    code: str
    hk_words: int
    constant_time: bool = True
    rodata_bytes: int = 0
    impl: str = ""
    core: str = ""


class Asm:
    """An ordered list of assembly lines; ``op`` appends one instruction."""

    def __init__(self) -> None:
        self.lines: List[str] = []

    def op(self, mnemonic: str, *operands) -> None:
        ops = ", ".join(str(o) for o in operands)
        self.lines.append(f"    {mnemonic:<7} {ops}".rstrip())

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def comment(self, text: str) -> None:
        self.lines.append(f"    @ {text}")

    def raw(self, text: str) -> None:
        self.lines.append(text)

    def extend(self, other: "Asm") -> None:
        self.lines += other.lines

    def count(self) -> int:
        return sum(1 for ln in self.lines if ln.startswith("    ") and not ln.lstrip().startswith("@"))


def imm(v: int) -> str:
    return f"#0x{v & 0xFFFFFFFF:08x}" if v > 255 else f"#{v}"


def push_regs(used: Sequence[str]) -> List[str]:
    """Callee-saved registers among ``used`` plus lr, padded to an even count (8-byte
    stack alignment, AAPCS) with r12 (caller-saved, harmless to save)."""
    regs = [r for r in t2.CALLEE_SAVED if r in used]
    regs.append("lr")
    if len(regs) % 2:
        regs.insert(0, "r12" if "r12" not in regs else "r3")
    return sorted(regs, key=lambda r: 14 if r == "lr" else int(r[1:]))


def count_down(a: Asm, off: int, label: str, reg: str = "r0") -> None:
    """The block loop's end: n (its frame slot at sp + off) minus one, back to ``label`` while
    n != 0 (``reg`` is scratch; n is public)."""
    a.op("ldr", reg, f"[sp, #{off}]")
    a.op("subs", reg, reg, "#1")
    a.op("str", reg, f"[sp, #{off}]")
    a.op("bne", label)


def store_y_and_return(a: Asm, y_off: int, y_regs: Sequence[str], ptr: str, tmp, frame: int,
                       pushed: Sequence[str]) -> None:
    """The epilogue: y (words in ``y_regs``, word 0 least significant) back to the caller's
    buffer as big-endian bytes (pointer in the frame at sp + y_off; REV into ``tmp``, one
    register or one per word, + unaligned STR), then the frame unwound and ``pushed`` popped
    with lr into pc."""
    a.op("ldr", ptr, f"[sp, #{y_off}]")
    for w in range(4):
        t = tmp if isinstance(tmp, str) else tmp[w]
        a.op("rev", t, y_regs[w])
        a.op("str", t, f"[{ptr}, #{12 - 4 * w}]")
    a.op("add", "sp", "sp", f"#{frame}")
    a.op("pop", "{" + ", ".join(list(pushed[:-1]) + ["pc"]) + "}")


def c_asm_function(prefix: str, name: str, comment: str, body: Asm, extra_sections: str = "") -> str:
    """C text: a prototype of ``{prefix}_{name}`` then a file-scope __asm__ block defining
    it as a global Thumb function in its own .text section.  ``comment`` goes above, as a
    C comment; ``extra_sections`` (assembly text, e.g. a .rodata table) follows the code."""
    sym = f"{prefix}_{name}"
    asm = t2.function_lines(sym, body.lines)
    if extra_sections:
        asm += extra_sections.rstrip("\n").split("\n")
    return t2.c_asm(f"void {sym}(const uint32_t *hk, uint8_t y[16], const uint8_t *in, size_t nblocks)",
                    asm, comment.rstrip("\n") + "\n")


def reduce_clmul(a: Asm, z: Sequence[str], out: Sequence[str], tmp: str) -> None:
    """z reduced mod x^128 + x^7 + x^2 + x + 1 into the 4 ``out`` registers.  z (8 registers,
    z[0] least significant) is clmul(X, H') unshifted: read as a 256-bit reflected value it
    is X * H' * x = X * H, so the model's left shift by one disappears.
    z, out and tmp pairwise distinct."""
    a.comment("reduction: y = hi ^ sum_e (lo >> e) ^ sum_e (d >> e), e in {0,1,2,7}")
    es = [e for e in M.REDUCTION_EXPONENTS if e]
    # d: the bits of lo pushed out on the right by the shifts, folded back (top word only)
    a.op("lsl", tmp, z[0], f"#{32 - es[0]}")
    for e in es[1:]:
        a.op("eor", tmp, tmp, z[0], f"lsl #{32 - e}")
    for w in range(4):
        a.op("eor", out[w], z[4 + w], z[w])
        for e in es:
            a.op("eor", out[w], out[w], z[w], f"lsr #{e}")
        if w < 3:
            for e in es:
                a.op("eor", out[w], out[w], z[w + 1], f"lsl #{32 - e}")
        else:
            a.op("eor", out[w], out[w], tmp)
            for e in es:
                a.op("eor", out[w], out[w], tmp, f"lsr #{e}")
    if 32 - max(es) < max(es):
        raise AssertionError("reduction spill past the top word not generated")
