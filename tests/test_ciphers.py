"""gen/ciphers: reference models against their known answers (and pyca for AES), S-box gate
lists against their tables on every input, the registry."""
import random

import pytest

from gen import ciphers
from gen.ciphers import speedy
from gen.ciphers.base import check_circuit, circuit_table, gate_counts
from gen.circuits import aes_sbox, sbox_search, speedy_sbox
from gen.errors import ConfigError

NAMES = ["aes128", "aes192", "aes256", "rijndael256", "speedy5", "speedy6", "speedy7"]


def test_registry():
    assert list(ciphers.CIPHERS) == NAMES
    for name, spec in ciphers.CIPHERS.items():
        assert spec.name == name and ciphers.get(name) is spec
    with pytest.raises(ConfigError, match="allowed: aes128, aes192, aes256, rijndael256"):
        ciphers.get("aes512")


@pytest.mark.parametrize("name", NAMES)
def test_known_answers(name):
    spec = ciphers.get(name)
    kats = spec.known_answers()
    assert len(kats) >= (1 if spec.family == "aes" else 3) and spec.kat_source
    for key, pt, ct in kats:
        assert len(key) == spec.key_bytes and len(pt) == spec.block_bytes
        assert spec.encrypt(key, pt) == ct


@pytest.mark.parametrize("name", ["aes128", "aes192", "aes256"])
def test_aes_against_pyca(name):
    spec = ciphers.get(name)
    rng = random.Random(name)
    for _ in range(50):
        key, pt = rng.randbytes(spec.key_bytes), rng.randbytes(16)
        assert spec.encrypt(key, pt) == spec.pyca(key, pt)


def test_no_pyca_oracle_where_pyca_has_none():
    assert [n for n in NAMES if ciphers.get(n).pyca is None] == NAMES[3:]


@pytest.mark.parametrize("name", NAMES)
def test_sizes_and_key_schedule(name):
    spec = ciphers.get(name)
    assert spec.rounds == {"aes128": 10, "aes192": 12, "aes256": 14, "rijndael256": 14}.get(
        name, int(name[-1:]) if spec.family == "speedy" else None)
    rks = spec.key_schedule(bytes(range(spec.key_bytes)))
    assert len(rks) == spec.rounds + 1 and all(len(k) == spec.block_bytes for k in rks)
    with pytest.raises(ValueError):
        spec.encrypt(bytes(spec.key_bytes + 1), bytes(spec.block_bytes))


@pytest.mark.parametrize("name", NAMES)
def test_sbox_circuit_on_every_input(name):
    spec = ciphers.get(name)
    assert len(spec.sbox) == 1 << spec.sbox_bits
    assert check_circuit(spec) == []


def test_check_circuit_catches_a_wrong_gate():
    spec = ciphers.get("speedy5")
    i = next(k for k, g in enumerate(spec.sbox_circuit) if g[1] == "andn")
    bad = list(spec.sbox_circuit)
    bad[i] = (bad[i][0], "and") + bad[i][2:]
    assert circuit_table(tuple(bad), spec.sbox_inputs, spec.sbox_outputs, 6) != list(spec.sbox)


def test_aes_circuit_is_boyar_peralta():
    assert ciphers.get("aes128").sbox_circuit is aes_sbox.GATES
    assert gate_counts(aes_sbox.GATES) == {"and": 32, "xnor": 4, "xor": 79}


def test_speedy_sbox_circuit_size():
    # the cycle-scored choice and its reproduction: tests/test_speedy_thumb2.py
    assert len(speedy_sbox.GATES) == 47
    assert len(sbox_search.search(list(speedy.SBOX), 6, 6, speedy_sbox.INPUTS, speedy_sbox.OUTPUTS, slack=1)) == 47


def test_speedy_facts():
    # c_0, c_1 as printed in the specification
    assert speedy.round_constant(0).hex() == "243f6a8885a308d313198a2e03707344a4093822299f31d0"
    assert speedy.round_constant(1).hex() == "082efa98ec4e6c89452821e638d01377be5466cf34e90c6c"
    assert sorted(speedy.KEY_PERMUTATION) == list(range(192))
    # the key schedule is the bit permutation, in the direction new[p] = old[(7p + 1) mod 192]
    key = bytes(23) + b"\x01"                       # bit 191 set
    k1 = speedy.key_schedule(key, 1)[1]
    p = next(p for p in range(192) if (7 * p + 1) % 192 == 191)
    assert int.from_bytes(k1, "big") == 1 << (191 - p)
