"""Table-driven GHASH in generated Thumb-2: 'table4' and 'table8'.  NOT constant time.

table4: Shoup's 4-bit tables used byte-wise (two 16-entry lookups and one shift by 8 per byte,
a 256-entry reduction table); table8: 256 entries of 16 bytes per key, XORed into a 256-bit
unreduced accumulator, one reduction per block.  The load addresses depend on y and the data:
cache-timing attacks apply wherever memory timing depends on the address; use 'ctmul' for
constant time.  The Horner steps and the layouts: docs/internals/ghash.md.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from . import model as M
from .asm import Asm, GhashCode, c_asm_function, count_down, imm, push_regs, reduce_clmul, store_y_and_return

STEP_BITS = 8                      # one Horner step consumes one byte of X
X_ONE = 1 << 127                   # the field element 1 as a big-endian integer


def elem_of_byte(b: int) -> int:
    """The block whose first byte is b (x^0..x^7 coefficients), as an integer."""
    return b << 120


def reduction_table() -> List[int]:
    """R8[r]: (the low byte r of Z) * x^8 reduced, as its top 16 bits (all else is 0)."""
    x8 = X_ONE >> STEP_BITS
    out = []
    for r in range(256):
        v = M.gf128_mul_ref(r, x8)
        if v & ((1 << 112) - 1):
            raise AssertionError("reduction of a byte must fit the top 16 bits")
        out.append(v >> 112)
    return out


def table_entries(h: bytes, impl: str) -> List[int]:
    """hk words written by the generated init, for tests: 4 words per entry, word 0 least
    significant; table8: T[0..255]; table4: M_hi[0..15] then M_lo[0..15]."""
    hv = M.block_to_int(h)
    if impl == "table8":
        ents = [M.gf128_mul_ref(elem_of_byte(b), hv) for b in range(256)]
    elif impl == "table4":
        ents = [M.gf128_mul_ref(elem_of_byte(n << 4), hv) for n in range(16)] + \
               [M.gf128_mul_ref(elem_of_byte(n), hv) for n in range(16)]
    else:
        raise ValueError(f"unknown table impl {impl!r}")
    return [w for e in ents for w in M.int_to_words(e)]


# --------------------------------------------------------------------------- init (C)

def _init_c(prefix: str, impl: str) -> str:
    """V[i] = H * x^i (i = 0..7) by right shifts with a branch-free reduction, then the
    entries by doubling: entry 0 = 0, and for each index bit p = 2^j (j ascending) the
    entries p .. 2p-1 are entry n ^ V[bits - 1 - j] for n = 0 .. p-1 (the V the bit
    selects).  One XOR of 4 words per entry (linear time); loop bounds and addresses
    depend on the index only, never on H."""
    L = [f"static void {prefix}_ghash_init(uint32_t *hk, const uint8_t h[16])", "{",
         "    uint32_t v[8][4];", "    unsigned i, n, w;",
         "    for (w = 0; w < 4; w++) {",
         "        const uint8_t *p = h + 12 - 4 * w;",
         "        v[0][w] = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];",
         "    }",
         "    for (i = 1; i < 8; i++) {    /* times x: shift right, fold x^128 = R */",
         "        uint32_t m = (uint32_t)0 - (v[i - 1][0] & 1u);",
         "        v[i][0] = (v[i - 1][0] >> 1) | (v[i - 1][1] << 31);",
         "        v[i][1] = (v[i - 1][1] >> 1) | (v[i - 1][2] << 31);",
         "        v[i][2] = (v[i - 1][2] >> 1) | (v[i - 1][3] << 31);",
         f"        v[i][3] = (v[i - 1][3] >> 1) ^ (0x{M.R_CONST >> 96:08X}u & m);",
         "    }"]
    if impl == "table8":
        tabs = [(0, 8, 0)]            # (first entry, index bits, first V)
    else:
        tabs = [(0, 4, 0), (16, 4, 4)]
    for first, bits, v0 in tabs:
        L.append("    {")
        L.append(f"        uint32_t *t = hk + {4 * first};")
        L.append("        t[0] = t[1] = t[2] = t[3] = 0;")
        L.append(f"        for (i = 0; i < {bits}; i++) {{")
        L.append(f"            const uint32_t *vv = v[{v0 + bits - 1} - i];")
        L.append("            uint32_t a = vv[0], b = vv[1], c = vv[2], d = vv[3];")
        L.append("            uint32_t *dst = t + (4u << i);")
        L.append("            const uint32_t *src = t;")
        L.append("#pragma GCC unroll 4")
        L.append("            for (n = 0; n < (1u << i); n++, dst += 4, src += 4) {")
        L.append("                uint32_t s0 = src[0], s1 = src[1], s2 = src[2], s3 = src[3];")
        L.append("                dst[0] = s0 ^ a; dst[1] = s1 ^ b; dst[2] = s2 ^ c; dst[3] = s3 ^ d;")
        L.append("            }")
        L.append("        }")
        L.append("    }")
    L.append("}")
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------- blocks (asm)

SET_A = ("r0", "r1", "r2", "r3")   # Z at block boundaries (word 0 least significant)
SET_B = ("r4", "r5", "r6", "r7")
P, RB, XW, TB, RT, IN = "r8", "r9", "r10", "r11", "r12", "lr"
FRAME_X, FRAME_Y, FRAME_N, FRAME = 0, 16, 20, 24   # 10 pushed regs + 24 bytes: 8-aligned


def _shift_xor(a: Asm, z: Sequence[str], t: Sequence[str]) -> None:
    """t ^= Z >> 8 (words), plus the reduction word already in RB: t3 ^= RB << 16."""
    s = STEP_BITS
    for w in range(3):
        a.op("eor", t[w], t[w], z[w], f"lsr #{s}")
        a.op("eor", t[w], t[w], z[w + 1], f"lsl #{32 - s}")
    a.op("eor", t[3], t[3], z[3], f"lsr #{s}")
    a.op("eor", t[3], t[3], RB, "lsl #16")             # R8 holds bits 112..127


def _step(a: Asm, impl: str, z: Sequence[str] | None, t: Sequence[str], pos: int) -> None:
    """One Horner step for the X byte at bit ``pos`` of XW: T (into registers t) from the
    tables, then (unless this is the first step, z None) t ^= Z * x^8."""
    if impl == "table8":
        a.op("ubfx", P, XW, f"#{pos}", "#8")
        a.op("add", P, TB, P, "lsl #4")                       # entry = 16 bytes
    else:
        a.op("and", P, XW, imm(0xF0 << pos))                  # high nibble * 16 << pos
        a.op("add", P, TB, P, f"lsr #{pos}") if pos else a.op("add", P, TB, P)
    if z is not None:
        a.op("and", RB, z[0], "#255")                         # the byte Z * x^8 pushes out
    a.op("ldm", P, "{" + f"{t[0]}-{t[3]}" + "}")
    if impl == "table4":
        a.op("and", P, XW, imm(0x0F << pos))                  # low nibble << pos
        sh = 4 - pos
        a.op("add", P, TB, P, f"lsl #{sh}" if sh > 0 else f"lsr #{-sh}")
    if z is not None:
        a.op("ldrh", RB, f"[{RT}, {RB}, lsl #1]")
        _shift_xor(a, z, t)
    if impl == "table4":
        # the M_lo entry goes to the registers Z no longer needs (or the free quadruple)
        u = z if z is not None else (SET_A if t == SET_B else SET_B)
        for w in range(4):
            a.op("ldr", u[w], f"[{P}, #{256 + 4 * w}]")
        for w in range(4):
            a.op("eor", t[w], t[w], u[w])


def _blocks(prefix: str, impl: str) -> Asm:
    L = f".L{prefix}_gh"
    a = Asm()
    pushed = push_regs([f"r{i}" for i in range(4, 13)])
    a.op("push", "{" + ", ".join(pushed) + "}")
    a.op("sub", "sp", "sp", f"#{FRAME}")
    a.op("mov", TB, "r0")
    a.op("mov", IN, "r2")
    a.op("str", "r1", f"[sp, #{FRAME_Y}]")
    a.op("str", "r3", f"[sp, #{FRAME_N}]")
    a.op("cmp", "r3", "#0")                                   # flags survive until the beq
    a.op("movw", RT, f"#:lower16:{prefix}_ghash_r8")
    a.op("movt", RT, f"#:upper16:{prefix}_ghash_r8")
    a.comment("y: big-endian bytes -> words (unaligned LDR is fine on ARMv7-M)")
    for w in range(4):
        a.op("ldr", SET_B[w], f"[r1, #{12 - 4 * w}]")
    for w in range(4):
        a.op("rev", SET_A[w], SET_B[w])
    a.op("beq", f"{L}_end")
    a.label(f"{L}_loop")
    a.comment("X = y ^ block, kept on the stack and read one word at a time")
    for w in range(4):
        a.op("ldr", SET_B[w], f"[{IN}, #{12 - 4 * w}]")
    a.op("add", IN, IN, "#16")
    for w in range(4):
        a.op("rev", SET_B[w], SET_B[w])
    for w in range(4):
        a.op("eor", SET_B[w], SET_B[w], SET_A[w])
    a.op("stm", "sp", "{" + f"{SET_B[0]}-{SET_B[3]}" + "}")
    z = None
    t = SET_B
    for k in range(15, -1, -1):                 # byte k of X: word 3 - k//4, bit 8*(3 - k%4)
        w, pos = 3 - k // 4, 8 * (3 - k % 4)
        if pos == 0:
            if k == 15:
                a.op("mov", XW, SET_B[0])
            else:
                a.op("ldr", XW, f"[sp, #{FRAME_X + 4 * w}]")
        a.comment(f"byte {k}")
        _step(a, impl, z, t, pos)
        z, t = t, (SET_A if t == SET_B else SET_B)
    if tuple(z) != SET_A:
        raise AssertionError("Z must end each block in SET_A")
    count_down(a, FRAME_N, f"{L}_loop", P)
    a.label(f"{L}_end")
    store_y_and_return(a, FRAME_Y, SET_A, P, SET_B, FRAME, pushed)
    return a


# ----------------------------------------------------------- table8: word offsets, one reduction

A8 = tuple(f"r{i}" for i in range(8))           # 256-bit accumulator, A8[0] least significant
E8 = ("r8", "r9", "r10", "r11")                 # a table entry; Z (y) between blocks
P8, TB8 = "r12", "lr"                           # entry address / index byte, table base
F8_X, F8_Y, F8_IN, F8_N, F8 = 0, 16, 20, 24, 32  # frame; 10 regs pushed + 32: 8-aligned


def table8_plan() -> List[Tuple[int, int]]:
    """Order of the 16 table entries, (r, q) for byte k = 4q + r: byte groups r = 3..0,
    the accumulator shifted by 8 bits between groups (Horner over r), and inside a group
    T[X_k] * x^(32q) is T[X_k] XORed q words lower: no shift at all."""
    return [(r, q) for r in range(3, -1, -1) for q in range(4)]


def table8_model(x: int, h: int) -> int:
    """Python twin of the table8 kernel: X * H (x, h as big-endian block integers)."""
    t = [M.gf128_mul_ref(elem_of_byte(b), h) for b in range(256)]
    acc = 0
    for i, (r, q) in enumerate(table8_plan()):
        if i and q == 0:
            acc >>= STEP_BITS
        k = 4 * q + r
        byte = (x >> (8 * (15 - k))) & 0xFF
        acc ^= t[byte] << (128 - 32 * q)
    return M.reduce256(acc)


def _blocks8(prefix: str) -> Asm:
    """table8: the 16 entries XORed into a 256-bit accumulator (bit 255 - d holds x^d)
    at word offsets, 3 shifts by 8 bits, one reduction per block (``asm.reduce_clmul``,
    the same code as ctmul's).  X lives on the stack as the block's bytes in reverse order
    (byte k of X at sp + 15 - k), read back with LDRB pipelined behind the entry loads."""
    L = f".L{prefix}_gh"
    a = Asm()
    pushed = push_regs([f"r{i}" for i in range(4, 13)])
    a.op("push", "{" + ", ".join(pushed) + "}")
    a.op("sub", "sp", "sp", f"#{F8}")
    a.op("mov", TB8, "r0")
    a.op("str", "r1", f"[sp, #{F8_Y}]")
    a.op("str", "r2", f"[sp, #{F8_IN}]")
    a.op("str", "r3", f"[sp, #{F8_N}]")
    a.comment("y: big-endian bytes -> words (unaligned LDR is fine on ARMv7-M)")
    for w in range(4):
        a.op("ldr", E8[w], f"[r1, #{12 - 4 * w}]")
    for w in range(4):
        a.op("rev", E8[w], E8[w])
    a.op("cmp", "r3", "#0")
    a.op("beq", f"{L}_end")
    a.label(f"{L}_loop")
    a.comment("X = y ^ block as big-endian words, stored little-endian: byte k at sp + 15 - k")
    xin = ("r1", "r2", "r3", "r4")
    a.op("ldr", "r0", f"[sp, #{F8_IN}]")
    for w in range(4):
        a.op("ldr", xin[w], f"[r0, #{12 - 4 * w}]")
    a.op("add", "r0", "r0", "#16")
    a.op("str", "r0", f"[sp, #{F8_IN}]")
    for w in range(4):
        a.op("rev", xin[w], xin[w])
    for w in range(4):
        a.op("eor", xin[w], xin[w], E8[w])
    plan = table8_plan()
    k0 = 4 * plan[0][1] + plan[0][0]
    a.op("ubfx", P8, xin[3 - k0 // 4], f"#{8 * (3 - k0 % 4)}", "#8")     # byte k0, from the register
    a.op("add", P8, TB8, P8, "lsl #4")
    a.op("stm", "sp", "{" + f"{xin[0]}-{xin[3]}" + "}")
    live = [False] * 8
    pending_add = False                       # the next entry's `add P` still to place
    for i, (r, q) in enumerate(plan):
        k = 4 * q + r
        if i and q == 0:
            a.comment("accumulator * x^8: shift right by 8 bits (nothing falls off: degree <= 247)")
            if pending_add:
                a.op("add", P8, TB8, P8, "lsl #4")
                pending_add = False
            for w in range(7):
                if live[w]:
                    a.op("lsr", A8[w], A8[w], "#8")
                    a.op("orr", A8[w], A8[w], A8[w + 1], "lsl #24")
                else:
                    a.op("lsl", A8[w], A8[w + 1], "#24")
                    live[w] = True
            a.op("lsr", A8[7], A8[7], "#8")
        a.comment(f"byte {k}: T[X_{k}] * x^{32 * q} into words {4 - q}..{7 - q}")
        eors = []
        for j in range(4):
            w = 4 + j - q
            if live[w]:
                a.op("ldr", E8[j], f"[{P8}, #{4 * j}]" if j else f"[{P8}]")
                eors.append((A8[w], E8[j]))
            else:
                a.op("ldr", A8[w], f"[{P8}, #{4 * j}]" if j else f"[{P8}]")
                live[w] = True
        nxt = plan[i + 1] if i + 1 < len(plan) else None
        if nxt is not None:
            a.op("ldrb", P8, f"[sp, #{F8_X + 15 - (4 * nxt[1] + nxt[0])}]")
            pending_add = True
        for n, (acc, e) in enumerate(eors):
            a.op("eor", acc, acc, e)
            if pending_add and n == len(eors) - 2:      # not last: no AGU stall
                a.op("add", P8, TB8, P8, "lsl #4")
                pending_add = False
        if pending_add and (nxt is None or nxt[1] != 0):
            a.op("add", P8, TB8, P8, "lsl #4")         # (0 or 1 EOR: costs one stall)
            pending_add = False
    if pending_add or not all(live):
        raise AssertionError("table8 plan left work undone")
    reduce_clmul(a, A8, E8, P8)
    count_down(a, F8_N, f"{L}_loop")
    a.label(f"{L}_end")
    store_y_and_return(a, F8_Y, E8, "r0", "r1", F8, pushed)
    return a


def _rodata(prefix: str) -> str:
    vals = reduction_table()
    lines = [f'.pushsection .rodata.{prefix}_ghash_r8,"a",%progbits', ".balign 4",
             f".type {prefix}_ghash_r8, %object", f"{prefix}_ghash_r8:"]
    for i in range(0, 256, 16):
        lines.append("    .hword " + ", ".join(f"0x{v:04x}" for v in vals[i:i + 16]))
    lines += [f".size {prefix}_ghash_r8, .-{prefix}_ghash_r8", ".popsection"]
    return "\n".join(lines) + "\n"


_HEADER = """\
/*
 * GHASH "{impl}", Thumb-2 for {core}; generated by slicegen (gen/kernels/ghash/tables.py).
 *
 * NOT CONSTANT TIME: table loads are indexed by bytes/nibbles of y ^ data, so the memory
 * addresses (and on cached or wait-stated memory, the timing) depend on secret values.
 * Use only where cache-timing leakage does not matter; 'ctmul' is the constant-time one.
 *
 * Horner's rule over the bytes of X = y ^ block, last byte first:
 * Z = Z * x^8 ^ T[byte]{t_note}.  Times x^8 is a right shift by 8 of the big-endian block
 * integer; the byte shifted out comes back through the constant 256 x 16-bit table
 * R8 (its reduction, top 16 bits).  Shift, reduction and table XOR are merged into
 * shifted-operand EORs; Z and the next entry alternate between r0-r3 and r4-r7.
 * hk: {hk_words} words ({hk_bytes} bytes) per key; R8: 512 bytes of .rodata.
 */"""


_HEADER8 = """\
/*
 * GHASH "table8", Thumb-2 for {core}; generated by slicegen (gen/kernels/ghash/tables.py).
 *
 * NOT CONSTANT TIME: table loads are indexed by bytes of y ^ data, so the memory
 * addresses (and on cached or wait-stated memory, the timing) depend on secret values.
 * Use only where cache-timing leakage does not matter; 'ctmul' is the constant-time one.
 *
 * X * H = sum_k T[X_k] * x^(8k) over the 16 bytes X_k of X = y ^ block, with the per-key
 * table T[b] = b * H (256 entries of 16 bytes, 4 KB in hk).  Written k = 4q + r:
 *     X * H = sum_r x^(8r) sum_q T[X_(4q+r)] * x^(32q).
 * Times x^(32q) is q words lower in a 256-bit unreduced accumulator (bit 255-d = x^d),
 * so the inner sums cost only word EORs; Horner over r = 3..0 shifts the accumulator by
 * 8 bits three times (degree <= 247: nothing falls off), and one reduction modulo
 * x^128 + x^7 + x^2 + x + 1 per block (shifted-operand EORs, as in ctmul) replaces the
 * per-byte reduction table of table4.  Entry loads are single LDRs so the LDRB of the
 * next index byte (X kept on the stack) pipelines behind them.
 * hk: {hk_words} words ({hk_bytes} bytes) per key; no constant tables.
 */"""


def tables(prefix: str, impl: str, core: str) -> GhashCode:
    if impl not in ("table4", "table8"):
        raise ValueError(f"unknown table impl {impl!r}; allowed: table4, table8")
    hk = 4 * (256 if impl == "table8" else 32)
    if impl == "table8":
        head = _HEADER8.format(core=core, hk_words=hk, hk_bytes=4 * hk)
        code = head + "\n" + _init_c(prefix, impl) + "\n" + c_asm_function(
            prefix, "ghash_blocks", f"/* {prefix}_ghash_blocks: see the comment above (not constant time) */",
            _blocks8(prefix))
        return GhashCode(code=code, hk_words=hk, constant_time=False, rodata_bytes=0, impl=impl, core=core)
    t_note = (",\n * T[b] = M_hi[b >> 4] ^ M_lo[b & 15]: Shoup's 4-bit tables, two 16-entry per-key\n"
              " * tables (M_lo = M_hi * x^4) so one step handles a whole byte")
    head = _HEADER.format(impl=impl, core=core, t_note=t_note, hk_words=hk, hk_bytes=4 * hk)
    code = head + "\n" + _init_c(prefix, impl) + "\n" + c_asm_function(
        prefix, "ghash_blocks", f"/* {prefix}_ghash_blocks: see the comment above (not constant time) */",
        _blocks(prefix, impl), extra_sections=_rodata(prefix))
    return GhashCode(code=code, hk_words=hk, constant_time=False, rodata_bytes=512, impl=impl, core=core)
