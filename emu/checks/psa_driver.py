"""The generated PSA transparent driver (gen/integrations/psa_driver.py) inside Mbed TLS 3.6,
for `make mbedtls-check`. Mbed TLS 3.6 dispatches one-shot AEAD to transparent drivers from
hand-written lines of its driver-wrapper template (only Mbed TLS's own test driver is called
there; the JSON driver descriptions drive other entry points), so wiring a driver in is a
source edit: the two calls of WIRING, inserted before the built-in fallback of
psa_driver_wrapper_aead_encrypt / _decrypt (docs/mbedtls.md shows them). This check makes that
edit in its own copy of the fetched tree, plus a hit counter (emu/checks/mbedtls/psa_driver_hits.c)
behind each call, builds libmbedcrypto with Mbed TLS's own GCM (no MBEDTLS_GCM_ALT: the built-in
the core falls back to) and the driver, and then:
- runs test_suite_psa_crypto and test_suite_cipher.gcm (its PSA variants) with the counter: the
  driver must serve one-shot encrypts and decrypts, and decline (NOT_SUPPORTED) some;
- runs emu/checks/mbedtls/psa_driver_check.c: the entry points called directly against Mbed TLS's
  built-in mbedtls_psa_aead_encrypt/_decrypt and pyca/cryptography, every key size, IV lengths
  1..128 bytes, every tag length PSA allows, bad input; and psa_aead_encrypt/_decrypt through
  the wired dispatch.
`--place m4`: the driver and the Cortex-M4 drops compiled -mcpu=cortex-m4 in a static armhf build
under qemu-arm, their assembly kernels byte-identical to the emulator's build.

    python -m emu.checks.psa_driver --src build/mbedtls/src --driver build/mbedtls/psa [--place host|m4] [-j 2]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from emu.checks import mbedtls_suites as ms

HERE = Path(__file__).resolve().parent / "mbedtls"
CONFIG = HERE / "psa_driver_config.h"
HITS_C = HERE / "psa_driver_hits.c"
CHECK_C = HERE / "psa_driver_check.c"
SUITES = ["test_suite_psa_crypto", "test_suite_cipher.gcm"]
WRAPPERS = Path("library") / "psa_crypto_driver_wrappers.h"

#: The lines a user adds to psa_crypto_driver_wrappers.h (or its template), one per entry point,
#: before the built-in fallback; `count` adds this check's hit counter.
WIRING = '''            status = {driver}_psa_aead_{op}(
                         attributes, key_buffer, key_buffer_size, alg,
                         nonce, nonce_length, additional_data, additional_data_length,
                         {args} );
{count}            if( status != PSA_ERROR_NOT_SUPPORTED )
                return( status );

'''
ANCHOR = "            /* Fell through, meaning no accelerator supports this operation */\n            return( mbedtls_psa_aead_{op}("
ARGS = {"encrypt": "plaintext, plaintext_length, ciphertext, ciphertext_size, ciphertext_length",
        "decrypt": "ciphertext, ciphertext_length, plaintext, plaintext_size, plaintext_length"}
HEADERS_END = "/* END-driver headers */\n"


def wired(text: str, driver: str, count: bool = True) -> str:
    """psa_crypto_driver_wrappers.h with the driver's header and its two calls added."""
    if text.count(HEADERS_END) != 1:
        sys.exit(f"psa-driver: {WRAPPERS} has no single '{HEADERS_END.strip()}' line: not Mbed TLS 3.6's layout")
    text = text.replace(HEADERS_END, HEADERS_END + f'#include "{driver}_psa_driver.h"\n'
                        + ("void sg_psa_driver_hit(int op, psa_status_t status);\n" if count else ""))
    for n, op in enumerate(("encrypt", "decrypt")):
        anchor = ANCHOR.format(op=op)
        if text.count(anchor) != 1:
            sys.exit(f"psa-driver: {WRAPPERS}: the built-in fallback of aead_{op} not found once: not Mbed TLS 3.6's layout")
        hit = f"            sg_psa_driver_hit( {n}, status );\n" if count else ""
        text = text.replace(anchor, WIRING.format(driver=driver, op=op, args=ARGS[op], count=hit) + anchor)
    return text


def wire(fetched: Path, src: Path, driver: str) -> None:
    """Edits the build copy's wrappers (from the fetched original); a changed edit forces a rebuild."""
    text = wired((fetched / WRAPPERS).read_text(), driver)
    if (src / WRAPPERS).read_text() != text:
        (src / WRAPPERS).write_text(text)
        (src / ".slicegen-build").unlink(missing_ok=True)


def driver_name(drv: Path) -> str:
    names = [p.name[:-len("_psa_driver.c")] for p in drv.glob("*_psa_driver.c")]
    if len(names) != 1:
        sys.exit(f"psa-driver: {drv} holds {len(names)} *_psa_driver.c files, one expected (gen.integrations.psa_driver)")
    return names[0]


def key_bits(drv: Path, driver: str) -> list[int]:
    return sorted({8 * int(b) for b in re.findall(r"case (\d+)u:\n\s+rc = ", (drv / f"{driver}_psa_driver.c").read_text())})


