"""AES-128/192/256 (FIPS-197) as cipher specs.

Reference model: ``rijndael_model`` with Nb = 4.  S-box gate list: Boyar-Peralta, 115 gates
(gen/circuits/aes_sbox.py).  Known answers: FIPS-197 Appendix B and the Appendix C examples.
Independent oracle: pyca/cryptography, AES in ECB mode.
"""
from __future__ import annotations

from functools import partial

from gen.circuits import aes_sbox
from gen.ciphers import rijndael_model
from gen.ciphers.base import CipherSpec

#: FIPS-197: (key bits, key, plaintext, ciphertext), hex
FIPS197 = (
    (128, "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
     "3925841d02dc09fbdc118597196a0b32"),                                       # App. B
    (128, "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
     "69c4e0d86a7b0430d8cdb78070b4c55a"),                                       # App. C.1
    (192, "000102030405060708090a0b0c0d0e0f1011121314151617", "00112233445566778899aabbccddeeff",
     "dda97ca4864cdfe06eaf70a0ec0d7191"),                                       # App. C.2
    (256, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089"),   # App. C.3
)

LINEAR_LAYER = {"shiftrows": rijndael_model.SHIFT_OFFSETS[4], "mixcolumns": rijndael_model.MIX_MATRIX}


def pyca_encrypt(key: bytes, block: bytes) -> bytes:
    """One block through pyca/cryptography (AES-ECB); imported lazily (a test dependency)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return enc.update(block) + enc.finalize()


def _known_answers(keybits: int) -> list[tuple[bytes, bytes, bytes]]:
    return [tuple(bytes.fromhex(h) for h in v[1:]) for v in FIPS197 if v[0] == keybits]


def make(keybits: int) -> CipherSpec:
    nk = keybits // 32

    def encrypt(key: bytes, block: bytes) -> bytes:
        spec.check_key(key)
        spec.check_block(block)
        return rijndael_model.encrypt(key, block, 4)

    def key_schedule(key: bytes) -> list[bytes]:
        spec.check_key(key)
        return rijndael_model.expand_key(key, 4)

    spec = CipherSpec(
        name=f"aes{keybits}", family="aes", title=f"AES-{keybits}", block_bytes=16,
        key_bytes=keybits // 8, rounds=rijndael_model.rounds(4, nk), sbox=rijndael_model.SBOX,
        sbox_bits=8, sbox_circuit=aes_sbox.GATES, sbox_inputs=aes_sbox.INPUTS,
        sbox_outputs=aes_sbox.OUTPUTS,
        sbox_circuit_source="Boyar & Peralta, SEA 2010, 115 gates (gen/circuits/aes_sbox.py)",
        linear_layer=LINEAR_LAYER, key_schedule=key_schedule, encrypt=encrypt,
        kat_source="FIPS-197 Appendix B and Appendix C examples",
        known_answers=partial(_known_answers, keybits), pyca=pyca_encrypt)
    return spec


AES128, AES192, AES256 = make(128), make(192), make(256)
