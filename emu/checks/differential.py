"""Random GCM cases with expected results from pyca/cryptography (the oracle).

Covers what the NIST files do not: long messages, streaming splits at odd offsets, in-place
and unaligned buffers, every SPEC tag length, wrong tags at either end of the tag.
"""
from __future__ import annotations

import random

from gen.errors import ConfigError
from emu.checks.vectors import Case, OP_ENCRYPT, OP_DECRYPT, OP_STREAM_ENCRYPT, OP_STREAM_DECRYPT

TAG_LENGTHS = (4, 8, 12, 13, 14, 15, 16)


def _oracle():
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ConfigError("differential checks need the PyPI package cryptography; run `make`") from None
    return AESGCM


def random_cases(keybits: int, count: int, seed: int, max_len: int = 600, max_aad: int = 80) -> list[Case]:
    AESGCM = _oracle()
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        key = rng.randbytes(keybits // 8)
        ivlen = 12 if rng.random() < 0.5 else rng.randint(8, 128)   # the oracle's IV range
        iv = rng.randbytes(ivlen)
        aad = rng.randbytes(rng.randint(0, max_aad))
        pt = rng.randbytes(rng.randint(0, max_len))
        taglen = rng.choice(TAG_LENGTHS)
        full = AESGCM(key).encrypt(iv, pt, aad)
        ct, tag = full[:-16], full[-16:]
        flags = rng.getrandbits(5) | (rng.getrandbits(8) << 8) | (rng.randint(0, 40) << 16)
        kind = i % 4
        label = f"differential #{i} ivlen={ivlen} aad={len(aad)} len={len(pt)} tag={taglen}"
        if kind in (0, 2):
            op = OP_ENCRYPT if kind == 0 else OP_STREAM_ENCRYPT
            cases.append(Case(op, key, iv, aad, pt, taglen, expect_out=ct, expect_tag=tag,
                              flags=flags, label=label))
        else:
            op = OP_DECRYPT if kind == 1 else OP_STREAM_DECRYPT
            bad = rng.random() < 0.4
            given = bytearray(tag[:taglen])
            if bad:   # a wrong bit in the first or the last byte of the tag
                given[0 if rng.random() < 0.5 else taglen - 1] ^= 1 << rng.randrange(8)
            if op == OP_STREAM_DECRYPT:
                # streaming decrypt releases (unauthenticated) plaintext; finish_verify says -1
                expect_out = pt
            else:
                expect_out = bytes(len(pt)) if bad else pt
            cases.append(Case(op, key, iv, aad, ct, taglen, tag=bytes(given), expect_out=expect_out,
                              expect_rc=-1 if bad else 0, flags=flags,
                              label=label + (" wrong tag" if bad else "")))
    return cases
