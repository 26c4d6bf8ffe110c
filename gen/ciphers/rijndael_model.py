"""Reference model of Rijndael for any block of Nb and key of Nk 32-bit columns.

Written from FIPS-197 (AES: Nb = 4) and Daemen & Rijmen, *The Design of Rijndael* (Nb = 8):
Nr = max(Nb, Nk) + 6 rounds; the state is 4 rows x Nb columns, block byte k in row k mod 4,
column k div 4; ShiftRows rotates row r left by C_r (0, 1, 2, 3 for Nb = 4; 0, 1, 3, 4 for
Nb = 8); MixColumns multiplies each column by 02 03 01 01 (circulant) over GF(2^8); the key
expansion runs the recurrence to Nb (Nr + 1) words.  Plain and slow on purpose: it is the oracle.
"""
from __future__ import annotations

from gen.circuits.aes_sbox import gf_mul, sbox_reference

SBOX = tuple(sbox_reference(x) for x in range(256))
SHIFT_OFFSETS = {4: (0, 1, 2, 3), 6: (0, 1, 2, 3), 8: (0, 1, 3, 4)}
MIX_MATRIX = ((2, 3, 1, 1), (1, 2, 3, 1), (1, 1, 2, 3), (3, 1, 1, 2))


def rounds(nb: int, nk: int) -> int:
    return max(nb, nk) + 6


def rcon(n: int) -> list[int]:
    """x^(i) in GF(2^8) for i = 0 .. n-1: 01 02 04 ... 80 1B 36 6C D8 AB 4D ..."""
    out, r = [], 1
    for _ in range(n):
        out.append(r)
        r = gf_mul(r, 2)
    return out


def expand_key(key: bytes, nb: int) -> list[bytes]:
    """Round keys 0..Nr, each 4 Nb bytes (column-major like the block)."""
    nk = len(key) // 4
    assert len(key) == 4 * nk and nk in (4, 6, 8), len(key)
    nr = rounds(nb, nk)
    w = [list(key[4 * i: 4 * i + 4]) for i in range(nk)]
    rc = rcon(nb * (nr + 1) // nk + 1)
    for i in range(nk, nb * (nr + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rc[i // nk - 1]
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([x ^ y for x, y in zip(w[i - nk], t)])
    return [bytes(sum(w[nb * r: nb * r + nb], [])) for r in range(nr + 1)]


def _state(block: bytes, nb: int) -> list[list[int]]:
    return [[block[r + 4 * c] for c in range(nb)] for r in range(4)]


def _block(st: list[list[int]]) -> bytes:
    nb = len(st[0])
    return bytes(st[k % 4][k // 4] for k in range(4 * nb))


def add_round_key(st, rk: bytes):
    return [[st[r][c] ^ rk[r + 4 * c] for c in range(len(st[0]))] for r in range(4)]


def sub_bytes(st):
    return [[SBOX[x] for x in row] for row in st]


def shift_rows(st):
    nb = len(st[0])
    return [[st[r][(c + SHIFT_OFFSETS[nb][r]) % nb] for c in range(nb)] for r in range(4)]


def mix_columns(st):
    nb = len(st[0])
    out = [[0] * nb for _ in range(4)]
    for c in range(nb):
        for r in range(4):
            v = 0
            for i in range(4):
                v ^= gf_mul(MIX_MATRIX[r][i], st[i][c])
            out[r][c] = v
    return out


def encrypt(key: bytes, block: bytes, nb: int) -> bytes:
    assert len(block) == 4 * nb, len(block)
    rks = expand_key(key, nb)
    nr = len(rks) - 1
    st = add_round_key(_state(block, nb), rks[0])
    for r in range(1, nr + 1):
        st = shift_rows(sub_bytes(st))
        if r < nr:
            st = mix_columns(st)
        st = add_round_key(st, rks[r])
    return _block(st)
