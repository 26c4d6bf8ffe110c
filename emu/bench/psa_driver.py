"""Cycles of the generated PSA transparent driver's one-shot aead_encrypt on the Cortex-M4 model
(emu/bench/cycles.py, Unicorn), beside the rows of emu/bench/mbedtls.py: a PSA driver gets the raw
key with every call, so each call pays the drop's key schedule (init), its encrypt and its wipe.
The firmware: the driver (gen.integrations.psa_driver) over Cortex-M4 drops and the call shim
emu/bench/psa_driver_shim.c (the key attributes a PSA core passes), arm-none-eabi-gcc with the
flags of emu/bench/mbedtls.py, the same mem* (emu/bench/mbedtls_harness.c). AES-128-GCM, 96-bit IV,
no AAD; every output checked against pyca/cryptography.

    python -m emu.bench.psa_driver --src build/mbedtls/src --driver build/mbedtls/psa-m4
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench.mbedtls import CORE, HERE, SIZES, Bench
from emu.machines import toolchain


def firmware(src: Path, drv: Path, workdir: Path) -> toolchain.Firmware:
    (c,) = drv.glob("*_psa_driver.c")
    driver = c.name[:-len("_psa_driver.c")]
    cc = [toolchain.tool(toolchain.ARM_GCC), *toolchain.CORE_FLAGS[CORE], "-std=c99", "-O2",
          f"-I{src / 'include'}", f"-I{drv}", f"-DMBEDTLS_CONFIG_FILE=\"{HERE / 'mbedtls_config.h'}\"",
          f"-DSG_DRIVER_H=\"{driver}_psa_driver.h\"", f"-DSG_ENCRYPT={driver}_psa_aead_encrypt"]
    return toolchain.link_firmware([c, HERE / "psa_driver_shim.c", HERE / "mbedtls_harness.c"], CORE, workdir,
                                   compiler=cc, stem="psa")


def measure(src: Path, drv: Path, workdir: Path) -> dict:
    """{size: cycles} of one driver call (key schedule included), each output checked."""
    key, iv = bytes(range(16)), bytes(range(100, 112))
    b = Bench(firmware(src, drv, workdir))
    out = b.m.alloc(max(SIZES) + 16)
    row = {}
    for n in SIZES:
        msg = bytes((i * 7 + 3) & 0xFF for i in range(n))
        b.load(key, iv, msg)
        rc, c = b.call("sg_psa_bench_encrypt", b.key, 16, b.iv, b.inp, n, out)
        assert rc == 0 and b.m.read(out, n + 16) == AESGCM(key).encrypt(iv, msg, None), f"driver: wrong output at {n} B"
        row[n] = c
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu.bench.psa_driver", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="Mbed TLS's source tree (emu/checks/mbedtls/fetch.sh)")
    ap.add_argument("--driver", type=Path, required=True, help="the PSA driver over Cortex-M4 drops (gen.integrations.psa_driver)")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="psa-bench-") as tmp:
        row = measure(a.src.resolve(), a.driver.resolve(), Path(tmp))
    print(f"| Cortex-M4 model, AES-128-GCM, 96-bit IV, no AAD | {' | '.join(f'{n} B' for n in SIZES)} |")
    print("|---|" + "---:|" * len(SIZES))
    print(f"| PSA driver aead_encrypt (key schedule, encrypt, wipe) | {' | '.join(str(row[n]) for n in SIZES)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
