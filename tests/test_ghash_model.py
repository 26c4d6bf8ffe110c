"""The GHASH reference model: bit-by-bit field multiply, the constant-time structures
(holes, Karatsuba, reduction, bit reversal) and GHASH as AES-GCM uses it (checked via pyca)."""
import os

import pytest
from hypothesis import given, settings, strategies as st
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from gen.kernels.ghash import model as m

u32 = st.integers(0, m.MASK32)
u128 = st.integers(0, m.MASK128)
blk = st.binary(min_size=16, max_size=16)


def _aes_block(key: bytes, block: bytes) -> bytes:
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return enc.update(block) + enc.finalize()


def test_field_basics():
    one = 1 << 127                                   # the polynomial 1 in GCM's bit order
    x = 1 << 126                                     # the polynomial x
    for v in (one, x, 0x0123456789ABCDEF0011223344556677, m.MASK128):
        assert m.gf128_mul_ref(v, one) == v
        assert m.gf128_mul_ref(one, v) == v
    # x^127 * x = x^128 = 1 + x + x^2 + x^7  ->  SP 800-38D's R
    assert m.gf128_mul_ref(1, x) == m.R_CONST
    assert m.R_CONST == int("11100001", 2) << 120


def test_sp800_38d_test_case_2():
    # McGrew-Viega test case 2: K = 0^128, P = 0^128, IV = 0^96; GHASH(H, {}, C) = f38cbb1a...
    key = bytes(16)
    h = _aes_block(key, bytes(16))
    assert h.hex() == "66e94bd4ef8a2c3b884cfa59ca342b2e"
    c = bytes.fromhex("0388dace60b6a392f328c2b971b2fe78")
    for v in (None,) + m.VARIANTS:
        assert m.ghash(h, b"", c, v).hex() == "f38cbb1ad69223dcc3457ae5b6b0f885"


def test_hole_bound_worst_case():
    # all bits set: 8 partial products per position, the largest count the holes must hold
    assert m.bmul32_holes64(m.MASK32, m.MASK32) == m.clmul(m.MASK32, m.MASK32)
    assert m.bmul32_holes_lo(m.MASK32, m.MASK32) == m.clmul(m.MASK32, m.MASK32) & m.MASK32
    # and plain addition of the four products would NOT be safe (why the code XORs)
    a = [m.MASK32 & mk for mk in m.HOLE_MASKS32]
    summed = sum(a[j] * a[(0 - j) % 4] for j in range(4)) & m.HOLE_MASKS64[0]
    assert summed != m.clmul(m.MASK32, m.MASK32) & m.HOLE_MASKS64[0]


@settings(max_examples=300, deadline=None)
@given(u32, u32)
def test_holes_products(a, b):
    ref = m.clmul(a, b)
    assert m.bmul32_holes64(a, b) == ref
    assert m.bmul32_holes_lo(a, b) == ref & m.MASK32
    assert m.bmul32_holes_hi_rev(a, b) == ref >> 32


def test_karatsuba_plan_shape():
    plan = m.karatsuba_plan(4)
    assert len(plan.operands) == 9
    assert m.karatsuba_plan(2).operands == (frozenset({0}), frozenset({1}), frozenset({0, 1}))
    assert len(m.karatsuba_plan(8).operands) == 27


@settings(max_examples=200, deadline=None)
@given(u128, blk)
def test_karatsuba_product(x, h):
    hv = m.block_to_int(h)
    ref = m.clmul(x, hv)
    for v in m.VARIANTS:
        assert m.clmul128_karatsuba(x, m.hk_words(h, v), v) == ref


@settings(max_examples=200, deadline=None)
@given(u128, u128)
def test_multiply_variants_match_reference(x, y):
    ref = m.gf128_mul_ref(x, y)
    assert m.gf128_mul_clmul(x, y) == ref
    assert m.gf128_mul_ref(y, x) == ref
    hb = m.int_to_block(y)
    for v in m.VARIANTS:
        assert m.gf128_mul_ct(x, hb, v) == ref


def test_hk_layout():
    h = bytes(range(16))
    w = [int.from_bytes(h[12 - 4 * i:16 - 4 * i], "big") for i in range(4)]
    hk = m.hk_words(h, "ctmul64")
    assert hk == [w[0], w[1], w[0] ^ w[1], w[2], w[3], w[2] ^ w[3], w[0] ^ w[2], w[1] ^ w[3],
                  w[0] ^ w[1] ^ w[2] ^ w[3]]
    assert m.hk_words(h, "ctmul32") == hk + [m.rev32(v) for v in hk]
    with pytest.raises(ValueError):
        m.hk_words(h, "table4")


@settings(max_examples=40, deadline=None)
@given(key=st.binary(min_size=16, max_size=16), iv=st.binary(min_size=12, max_size=12),
       aad=st.binary(max_size=70), pt=st.binary(max_size=50),
       variant=st.sampled_from((None,) + m.VARIANTS))
def test_gcm_tag_via_cryptography(key, iv, aad, pt, variant):
    out = AESGCM(key).encrypt(iv, pt, aad)
    ct, tag = out[:-16], out[-16:]
    h = _aes_block(key, bytes(16))
    ek_j0 = _aes_block(key, iv + b"\x00\x00\x00\x01")
    s = m.ghash(h, aad, ct, variant)
    assert bytes(a ^ b for a, b in zip(s, ek_j0)) == tag


def test_ghash_blocks_chaining():
    h, y = os.urandom(16), os.urandom(16)
    data = os.urandom(16 * 5)
    whole = m.ghash_blocks(h, y, data)
    step = y
    for i in range(0, len(data), 16):
        step = m.ghash_blocks(h, step, data[i:i + 16])
    assert whole == step
    assert m.ghash_blocks(h, y, b"") == y
    with pytest.raises(ValueError):
        m.ghash_blocks(h, y, b"x" * 15)
