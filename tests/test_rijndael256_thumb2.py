"""Rijndael-256 with both ShiftRows strategies: the IR against the reference model, the
segmented Thumb-2 encryption (gen/kernels/rijndael256/thumb2.py) run on the Thumb-2 model, and
the [rijndael256] shiftrows option of the configuration.  Cycle figures are manifest and docs/block-ciphers.md
figures, not asserted here."""
import random

import pytest

from gen.ciphers import get
from gen.config import from_dict
from gen.errors import ConfigError
from gen.ir import run
from gen.kernels import thumb2_function as TF
from gen.kernels.block_thumb2 import ENC_PARAMS
from gen.kernels.rijndael256 import encrypt as E
from gen.kernels.rijndael256 import portable as P
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.kernels.rijndael256 import thumb2 as R
from gen.kernels.speedy.layout import le_bytes, le_words

SPEC = get("rijndael256")
RK, OUT, IN = 0x20000000, 0x20001000, 0x20002000


def cases(n, seed):
    rng = random.Random(seed)
    out = list(SPEC.known_answers())
    for _ in range(n):
        key, pt = rng.randbytes(32), rng.randbytes(32)
        out.append((key, pt, SPEC.encrypt(key, pt)))
    return out


@pytest.mark.parametrize("shiftrows", E.STRATEGIES)
def test_ir_matches_reference(shiftrows):
    ks, enc = P.keyschedule_program(SPEC, shiftrows), P.encrypt_program(SPEC, shiftrows)
    for key, pt, ct in cases(20, shiftrows):
        rk = run(ks, {"key": le_words(key)})["rk"]
        assert le_bytes(run(enc, {"in": le_words(pt), "rk": rk})["out"]) == ct


def test_alignments():
    ex, fs = E.alignments(14, "explicit"), E.alignments(14, "fixsliced")
    # explicit: the first and last ShiftRows folded into packing, 12 packed ones
    assert [E.explicit_exponent(ex, j) for j in range(1, 15)] == [0] + [1] * 12 + [0]
    # fixsliced: no explicit ShiftRows, all eight MixColumns variants used
    assert all(E.explicit_exponent(fs, j) == 0 for j in range(1, 15))
    assert set(fs[1:14]) == set(range(8))
    with pytest.raises(ValueError, match="explicit, fixsliced"):
        E.alignments(14, "semi")


def test_fixsliced_costs_more_ops_than_explicit():
    ex, fs = P.round_stats(SPEC, "explicit"), P.round_stats(SPEC, "fixsliced")
    assert ex["sbox"] == fs["sbox"] and ex["addroundkey"] == fs["addroundkey"]
    assert fs["mixcolumns"] - ex["mixcolumns"] > ex["shiftrows"] - fs["shiftrows"] > 0


@pytest.mark.parametrize("shiftrows", E.STRATEGIES)
def test_thumb2_encrypt_on_model(shiftrows):
    fn = R.compile_encrypt(SPEC, f"t_r256_{shiftrows}", ENC_PARAMS, "cortex-m4", 0, shiftrows)
    ks = P.keyschedule_program(SPEC, shiftrows)
    assert fn.n_ops == len(P.encrypt_program(SPEC, shiftrows, aes_thumb2.CIRCUIT).ops)
    for key, pt, ct in cases(3, shiftrows)[-5:]:
        mem = {RK + 4 * i: w for i, w in enumerate(run(ks, {"key": le_words(key)})["rk"])}
        mem.update({IN + 4 * i: w for i, w in enumerate(le_words(pt))})
        TF.execute(fn, [RK, OUT, IN], mem)
        assert le_bytes([mem[OUT + 4 * i] for i in range(8)]) == ct


