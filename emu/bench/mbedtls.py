"""Cycles of AES-GCM inside Mbed TLS 3.6 on the Cortex-M4 model (the cycle model of emu/bench/cycles.py,
Unicorn): mbedtls_gcm_crypt_and_tag over the generated adapter and a Cortex-M4 drop, that drop's
own encrypt, and Mbed TLS's built-in GCM (table AES, 4-bit GHASH; not constant-time), each at
64 B and 4 KiB with a 96-bit IV and no AAD. Two firmwares, both built by arm-none-eabi-gcc with the
drops' flags (-mcpu=cortex-m4 -mthumb -O2, hosted as with newlib: gcc inlines small memcpys): Mbed TLS's gcm.c, aes.c, block_cipher.c and
constant_time.c (emu/bench/mbedtls_config.h), or the adapter's gcm_alt.c and constant_time.c;
the same mem* and zeroize (emu/bench/mbedtls_harness.c). Every output is checked against
pyca/cryptography.

    python -m emu.bench.mbedtls --src build/mbedtls/src --alt build/mbedtls/alt-m4 [--max-ratio 1.05]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench.cycles import CycleCounter
from emu.machines import layout, toolchain
from emu.machines.machine import Machine

HERE = Path(__file__).resolve().parent
CORE = "cortex-m4"
SIZES = (64, 4096)
CIPHER_ID_AES, GCM_ENCRYPT = 2, 1          # mbedtls_cipher_id_t MBEDTLS_CIPHER_ID_AES, MBEDTLS_GCM_ENCRYPT


def firmware(src: Path, alt: Path, builtin: bool, workdir: Path) -> toolchain.Firmware:
    files = ["gcm", "aes", "block_cipher", "constant_time"] if builtin else ["constant_time"]
    sources = [src / "library" / f"{f}.c" for f in files] + ([] if builtin else [alt / "gcm_alt.c"])
    cc = [toolchain.tool(toolchain.ARM_GCC), *toolchain.CORE_FLAGS[CORE], "-std=c99", "-O2",
          f"-I{src / 'include'}", f"-I{alt}", f"-DMBEDTLS_CONFIG_FILE=\"{HERE / 'mbedtls_config.h'}\"",
          *([] if builtin else ["-DMBEDTLS_GCM_ALT"])]
    return toolchain.link_firmware([*sources, HERE / "mbedtls_harness.c"], CORE, workdir, compiler=cc,
                                   stem="builtin" if builtin else "alt")


class Bench:
    """One firmware on the M4 model: buffers in emulated RAM, calls counted by the cycle model."""

    def __init__(self, fw: toolchain.Firmware):
        self.fw, self.m = fw, Machine(fw.core, fw.image)
        self.counter = CycleCounter(self.m.uc, fw.core, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
        m = self.m
        self.ctx, self.key, self.iv = m.alloc(32768), m.alloc(32), m.alloc(16)
        self.inp, self.out, self.tag = m.alloc(max(SIZES)), m.alloc(max(SIZES)), m.alloc(16)

    def call(self, name: str, *args: int) -> tuple[int, int]:
        """(return value, cycles) of one call."""
        self.counter.reset()
        rc = self.m.call(self.fw.addr(name), *args)
        if self.counter.missed_hooks:
            raise RuntimeError(f"cycle model missed instructions in {name}")
        return (rc - (1 << 32) if rc >> 31 else rc), self.counter.cycles

    def load(self, key: bytes, iv: bytes, msg: bytes) -> None:
        self.m.write(self.key, key)
        self.m.write(self.iv, iv)
        self.m.write(self.inp, msg)

    def result(self, n: int) -> bytes:
        return self.m.read(self.out, n) + self.m.read(self.tag, 16)


def measure(src: Path, alt: Path, workdir: Path) -> dict:
    """{row: {size: cycles}} for the three ways, each output checked."""
    key, iv = bytes(range(16)), bytes(range(100, 112))
    prefix = re.search(r"case 128u: rc = (\w+)_init\(", (alt / "gcm_alt.c").read_text()).group(1)
    rows: dict = {}
    for builtin in (False, True):
        b = Bench(firmware(src, alt, builtin, workdir))
        b.call("mbedtls_gcm_init", b.ctx)
        b.load(key, iv, b"")
        rc, setkey = b.call("mbedtls_gcm_setkey", b.ctx, CIPHER_ID_AES, b.key, 128)
        assert rc == 0, f"setkey returned {rc}"
        name = "Mbed TLS built-in GCM (table AES, 4-bit GHASH)" if builtin else f"drop {prefix} via mbedtls_gcm_crypt_and_tag"
        rows[name] = {"setkey": setkey}
        if not builtin:
            own = f"drop {prefix}: its own {prefix}_encrypt"
            rows[own] = {"setkey": b.call(f"{prefix}_init", b.ctx + 16384, b.key, 16)[1]}
        for n in SIZES:
            msg = bytes((i * 7 + 3) & 0xFF for i in range(n))
            want = AESGCM(key).encrypt(iv, msg, None)
            b.load(key, iv, msg)
            rc, c = b.call("mbedtls_gcm_crypt_and_tag", b.ctx, GCM_ENCRYPT, n, b.iv, 12, 0, 0, b.inp, b.out, 16, b.tag)
            assert rc == 0 and b.result(n) == want, f"{name}: wrong output at {n} bytes"
            rows[name][n] = c
            if not builtin:
                rc, c = b.call(f"{prefix}_encrypt", b.ctx + 16384, b.iv, 12, 0, 0, b.inp, n, b.out, b.tag, 16)
                assert rc == 0 and b.result(n) == want, f"{own}: wrong output at {n} bytes"
                rows[own][n] = c
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu.bench.mbedtls", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="Mbed TLS's source tree (emu/checks/mbedtls/fetch.sh)")
    ap.add_argument("--alt", type=Path, required=True, help="the adapter over Cortex-M4 drops (gen.integrations.mbedtls)")
    ap.add_argument("--max-ratio", type=float, default=1.05,
                    help="largest allowed cycles of crypt_and_tag over the drop's encrypt at 4 KiB")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mbedtls-bench-") as tmp:
        rows = measure(a.src.resolve(), a.alt.resolve(), Path(tmp))
    print(f"| Cortex-M4 model, AES-128-GCM, 96-bit IV, no AAD | setkey | {' | '.join(f'{n} B' for n in SIZES)} "
          f"| cycles/byte at {max(SIZES)} B |")
    print("|---|---:|" + "---:|" * len(SIZES) + "---:|")
    for name, r in rows.items():
        print(f"| {name} | {r['setkey']} | {' | '.join(str(r[n]) for n in SIZES)} | {r[max(SIZES)] / max(SIZES):.1f} |")
    via, own = (v[max(SIZES)] for k, v in rows.items() if k.startswith("drop"))
    ratio = via / own
    print(f"mbedtls_gcm_crypt_and_tag / the drop's encrypt at {max(SIZES)} B: {ratio:.4f} (at most {a.max_ratio})")
    return 0 if ratio <= a.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
