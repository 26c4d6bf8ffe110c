"""Reference model of GHASH and of the constant-time multiplication the generators emit.

GF(2^128) in GCM's reflected bit order (NIST SP 800-38D, section 6.3) on big-endian integers;
constant-time carry-less products from integer multiplies with "holes" (every 4th bit), two
levels of Karatsuba (``karatsuba_plan``, shared with ctmul.py), and two variants: ``ctmul64``
(UMULL: constant time on M4) and ``ctmul32`` (MUL plus the bit-reversal identity, for M3's
early-terminating long multiplies).  The holes trick and the reversal identity as described in
BearSSL's ghash_ctmul and ghash_ctmul32 comments.  The derivation: docs/internals/ghash.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, List, Sequence, Tuple

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1
MASK128 = (1 << 128) - 1

#: x^128 = sum of x^e for e in REDUCTION_EXPONENTS  (GCM's x^128 + x^7 + x^2 + x + 1)
REDUCTION_EXPONENTS: Tuple[int, ...] = (0, 1, 2, 7)
#: SP 800-38D's R = 11100001 || 0^120
R_CONST = 0xE1 << 120

#: "holes": class c keeps bits c, c+4, c+8, ... of a 32-bit word
HOLE_STRIDE = 4
HOLE_MASKS32: Tuple[int, ...] = tuple(0x11111111 << c for c in range(HOLE_STRIDE))
HOLE_MASKS64: Tuple[int, ...] = tuple(0x1111111111111111 << c for c in range(HOLE_STRIDE))

VARIANTS = ("ctmul64", "ctmul32")


# --------------------------------------------------------------------------- basics

def block_to_int(b: bytes) -> int:
    if len(b) != 16:
        raise ValueError("a GHASH block is 16 bytes")
    return int.from_bytes(b, "big")


def int_to_block(v: int) -> bytes:
    return (v & MASK128).to_bytes(16, "big")


def clmul(a: int, b: int) -> int:
    """Carry-less product of two non-negative integers (plain shift-and-xor)."""
    r = 0
    i = 0
    while b >> i:
        if (b >> i) & 1:
            r ^= a << i
        i += 1
    return r


def rev32(v: int) -> int:
    return int(f"{v & MASK32:032b}"[::-1], 2)


def gf128_mul_ref(x: int, y: int) -> int:
    """SP 800-38D Algorithm 1, bit by bit (the plain model; not constant time)."""
    z = 0
    v = y
    for i in range(128):
        if (x >> (127 - i)) & 1:
            z ^= v
        v = (v >> 1) ^ R_CONST if v & 1 else v >> 1
    return z


def reduce256(z: int) -> int:
    """Reduce a 256-bit reflected value (see module comment) to 128 bits."""
    hi = z >> 128
    lo = z & MASK128
    d = 0
    for e in REDUCTION_EXPONENTS:
        if e:
            d ^= (lo << (128 - e)) & MASK128
    r = hi
    for e in REDUCTION_EXPONENTS:
        r ^= (lo >> e) ^ (d >> e)
    return r


def gf128_mul_clmul(x: int, y: int) -> int:
    """Product in GCM's field via a full carry-less product, shift and reduction."""
    return reduce256(clmul(x, y) << 1)


# --------------------------------------------------------------------------- holes

def bmul32_holes64(a: int, b: int) -> int:
    """32x32 carry-less product (63 bits) from 16 32x32->64 integer products."""
    a_c = [a & m for m in HOLE_MASKS32]
    b_c = [b & m for m in HOLE_MASKS32]
    r = 0
    for c in range(HOLE_STRIDE):
        acc = 0
        for j in range(HOLE_STRIDE):
            acc ^= (a_c[j] * b_c[(c - j) % HOLE_STRIDE]) & MASK64
        r |= acc & HOLE_MASKS64[c]
    return r


def bmul32_holes_lo(a: int, b: int) -> int:
    """Low 32 bits of a carry-less product, from 16 32x32->32 integer products (MUL)."""
    a_c = [a & m for m in HOLE_MASKS32]
    b_c = [b & m for m in HOLE_MASKS32]
    r = 0
    for c in range(HOLE_STRIDE):
        acc = 0
        for j in range(HOLE_STRIDE):
            acc ^= (a_c[j] * b_c[(c - j) % HOLE_STRIDE]) & MASK32
        r |= acc & HOLE_MASKS32[c]
    return r


def bmul32_holes_hi_rev(a: int, b: int) -> int:
    """High 32 bits (bits 32..62) of clmul(a, b) with MUL only, by bit reversal."""
    return rev32(bmul32_holes_lo(rev32(a), rev32(b))) >> 1


# --------------------------------------------------------------------------- Karatsuba

@dataclass(frozen=True)
class KaratsubaPlan:
    """A Karatsuba split of an n-word carry-less product, as data.

    ``operands[k]`` is the set of word indices XORed to form both operands of word
    product k (word 0 = least significant 32 bits).  ``terms`` lists (k, w): the 64-bit
    product k is XORed into the 2n-word result at word offset w.
    """
    n_words: int
    operands: Tuple[frozenset, ...]
    terms: Tuple[Tuple[int, int], ...]

    def result_word_sources(self) -> List[List[Tuple[int, int]]]:
        """For each of the 2n result words, the list of (product, half) XORed into it
        (half 0 = low 32 bits of the product, 1 = high 32 bits)."""
        out: List[List[Tuple[int, int]]] = [[] for _ in range(2 * self.n_words)]
        for k, w in self.terms:
            out[w].append((k, 0))
            out[w + 1].append((k, 1))
        return out


