"""The cipher registry: every cipher the generator knows, by name.

Registering a new cipher is one line in ``CIPHERS`` (its spec lives in its own module).
"""
from __future__ import annotations

from gen.ciphers.aes import AES128, AES192, AES256
from gen.ciphers.base import CipherSpec
from gen.ciphers.rijndael256 import RIJNDAEL256
from gen.ciphers.speedy import SPEEDY5, SPEEDY6, SPEEDY7
from gen.errors import ConfigError

CIPHERS: dict[str, CipherSpec] = {s.name: s for s in (
    AES128, AES192, AES256,
    RIJNDAEL256,
    SPEEDY5, SPEEDY6, SPEEDY7,
)}


def get(name: str) -> CipherSpec:
    try:
        return CIPHERS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown cipher {name!r}; allowed: {', '.join(CIPHERS)}") from None