def test_sbox_is_the_aes_kernels_circuit_choice():
    """The Thumb-2 kernel's S-box is AES's stored circuit with its stored order (the portable C
    keeps the reference one): 14 S-boxes, each as many gates fewer as the choice has."""
    from gen.circuits import aes_sbox
    assert R.sbox_kind() == aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT) and R.sbox_kind() in R.ORDERS
    prog, segment, rank = R.build(SPEC, "explicit")
    fewer = len(aes_sbox.circuit_gates(aes_sbox.DEFAULT)) - len(aes_sbox.circuit_gates(aes_thumb2.CIRCUIT))
    assert len(P.encrypt_program(SPEC, "explicit").ops) - len(prog.ops) == SPEC.rounds * fewer
    with aes_thumb2.using_circuit(aes_sbox.DEFAULT):
        assert R.sbox_kind() == "ark+sbox" and len(R.build(SPEC, "explicit")[0].ops) == len(
            P.encrypt_program(SPEC, "explicit").ops)


def test_segments_follow_stored_orders():
    prog, segment, rank = R.build(SPEC, "explicit")
    assert segment == sorted(segment) and min(segment) == 1
    ranked = {s for s, r in zip(segment, rank) if r is not None}
    assert len(ranked) >= 14          # at least every ark+sbox segment has its order


def test_config_option():
    base = {"name": "x", "cipher": "rijndael256", "mode": "ecb", "target": "cortex-m4"}
    assert from_dict(base).shiftrows == "explicit"
    c = from_dict(dict(base, rijndael256={"shiftrows": "fixsliced"}))
    assert c.options()["shiftrows"] == "fixsliced" and "[rijndael256]" in c.toml()
    with pytest.raises(ConfigError, match="explicit, fixsliced"):
        from_dict(dict(base, rijndael256={"shiftrows": "rotated"}))
    with pytest.raises(ConfigError, match="shiftrows is not an option"):
        from_dict(dict(base, cipher="speedy5", rijndael256={"shiftrows": "fixsliced"}))
    aes = {"name": "a", "cipher": "aes128", "mode": "gcm", "target": "portable"}
    assert "shiftrows" not in from_dict(aes).canonical()     # older config hashes unchanged


def test_explicit_alignments_are_the_cheapest_arrangement():
    # no semi-fixsliced mix of ShiftRows and twisted MixColumns beats the explicit one
    from gen.kernels.rijndael256.breakdown import best_alignments
    ops, best = best_alignments(SPEC.rounds)
    assert best == E.alignments(SPEC.rounds, "explicit")
    assert ops == P.round_stats(SPEC, "explicit")["shiftrows"] + P.round_stats(SPEC, "explicit")["mixcolumns"]


def test_no_column_order_makes_packed_shiftrows_cheaper():
    # the packing may put the 8 columns of a row in any bit order inside its byte; every order
    # needs at least 7 (mask, rotation) groups per plane, the natural one exactly 7
    import itertools
    from gen.kernels import bitperm
    from gen.kernels.rijndael256 import linear as L

    def n_groups(sigma):
        perm = {(0, 8 * r + sigma[c]): (0, 8 * r + sigma[(c + L.OFFSETS[r]) % 8]) for r in range(4) for c in range(8)}
        return len(bitperm.groups(perm)[0])
    assert n_groups(tuple(range(8))) == 7
    assert min(n_groups(s) for s in itertools.permutations(range(8))) == 7


@pytest.mark.parametrize("shiftrows", E.STRATEGIES)
def test_thumb2_keyschedule_on_model(shiftrows):
    from gen.kernels.block_thumb2 import KS_PARAMS
    key_at = 0x20003000
    fn = R.compile_keyschedule(SPEC, f"t_r256_ks_{shiftrows}", KS_PARAMS, "cortex-m3", 0, shiftrows)
    ks = P.keyschedule_program(SPEC, shiftrows)
    assert fn.n_ops == len(ks.ops)
    for key in (bytes(32), bytes(range(32)), random.Random(shiftrows).randbytes(32)):
        mem = {key_at + 4 * i: w for i, w in enumerate(le_words(key))}
        TF.execute(fn, [RK, key_at], mem)
        assert [mem[RK + 4 * i] for i in range(120)] == run(ks, {"key": le_words(key)})["rk"]