def karatsuba_plan(n_words: int = 4) -> KaratsubaPlan:
    if n_words < 1 or n_words & (n_words - 1):
        raise ValueError("n_words must be a power of two")

    def split(words: Sequence[frozenset]):
        n = len(words)
        if n == 1:
            return [words[0]], [(0, 0)]
        h = n // 2
        lo, hi = list(words[:h]), list(words[h:])
        mid = [lo[i] ^ hi[i] for i in range(h)]
        ops, terms = [], []
        for part, shifts in ((lo, (0, h)), (hi, (2 * h, h)), (mid, (h,))):
            p_ops, p_terms = split(part)
            base = len(ops)
            ops += p_ops
            for k, w in p_terms:
                for s in shifts:
                    terms.append((base + k, w + s))
        return ops, terms

    ops, terms = split([frozenset([i]) for i in range(n_words)])
    # identical (product, offset) pairs would cancel; the plan never has them, check it
    if len(set(terms)) != len(terms):
        raise AssertionError("Karatsuba plan has cancelling terms")
    return KaratsubaPlan(n_words, tuple(ops), tuple(terms))


def int_to_words(v: int, n: int = 4) -> List[int]:
    return [(v >> (32 * i)) & MASK32 for i in range(n)]


def words_to_int(ws: Iterable[int]) -> int:
    r = 0
    for i, w in enumerate(ws):
        r |= (w & MASK32) << (32 * i)
    return r


def xor_words(words: Sequence[int], idx: Iterable[int]) -> int:
    r = 0
    for i in idx:
        r ^= words[i]
    return r


def hk_words(h: bytes, variant: str = "ctmul64") -> List[int]:
    """Per-key words precomputed by ``{prefix}_ghash_init`` (same layout as the C)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown GHASH variant {variant!r}; allowed: {', '.join(VARIANTS)}")
    hw = int_to_words(block_to_int(h))
    plan = karatsuba_plan(4)
    direct = [xor_words(hw, op) for op in plan.operands]
    if variant == "ctmul64":
        return direct
    return direct + [rev32(v) for v in direct]


def clmul128_karatsuba(x: int, hk: Sequence[int], variant: str = "ctmul64") -> int:
    """255-bit carry-less product of x and H, structured like the generated C."""
    plan = karatsuba_plan(4)
    n = len(plan.operands)
    xw = int_to_words(x)
    a = [xor_words(xw, op) for op in plan.operands]
    if variant == "ctmul64":
        prods = [bmul32_holes64(a[k], hk[k]) for k in range(n)]
        lo = [p & MASK32 for p in prods]
        hi = [p >> 32 for p in prods]
    elif variant == "ctmul32":
        xr = [rev32(w) for w in xw]          # rev32 is linear: rev(a ^ b) = rev(a) ^ rev(b)
        ar = [xor_words(xr, op) for op in plan.operands]
        lo = [bmul32_holes_lo(a[k], hk[k]) for k in range(n)]
        hi = [rev32(bmul32_holes_lo(ar[k], hk[n + k])) >> 1 for k in range(n)]
    else:
        raise ValueError(f"unknown GHASH variant {variant!r}; allowed: {', '.join(VARIANTS)}")
    z = [0] * 8
    for w, srcs in enumerate(plan.result_word_sources()):
        for k, half in srcs:
            z[w] ^= hi[k] if half else lo[k]
    return words_to_int(z)


def gf128_mul_ct(x: int, h: bytes, variant: str = "ctmul64") -> int:
    return reduce256(clmul128_karatsuba(x, hk_words(h, variant), variant) << 1)


# --------------------------------------------------------------------------- GHASH

def ghash_blocks(h: bytes, y: bytes, data: bytes, variant: str | None = None) -> bytes:
    """y <- (y ^ x_i) * H for every 16-byte block x_i of data (len(data) % 16 == 0).

    variant None uses the bit-by-bit reference; 'ctmul64'/'ctmul32' the constant-time
    structures the C implements."""
    if len(data) % 16:
        raise ValueError("data must be whole blocks")
    hv = block_to_int(h)
    yv = block_to_int(y)
    for i in range(0, len(data), 16):
        xv = yv ^ block_to_int(data[i:i + 16])
        yv = gf128_mul_ref(xv, hv) if variant is None else gf128_mul_ct(xv, h, variant)
    return int_to_block(yv)


def _pad16(b: bytes) -> bytes:
    return b + bytes(-len(b) % 16)


def ghash(h: bytes, aad: bytes, ct: bytes, variant: str | None = None) -> bytes:
    """GHASH_H(A || 0* || C || 0* || [len(A)]_64 || [len(C)]_64) as GCM uses it."""
    lens = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
    return ghash_blocks(h, bytes(16), _pad16(aad) + _pad16(ct) + lens, variant)
