"""SPEEDY-r-192 (Leander, Moos, Moradi, Rasoolzadeh, "The SPEEDY Family of Block Ciphers",
TCHES 2021/4) for r = 5, 6, 7 rounds: 192-bit block and key.

Reference model, bit by bit from the specification (the facts as the team's vector notes,
shared/vectors/README.md, summarise them):
  * state bit p = 6 i + j is row i (0..31), column j (0..5); bit 0 is the MSB of byte 0;
  * SB applies the 6-bit S-box to every row, column 0 being the S-box input's MSB;
  * SC: y[i, j] = x[i + j mod 32, j];  MC: y[i, j] = XOR of x[i + a mod 32, j], a in MC_OFFSETS;
  * rounds 0 .. r-2: add k_r, SB, SC, SB, SC, MC, add c_r; last round: add k_{r-1}, SB, SC, SB,
    add k_r;
  * c_r = the r-th 192-bit chunk of the hexadecimal digits of pi after the point;
  * k_0 = K, k_{r+1}[p] = k_r[(7 p + 1) mod 192] (the direction that reproduces the published
    vectors and the designers' reference code).
S-box gate list: gen/circuits/speedy_sbox.py.  pyca/cryptography has no SPEEDY: no oracle there.
"""
from __future__ import annotations

from functools import lru_cache, partial

from gen.ciphers.base import CipherSpec, bits_of, bytes_of, load_vectors
from gen.circuits import speedy_sbox

ROWS, COLS = 32, 6
STATE_BITS = ROWS * COLS
SBOX = (0x08, 0x00, 0x09, 0x03, 0x38, 0x10, 0x29, 0x13, 0x0C, 0x0D, 0x04, 0x07, 0x30, 0x01, 0x20, 0x23,
        0x1A, 0x12, 0x18, 0x32, 0x3E, 0x16, 0x2C, 0x36, 0x1C, 0x1D, 0x14, 0x37, 0x34, 0x05, 0x24, 0x27,
        0x02, 0x06, 0x0B, 0x0F, 0x33, 0x17, 0x21, 0x15, 0x0A, 0x1B, 0x0E, 0x1F, 0x31, 0x11, 0x25, 0x35,
        0x22, 0x26, 0x2A, 0x2E, 0x3A, 0x1E, 0x28, 0x3C, 0x2B, 0x3B, 0x2F, 0x3F, 0x39, 0x19, 0x2D, 0x3D)
MC_OFFSETS = (0, 1, 5, 9, 15, 21, 26)
SC_OFFSETS = tuple(range(COLS))          # column j moves up by j rows
KEY_PERMUTATION = tuple((7 * p + 1) % STATE_BITS for p in range(STATE_BITS))  # new[p] = old[perm[p]]
ROUND_COUNTS = (5, 6, 7)


@lru_cache(maxsize=None)
def pi_hex_digits(n: int) -> str:
    """The first n hexadecimal digits of pi after the point (Machin's formula, integer
    arithmetic with 64 guard bits)."""
    bits = 4 * n + 64
    one = 1 << bits

    def arctan_inv(x: int) -> int:          # arctan(1/x) * 2^bits
        total, term, k, sign = 0, one // x, 1, 1
        while term:
            total += sign * (term // k)
            term //= x * x
            k += 2
            sign = -sign
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    frac = (pi >> 64) & ((1 << (4 * n)) - 1)
    return f"{frac:0{n}x}"


def round_constant(r: int) -> bytes:
    """c_r: the r-th 192-bit (48 hex digit) chunk of pi's fraction."""
    return bytes.fromhex(pi_hex_digits(48 * (r + 1))[48 * r:])


def _xor(a: list[int], b: list[int]) -> list[int]:
    return [x ^ y for x, y in zip(a, b)]


def sub_bytes(x: list[int]) -> list[int]:
    y = list(x)
    for i in range(ROWS):
        v = sum(x[COLS * i + j] << (COLS - 1 - j) for j in range(COLS))
        s = SBOX[v]
        for j in range(COLS):
            y[COLS * i + j] = (s >> (COLS - 1 - j)) & 1
    return y


def shift_columns(x: list[int]) -> list[int]:
    return [x[COLS * ((i + j) % ROWS) + j] for i in range(ROWS) for j in range(COLS)]


def mix_columns(x: list[int]) -> list[int]:
    out = []
    for i in range(ROWS):
        for j in range(COLS):
            v = 0
            for a in MC_OFFSETS:
                v ^= x[COLS * ((i + a) % ROWS) + j]
            out.append(v)
    return out


def key_schedule(key: bytes, rounds: int) -> list[bytes]:
    """k_0 .. k_r (r + 1 keys of 24 bytes)."""
    assert len(key) == 24, len(key)
    k = bits_of(key)
    out = [key]
    for _ in range(rounds):
        k = [k[KEY_PERMUTATION[p]] for p in range(STATE_BITS)]
        out.append(bytes_of(k))
    return out


def encrypt(key: bytes, block: bytes, rounds: int) -> bytes:
    assert len(key) == 24 and len(block) == 24, (len(key), len(block))
    ks = [bits_of(k) for k in key_schedule(key, rounds)]
    x = bits_of(block)
    for r in range(rounds - 1):
        x = _xor(x, ks[r])
        x = mix_columns(shift_columns(sub_bytes(shift_columns(sub_bytes(x)))))
        x = _xor(x, bits_of(round_constant(r)))
    x = _xor(x, ks[rounds - 1])
    x = sub_bytes(shift_columns(sub_bytes(x)))
    x = _xor(x, ks[rounds])
    return bytes_of(x)


def known_answers(rounds: int) -> list[tuple[bytes, bytes, bytes]]:
    return [(bytes.fromhex(v["key"]), bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"]))
            for v in load_vectors("speedy.json") if v["rounds"] == rounds]


def make(rounds: int) -> CipherSpec:
    def enc(key: bytes, block: bytes) -> bytes:
        spec.check_key(key)
        spec.check_block(block)
        return encrypt(key, block, rounds)

    def ks(key: bytes) -> list[bytes]:
        spec.check_key(key)
        return key_schedule(key, rounds)

    spec = CipherSpec(
        name=f"speedy{rounds}", family="speedy", title=f"SPEEDY-{rounds}-192", block_bytes=24,
        key_bytes=24, rounds=rounds, sbox=SBOX, sbox_bits=6, sbox_circuit=speedy_sbox.GATES,
        sbox_inputs=speedy_sbox.INPUTS, sbox_outputs=speedy_sbox.OUTPUTS,
        sbox_circuit_source=speedy_sbox.SOURCE,
        linear_layer={"shiftcolumns": SC_OFFSETS, "mixcolumns": MC_OFFSETS,
                      "key_permutation": "new[p] = old[(7p + 1) mod 192]"},
        key_schedule=ks, encrypt=enc,
        kat_source="gen/ciphers/data/speedy.json (copied from shared/vectors; sources per entry)",
        known_answers=partial(known_answers, rounds), pyca=None)
    return spec


SPEEDY5, SPEEDY6, SPEEDY7 = (make(r) for r in ROUND_COUNTS)
