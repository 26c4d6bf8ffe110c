"""Rijndael with a 256-bit block and a 256-bit key (Nb = Nk = 8, 14 rounds).

Reference model: ``rijndael_model`` with Nb = 8 (ShiftRows offsets 0, 1, 3, 4; the key schedule
is AES-256's recurrence run out to 120 words).  S-box and its gate list as AES.  Known answers:
gen/ciphers/data/rijndael256.json (Daemen & Rijmen App. B.3, NESSIE, rij256 ECB vectors).
pyca/cryptography has no Rijndael-256: no oracle there.
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.ciphers import rijndael_model
from gen.ciphers.base import CipherSpec, load_vectors

NB = NK = 8


def known_answers() -> list[tuple[bytes, bytes, bytes]]:
    return [(bytes.fromhex(v["key"]), bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"]))
            for v in load_vectors("rijndael256.json")]


def encrypt(key: bytes, block: bytes) -> bytes:
    RIJNDAEL256.check_key(key)
    RIJNDAEL256.check_block(block)
    return rijndael_model.encrypt(key, block, NB)


def key_schedule(key: bytes) -> list[bytes]:
    RIJNDAEL256.check_key(key)
    return rijndael_model.expand_key(key, NB)


RIJNDAEL256 = CipherSpec(
    name="rijndael256", family="rijndael256", title="Rijndael-256", block_bytes=32, key_bytes=32,
    rounds=rijndael_model.rounds(NB, NK), sbox=rijndael_model.SBOX, sbox_bits=8,
    sbox_circuit=aes_sbox.GATES, sbox_inputs=aes_sbox.INPUTS, sbox_outputs=aes_sbox.OUTPUTS,
    sbox_circuit_source="Boyar & Peralta, SEA 2010, 115 gates (gen/circuits/aes_sbox.py)",
    linear_layer={"shiftrows": rijndael_model.SHIFT_OFFSETS[NB],
                  "mixcolumns": rijndael_model.MIX_MATRIX},
    key_schedule=key_schedule, encrypt=encrypt,
    kat_source="gen/ciphers/data/rijndael256.json (copied from shared/vectors; sources per entry)",
    known_answers=known_answers, pyca=None)
