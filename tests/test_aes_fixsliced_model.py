"""The IR programs (key schedule + encrypt2), run by the IR interpreter, against `cryptography`."""
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from gen.ir import run
from gen.kernels.aes.fixsliced import alignments, encrypt2_ir
from gen.kernels.aes.keyschedule import keyschedule_ir

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


@pytest.mark.parametrize("j", [0, 1, 2, 3])
def test_emit_mixcolumns_matches_variant_with_merged_neighbours(j):
    """The emitted M_j equals the reference map; for an in-byte rotation the two masked parts
    of each plane's neighbour are merged into one value (3 ops, used by t and by the output)."""
    from gen.circuits import aes_mixcolumns as mcx
    from gen.ir import Builder
    from gen.kernels.aes.fixsliced import emit_mixcolumns
    b = Builder("mc")
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    q = [b.ld("in", i) for i in range(8)]
    for i, v in enumerate(emit_mixcolumns(b, q, j)):
        b.st("out", i, v)
    p = b.finish()
    rng = random.Random(j)
    for _ in range(20):
        x = [rng.getrandbits(32) for _ in range(8)]
        assert run(p, {"in": x})["out"] == mcx.mixcolumns_variant(x, j)
    alu = len(p.ops) - 16
    # before merging: 27, 83, 59, 83 (8 ops fewer for every variant with an in-byte R1)
    assert alu == {0: 27, 1: 75, 2: 51, 3: 75}[j]


def test_sbox_rematerialisation_is_equivalent():
    """The REMAT identities keep the circuit equal to the S-box for every subset prefix."""
    from gen.circuits import aes_sbox
    names = [y for y, _, _ in aes_sbox.REMAT]
    for k in range(len(names) + 1):
        for x in range(256):
            assert aes_sbox.eval_byte(x, remat=names[:k]) == aes_sbox.sbox_reference(x)
    assert len(aes_sbox.gates(names)) == len(aes_sbox.GATES) + len(names)