def cases(bits: list[int], seed: int = 32) -> list[str]:
    """Case lines for psa_driver_check.c: every key size x PSA's GCM tag lengths x IV lengths,
    AAD and message lengths spread over 0..80 and block edges; the expected ct||tag from pyca
    (its GCM takes IVs of 8..128 bytes; shorter ones are checked against Mbed TLS only)."""
    rng = random.Random(seed)
    sizes = [0, 1, 15, 16, 17, 31, 32, 33, 64, 80]
    lines = []
    for b in bits:
        for t in (4, 8, 12, 13, 14, 15, 16):
            for ivlen in (1, 7, 8, 12, 13, 16, 60, 128):
                key, iv = rng.randbytes(b // 8), rng.randbytes(ivlen)
                aad, pt = rng.randbytes(rng.choice(sizes)), rng.randbytes(rng.choice(sizes))
                want = "?"
                if ivlen >= 8:
                    enc = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
                    enc.authenticate_additional_data(aad)
                    ct = enc.update(pt) + enc.finalize()
                    want = (ct + enc.tag[:t]).hex()
                lines.append(" ".join([str(b), str(t), key.hex(), iv.hex(), aad.hex() or "-", pt.hex() or "-", want]))
    return lines


def prove_driver(src: Path, driver: str, place: ms.Place) -> list[str]:
    """The archive's driver object defines the entry points, the wired psa_crypto.o calls them,
    and every suite binary holds them."""
    nm = place.cc.replace("gcc", "nm") if place.cc != "cc" else "nm"
    out = subprocess.run([nm, "-A", str(src / "library" / "libmbedcrypto.a")], capture_output=True, text=True).stdout
    problems = []
    for op in ("encrypt", "decrypt"):
        sym = f"{driver}_psa_aead_{op}"
        if not re.search(rf":{driver}_psa_driver\.o:\w+ T {sym}$", out, re.M):
            problems.append(f"{sym} is not defined by {driver}_psa_driver.o")
        if not re.search(rf":psa_crypto\.o:\s+U {sym}$", out, re.M):
            problems.append(f"psa_crypto.o does not call {sym}: the wrappers are not wired")
        for suite in SUITES:
            if f" {sym}\n" not in subprocess.run([nm, str(src / "tests" / suite)], capture_output=True, text=True).stdout:
                problems.append(f"{suite} does not hold {sym}")
    return problems


def direct(src: Path, drv: Path, driver: str, place: ms.Place) -> list[str]:
    """psa_driver_check.c over the case file; its counts are printed."""
    work = drv / "kernels"
    work.mkdir(exist_ok=True)
    (work / "psa_cases.txt").write_text("\n".join(cases(key_bits(drv, driver))) + "\n")
    exe = work / "psa_driver_check"
    ms.run(["sh", "-c", f"{place.cc} {ms.cflags(drv, CONFIG)} -std=c99 -Wall -Wextra -Werror -DSG_DRIVER={driver} "
            f"-DSG_DRIVER_H='\"{driver}_psa_driver.h\"' -Iinclude -Ilibrary {CHECK_C} library/libmbedcrypto.a "
            f"{place.ldflags} -o {exe}"], src)
    r = subprocess.run([*place.runner, str(exe), str(work / "psa_cases.txt")], capture_output=True, text=True)
    print(f"driver called directly, psa_driver_check.c: {(r.stdout.strip().splitlines() or ['no output'])[-1]}")
    return [f"psa_driver_check.c: {r.stdout.strip()[-3000:]}"] if r.returncode else []


def hits(drv: Path, problems: list) -> None:
    """The counter's lines (one per suite process): the suites' one-shot GCM went through the driver."""
    per = {}
    for line in (drv / "kernels" / "psa_hits.txt").read_text().splitlines():
        name, *n = line.split()
        per[name] = [a + int(b) for a, b in zip(per.get(name, [0, 0, 0, 0]), n)]
    for suite in SUITES:
        es, ed, ds, dd = per.get(suite, [0, 0, 0, 0])
        print(f"  {suite}: the driver served {es} encrypts and {ds} decrypts, declined {ed} and {dd} (the core fell back)")
        if suite == "test_suite_psa_crypto" and not (es and ds and ed + dd):
            problems.append(f"{suite}: the driver served {es} encrypts, {ds} decrypts and declined {ed + dd}: "
                            "each must be more than 0")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu.checks.psa_driver", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="Mbed TLS's source tree as fetched (emu/checks/mbedtls/fetch.sh)")
    ap.add_argument("--driver", type=Path, required=True, help="NAME_psa_driver.c/.h and the drops' headers")
    ap.add_argument("--place", choices=sorted(ms.PLACES), default="host")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    drv, place, fetched = a.driver.resolve(), ms.PLACES[a.place], a.src.resolve()
    driver = driver_name(drv)
    src = ms.tree(fetched, f"psa-{a.place}")
    wire(fetched, src, driver)
    ms.build(src, drv, a.jobs, place, config=CONFIG,
             objects=((f"{driver}_psa_driver.c", True), (str(HITS_C), False)), suites=SUITES)
    problems = prove_driver(src, driver, place)
    if place.m_profile:
        problems += ms.same_kernels(drv, place, f"{driver}_psa_driver.o")
    (drv / "kernels").mkdir(exist_ok=True)
    hits_file = drv / "kernels" / "psa_hits.txt"
    hits_file.unlink(missing_ok=True)
    os.environ["SLICEGEN_PSA_HITS"] = str(hits_file)
    problems += direct(src, drv, driver, place)
    hits_file.unlink(missing_ok=True)            # the suites' counts only
    total, why = ms.run_suites(src, drv, place, SUITES, problems)
    hits(drv, problems)
    return ms.verdict(f"mbedtls-check, PSA driver ({a.place})", total, why, problems)


if __name__ == "__main__":
    sys.exit(main())
