"""Ciphers as data (placeholder registry until the cipher modules land: sizes only)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.errors import ConfigError


@dataclass(frozen=True)
class CipherSpec:
    name: str
    family: str
    title: str
    block_bytes: int
    key_bytes: int
    rounds: int


CIPHERS = {s.name: s for s in (
    CipherSpec("aes128", "aes", "AES-128", 16, 16, 10),
    CipherSpec("aes192", "aes", "AES-192", 16, 24, 12),
    CipherSpec("aes256", "aes", "AES-256", 16, 32, 14),
    CipherSpec("rijndael256", "rijndael256", "Rijndael-256", 32, 32, 14),
    CipherSpec("speedy5", "speedy", "SPEEDY-5-192", 24, 24, 5),
    CipherSpec("speedy6", "speedy", "SPEEDY-6-192", 24, 24, 6),
    CipherSpec("speedy7", "speedy", "SPEEDY-7-192", 24, 24, 7),
)}


def get(name: str) -> CipherSpec:
    if name not in CIPHERS:
        raise ConfigError(f"unknown cipher {name!r}; choose one of: {', '.join(CIPHERS)}")
    return CIPHERS[name]
