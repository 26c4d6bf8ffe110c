"""The IR programs (key schedule + encrypt2), run by the IR interpreter, against `cryptography`."""
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from gen.ir import run
from gen.kernels.aes_fixsliced import alignments, encrypt2_ir
from gen.kernels.aes_keyschedule import keyschedule_ir

COMBOS = [(kb, sl) for kb in (128, 192, 256) for sl in ("ffs", "sfs")]


def words(bs):
    return [int.from_bytes(bs[i:i + 4], "little") for i in range(0, len(bs), 4)]


def ecb(key, data):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(data) + e.finalize()


def model_encrypt2(kb, sl, key, data):
    rk = run(keyschedule_ir(kb, sl), {"key": words(key)})["rk"]
    out = run(encrypt2_ir(kb, sl), {"in": words(data), "rk": rk})["out"]
    return b"".join(w.to_bytes(4, "little") for w in out)


@pytest.mark.parametrize("kb,sl", COMBOS)
def test_random_against_cryptography(kb, sl):
    rng = random.Random(kb * 7 + len(sl) + (sl == "sfs"))
    ks, enc = keyschedule_ir(kb, sl), encrypt2_ir(kb, sl)
    for _ in range(20):
        key, data = rng.randbytes(kb // 8), rng.randbytes(32)
        rk = run(ks, {"key": words(key)})["rk"]
        out = run(enc, {"in": words(data), "rk": rk})["out"]
        assert b"".join(w.to_bytes(4, "little") for w in out) == ecb(key, data)


FIPS197_C = {  # FIPS-197 Appendix C.1-C.3: key 000102..., plaintext 00112233...eeff
    128: "69c4e0d86a7b0430d8cdb78070b4c55a",
    192: "dda97ca4864cdfe06eaf70a0ec0d7191",
    256: "8ea2b7ca516745bfeafc49904b496089",
}


@pytest.mark.parametrize("kb,sl", COMBOS)
def test_fips197_appendix_c(kb, sl):
    key = bytes(range(kb // 8))
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    other = bytes(16)
    ct = model_encrypt2(kb, sl, key, pt + other)
    assert ct[:16].hex() == FIPS197_C[kb]
    assert ct[16:] == ecb(key, other)
    assert model_encrypt2(kb, sl, key, other + pt)[16:].hex() == FIPS197_C[kb]


@pytest.mark.parametrize("kb,sl", COMBOS)
def test_program_shape(kb, sl):
    nr = {128: 10, 192: 12, 256: 14}[kb]
    p = encrypt2_ir(kb, sl)
    st = p.stats()
    assert st["ld"] == 8 + 8 * (nr + 1) and st["st"] == 8
    # every input load happens before the first store: in == out is safe
    kinds = [(op.kind, op.mem) for op in p.ops]
    assert max(i for i, k in enumerate(kinds) if k == ("ld", "in")) < kinds.index(("st", "out"))
    assert p.mems == {"in": (8, "r"), "out": (8, "w"), "rk": (8 * (nr + 1), "r")}
    assert keyschedule_ir(kb, sl).mems == {"key": (kb // 32, "r"), "rk": (8 * (nr + 1), "w")}
    # deterministic generation
    assert str(encrypt2_ir(kb, sl)) == str(p)


def test_alignments():
    assert alignments(10, "ffs")[-1] == 2 and alignments(12, "ffs")[-1] == 0
    assert alignments(14, "ffs")[-1] == 2
    assert alignments(10, "sfs") == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2]


def test_bad_args():
    with pytest.raises(ValueError):
        encrypt2_ir(160, "ffs")
    with pytest.raises(ValueError):
        encrypt2_ir(128, "xfs")
