"""The GCM fuzz corpus (tests/fuzz/corpus/gcm_portable/) on drops that only run emulated: each
input is decoded as tests/fuzz/gcm_case.h decodes it (`decode` is a port of sg_case_decode: the
same choices from the same bytes), made into a case of the batch driver (emu/machines/driver.c:
one-shot or streaming encrypt/decrypt, in place, misaligned, an AAD split and a chunk size: the
first two pieces of the input's split; ecb_encrypt; ghash from the input's y0), and run in Unicorn
on the drop's core and, as the oracle, on the host through the portable drop of the same key size
(fuzzed against OpenSSL and SP 800-38D's algorithm). Every input is run: every operation, every
tag and IV length."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from emu.checks import vectors

M64 = (1 << 64) - 1
TAGLENS = (16, 16, 16, 16, 12, 13, 14, 15, 8, 4, 0, 17, 3, 255)
OPS = {0: vectors.OP_ENCRYPT, 1: vectors.OP_DECRYPT, 2: vectors.OP_STREAM_ENCRYPT, 3: vectors.OP_STREAM_DECRYPT,
       4: vectors.OP_ECB, 5: vectors.OP_GHASH}


class _Input:
    """tests/fuzz/input.h: bytes, big-endian, zeros once the input is used up."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int) -> int:
        v = 0
        for _ in range(n):
            v = (v << 8) | (self.data[self.pos] if self.pos < len(self.data) else 0)
            self.pos += 1
        return v

    def take_bytes(self, n: int) -> bytes:
        return bytes(self.take(1) for _ in range(n))

    @property
    def left(self) -> int:
        return max(0, len(self.data) - self.pos)

    def length(self, small: int, big: int) -> int:
        v = self.take(2)
        return v % (small + 1) if v < 0xC000 else v % (big + 1)

    def piece(self) -> int:
        b = self.take(1)
        return b % 40 if b < 200 else (b - 200) * 64


def fill(seed: int, n: int) -> bytes:
    x, out = (seed | 1) & M64, bytearray(n)
    for i in range(n):
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        out[i] = (x >> 24) & 0xFF
    return bytes(out)


@dataclass
class Decoded:
    op: int
    inplace: int
    keylen: int
    tamper: int
    in_off: int
    out_off: int
    ivlen: int
    taglen: int
    pos: int
    key: bytes
    iv: bytes
    aad: bytes
    msg: bytes
    y0: bytes
    pieces: list = field(default_factory=list)


def decode(data: bytes) -> Decoded:
    """sg_case_decode (tests/fuzz/gcm_case.h), before the oracle."""
    i = _Input(data)
    b0, b1, b2 = i.take(1), i.take(1), i.take(1)
    op, inplace, keylen = b0 % 6, (b0 >> 3) & 1, 16 + 8 * (((b0 >> 4) & 3) % 3)
    tamper = 0 if (b1 & 7) < 5 else (b1 & 7) - 4
    ivlen = 12 if b2 < 160 else 0 if b2 == 255 else 129 + i.take(2) % 896 if b2 >= 248 else 1 + i.take(1) % 128
    taglen = TAGLENS[i.take(1) % 14]
    aadlen, length = i.length(40, 2100), i.length(100, 4200)
    pos = i.take(2)
    seed = (i.take(4) << 32) | i.take(4)
    key, iv = i.take_bytes(keylen), i.take_bytes(ivlen)
    pieces = []
    while len(pieces) < 32 and i.left:
        pieces.append(i.piece())
    if sum(pieces) == 0:
        pieces = pieces[:31] + [aadlen + length + 1]
    return Decoded(op, inplace, keylen, tamper, (b1 >> 3) & 3, (b1 >> 5) & 3, ivlen, taglen, pos, key, iv,
                   fill(seed, aadlen), fill(seed ^ 0x9E3779B97F4A7C15, length), fill(seed ^ 0x5851F42D4C957F2D, 16),
                   pieces)


def _flip(b: bytes, pos: int) -> bytes:
    out = bytearray(b)
    out[(pos >> 3) % len(out)] ^= 1 << (pos & 7)
    return bytes(out)


def driver_case(d: Decoded, ct: bytes, tag: bytes) -> vectors.Case:
    """The driver's case for a decoded input, given the oracle's ciphertext and full tag."""
    tamper = d.tamper
    if (tamper == 2 and not d.msg) or (tamper == 3 and not d.aad):
        tamper = 1
    chunk = min(max(d.pieces[1 % len(d.pieces)], 1), 256)
    flags = d.inplace | (d.in_off << 1) | (d.out_off << 3) | ((d.pieces[0] % 256) << 8) | ((chunk - 1) << 16)
    op = OPS[d.op]
    if op == vectors.OP_ECB:
        return vectors.Case(op, d.key, b"", b"", d.msg, 0, flags=flags)
    if op == vectors.OP_GHASH:
        return vectors.Case(op, d.key, d.y0, b"", d.msg, 16, flags=flags)
    if op in (vectors.OP_ENCRYPT, vectors.OP_STREAM_ENCRYPT):
        return vectors.Case(op, d.key, d.iv, d.aad, d.msg, d.taglen, flags=flags)
    aad, data, given = d.aad, ct, tag[:d.taglen] if d.taglen else tag[:1]
    if tamper == 1:
        given = _flip(given, d.pos)
    elif tamper == 2:
        data = _flip(ct, d.pos)
    elif tamper == 3:
        aad = _flip(d.aad, d.pos)
    return vectors.Case(op, d.key, d.iv, aad, data, d.taglen, tag=given.ljust(d.taglen, b"\0"), flags=flags)


def corpus_inputs(corpus: Path, keylen: int) -> list[Decoded]:
    """The corpus's GCM inputs for this key size."""
    return [d for d in (decode(path.read_bytes()) for path in sorted(corpus.iterdir())) if d.keylen == keylen]


def cases(inputs: list[Decoded], oracle) -> list[vectors.Case]:
    """Driver cases, the ciphertexts (for decrypting ones) from the oracle runner."""
    enc = [vectors.Case(vectors.OP_ENCRYPT, d.key, d.iv or b"\0", d.aad, d.msg, 16) for d in inputs]
    return [driver_case(d, ct, tag) for d, (rc, ct, tag) in zip(inputs, oracle.run(enc))]


def mismatches(cases_: list[vectors.Case], want: list, got: list) -> list[str]:
    """Where the emulated drop differs from the oracle: the return code always; the output and
    tag when the call succeeded, and the output on a failed tag check (zeros, or a stream's
    unauthenticated plaintext)."""
    bad = []
    for c, (rc0, out0, tag0), (rc1, out1, tag1) in zip(cases_, want, got):
        same = rc0 == rc1 and (rc0 not in (0, -1) or out0 == out1) and (rc0 != 0 or tag0 == tag1)
        if not same:
            bad.append(f"op {c.op} ivlen {len(c.iv)} aad {len(c.aad)} len {len(c.data)} taglen {c.taglen} "
                       f"flags {c.flags:#x}: rc {rc1} (oracle {rc0})")
    return bad
