"""Mbed TLS 3.6's MBEDTLS_GCM_ALT over GCM drops: gcm_alt.h (mbedtls_gcm_context) and gcm_alt.c
(the nine mbedtls_gcm_* functions), from templates/mbedtls_gcm_alt.*.j2. One adapter serves one
AES GCM drop per key size (128, 192, 256: the context holds each), or one multi-key drop for all
the sizes it takes (one GHASH in flash; issue 32), or both mixed; setkey picks by key length.

    python -m gen.integrations.mbedtls PRESET|FILE.toml... -o DIR

writes the drops' headers (the same bytes `slicegen build` writes) and the adapter pair to DIR.
Rendering only: the drops are validated by `slicegen build`, the adapter by `make mbedtls-check`.
"""
from __future__ import annotations

import sys
from pathlib import Path

from gen.config import Config
from gen.errors import ConfigError
from gen.integrations.common import cli, drop_headers, write_files
from gen.templating import render
from gen.version import GENERATOR_VERSION


def drops_of(configs: list[Config]) -> list[dict]:
    """One entry per key size, in key order (a multi-key drop gives one for each of its sizes, all
    with the same union member); refuses non-GCM or non-AES drops and two drops for one size."""
    drops = {}
    for c in configs:
        if c.mode != "gcm" or not c.cipher.startswith("aes"):
            raise ConfigError(f"{c.name}: the Mbed TLS GCM adapter takes AES GCM drops "
                              "(cipher aes128|aes192|aes256, or aes with keybits; mode gcm)")
        sizes = c.keybits or (8 * c.spec.key_bytes,)
        member = "k" + "_".join(map(str, sizes))          # k128, or k128_192_256 for a multi-key drop
        for bits in sizes:
            if bits in drops:
                raise ConfigError(f"{c.name}: two drops for AES-{bits} ({drops[bits]['name']} already)")
            drops[bits] = {"bits": bits, "name": c.name, "p": c.prefix, "P": c.prefix.upper(), "member": member}
    return [drops[b] for b in sorted(drops)]


def headers_of(drops: list[dict]) -> list[dict]:
    """The drops' headers, each once (a multi-key drop serves several key sizes)."""
    seen = {}
    for d in drops:
        seen.setdefault(d["name"], d)
    return list(seen.values())


def adapter(configs: list[Config], command: str) -> dict[str, str]:
    """{file name: text} of the adapter pair."""
    drops = drops_of(configs)
    args = {"drops": drops, "headers": headers_of(drops), "command": command, "version": GENERATOR_VERSION}
    return {"gcm_alt.h": render("mbedtls_gcm_alt.h.j2", **args), "gcm_alt.c": render("mbedtls_gcm_alt.c.j2", **args)}


def write(configs: list[Config], out: Path, command: str) -> list[Path]:
    files = drop_headers(configs)
    files.update(adapter(configs, command))
    return write_files(out, files)


PROG = "python -m gen.integrations.mbedtls"


def main(argv: list[str] | None = None) -> int:
    return cli(PROG, __doc__, lambda configs, out, a: write(configs, out, PROG + " " + " ".join(a.configs)),
               argv=argv)


if __name__ == "__main__":
    sys.exit(main())
