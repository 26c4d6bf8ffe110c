"""PSA Crypto transparent-driver entry points over GCM drops: DRIVER_psa_aead_encrypt and
DRIVER_psa_aead_decrypt (one-shot AEAD, PSA_ALG_GCM and its shortened tags), from
templates/psa_driver.{h,c}.j2. One driver serves one AES GCM drop per key size (as the Mbed TLS
adapter: gen/integrations/mbedtls.py); the key size of each call picks the drop.

    python -m gen.integrations.psa_driver PRESET|FILE.toml... -o DIR [--driver NAME]

writes the drops' headers (the same bytes `slicegen build` writes) and NAME_psa_driver.h/.c
(NAME: slicegen unless given) to DIR. Rendering only: the drops are validated by `slicegen
build`, the driver inside Mbed TLS 3.6 by `make mbedtls-check` (emu/checks/psa_driver.py).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from gen.config import Config
from gen.errors import ConfigError
from gen.integrations.common import cli, drop_headers, write_files
from gen.integrations.mbedtls import drops_of
from gen.templating import render
from gen.version import GENERATOR_VERSION

DEFAULT_DRIVER = "slicegen"


def driver_files(configs: list[Config], command: str, driver: str = DEFAULT_DRIVER) -> dict[str, str]:
    """{file name: text} of the driver pair."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", driver):
        raise ConfigError(f"driver name {driver!r}: lower-case C identifier expected (letters, digits, _)")
    drops = drops_of(configs)
    units = list({d["p"]: d for d in drops}.values())          # one ctx per drop (a multi-key drop: once)
    sizes = [{"bytes": d["bits"] // 8, "p": d["p"]} for d in drops]
    args = {"drops": drops, "units": units, "sizes": sizes, "bits": [d["bits"] for d in drops],
            "driver": driver, "DRIVER": driver.upper(), "command": command, "version": GENERATOR_VERSION}
    return {f"{driver}_psa_driver.h": render("psa_driver.h.j2", **args),
            f"{driver}_psa_driver.c": render("psa_driver.c.j2", **args)}


def write(configs: list[Config], out: Path, command: str, driver: str = DEFAULT_DRIVER) -> list[Path]:
    files = driver_files(configs, command, driver)
    files.update(drop_headers(configs))
    return write_files(out, files)


PROG = "python -m gen.integrations.psa_driver"


def _options(ap) -> None:
    ap.add_argument("--driver", default=DEFAULT_DRIVER, metavar="NAME",
                    help=f"the entry points' prefix: NAME_psa_aead_encrypt (default {DEFAULT_DRIVER})")


def _run(configs: list[Config], out: Path, a) -> None:
    command = PROG + " " + " ".join(a.configs) + (f" --driver {a.driver}" if a.driver != DEFAULT_DRIVER else "")
    write(configs, out, command, a.driver)


def main(argv: list[str] | None = None) -> int:
    return cli(PROG, __doc__, _run, _options, argv)


if __name__ == "__main__":
    sys.exit(main())
