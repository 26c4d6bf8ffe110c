"""Mbed TLS 3.6's own test suites over the generated MBEDTLS_GCM_ALT adapter (`make mbedtls-check`).

Builds Mbed TLS's libmbedcrypto (its own Makefiles, the user config emu/checks/mbedtls/user_config.h:
MBEDTLS_GCM_ALT) with the adapter's gcm_alt.c added to the archive, builds the GCM suites
(test_suite_gcm.*, test_suite_cipher.gcm, test_suite_psa_crypto), runs each with an outcome file,
and reads every case's result. Proves the adapter ran: the archive's mbedtls_gcm_* come from
gcm_alt.o only, and every suite binary holds each drop's init. Fails on any failed case, and on
any skipped case about GCM whose skip has no reason below (a reason is a dependency this build
leaves out on purpose).

    python -m emu.checks.mbedtls_suites --src build/mbedtls/src --alt build/mbedtls/alt [-j 2]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

USER_CONFIG = Path(__file__).resolve().parent / "mbedtls" / "user_config.h"

SUITES = [f"test_suite_gcm.aes{b}_{d}" for b in (128, 192, 256) for d in ("en", "de")] + [
    "test_suite_gcm.misc", "test_suite_gcm.camellia", "test_suite_cipher.gcm", "test_suite_psa_crypto"]

#: dependencies this build leaves out on purpose, and why (a skipped case needing one is explained)
REASONS = {
    "MBEDTLS_CAMELLIA_C": "Camellia: the drops are AES only (user_config.h leaves it out)",
    "MBEDTLS_ARIA_C": "ARIA: the drops are AES only (user_config.h leaves it out)",
    "MBEDTLS_CCM_GCM_CAN_CAMELLIA": "Camellia: the drops are AES only (user_config.h leaves it out)",
    "PSA_WANT_KEY_TYPE_CAMELLIA": "Camellia: the drops are AES only (user_config.h leaves it out)",
    "PSA_WANT_KEY_TYPE_ARIA": "ARIA: the drops are AES only (user_config.h leaves it out)",
    "PSA_CRYPTO_DRIVER_TEST": "opaque keys need Mbed TLS's test driver (not built: no GCM code in it runs ours)",
}


def run(cmd: list[str], cwd: Path) -> None:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"mbedtls-check: {' '.join(cmd)} failed in {cwd}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")


def cflags(alt: Path) -> str:
    return f"-O2 -I{alt} -DMBEDTLS_USER_CONFIG_FILE='\"{USER_CONFIG}\"'"


def build(src: Path, alt: Path, jobs: int) -> None:
    """libmbedcrypto with the adapter, then the suites; a clean first when the adapter, the drops,
    the config or the flags changed (Mbed TLS's Makefiles track no header)."""
    stamp = src / ".slicegen-build"
    h = hashlib.sha256(cflags(alt).encode() + USER_CONFIG.read_bytes())
    for f in sorted(alt.glob("*.[ch]")):
        h.update(f.name.encode() + f.read_bytes())
    if not stamp.exists() or stamp.read_text() != h.hexdigest():
        run(["make", "-s", "-C", "library", "clean"], src)
        run(["make", "-s", "-C", "tests", "clean"], src)
        stamp.unlink(missing_ok=True)
    cf = cflags(alt)
    run(["make", f"-j{jobs}", "-C", "library", "libmbedcrypto.a", f"CFLAGS={cf}"], src)
    run(["sh", "-c", f"cc {cf} -std=c99 -Wall -Wextra -Werror -Iinclude -c {alt}/gcm_alt.c -o {alt}/gcm_alt.o"
         f" && ar rs library/libmbedcrypto.a {alt}/gcm_alt.o"], src)
    run(["make", f"-j{jobs}", "-C", "tests", *SUITES, f"CFLAGS={cf}"], src)
    stamp.write_text(h.hexdigest())


def prove_adapter(src: Path, alt: Path) -> list[str]:
    """The archive's GCM functions are the adapter's, and the suites hold the drops' code."""
    out = subprocess.run(["nm", "-A", "--defined-only", str(src / "library" / "libmbedcrypto.a")],
                         capture_output=True, text=True).stdout
    defs = {(m.group(1), m.group(2)) for m in re.finditer(r":(\w+\.o):\w+ T (mbedtls_gcm_\w+)$", out, re.M)}
    nine = {"init", "setkey", "starts", "update_ad", "update", "finish", "crypt_and_tag", "auth_decrypt", "free"}
    problems = [f"mbedtls_gcm_{f} is not defined by gcm_alt.o" for f in sorted(nine)
                if ("gcm_alt.o", f"mbedtls_gcm_{f}") not in defs]
    problems += [f"{o} defines {s} too" for o, s in sorted(defs) if o != "gcm_alt.o" and s[12:] in nine]
    inits = re.findall(r"^int  (\w+)_init\(", "".join(p.read_text() for p in alt.glob("*.h")), re.M)
    for suite in SUITES:
        syms = subprocess.run(["nm", str(src / "tests" / suite)], capture_output=True, text=True).stdout
        problems += [f"{suite} does not hold {p}_init" for p in inits if f" {p}_init\n" not in syms]
    return problems


def depends(src: Path, suite: str) -> dict[str, str]:
    """case description -> its depends_on line in the suite's .data file."""
    deps = {}
    for block in (src / "tests" / "suites" / f"{suite}.data").read_text().split("\n\n"):
        lines = [x for x in block.strip().splitlines() if not x.startswith("#")]
        if len(lines) > 1 and lines[1].startswith("depends_on:"):
            deps.setdefault(lines[0], lines[1][len("depends_on:"):])
    return deps


def outcomes(src: Path, suite: str, workdir: Path) -> list[tuple[str, str]]:
    csv = workdir / f"{suite}.outcomes.csv"
    csv.unlink(missing_ok=True)
    env = {**os.environ, "MBEDTLS_TEST_OUTCOME_FILE": str(csv)}
    subprocess.run([f"./{suite}"], cwd=src / "tests", env=env, capture_output=True, text=True)
    rows = [line.split(";") for line in csv.read_text().splitlines()] if csv.exists() else []
    return [(r[3], r[4]) for r in rows if len(r) >= 5]


def reason(deps: str) -> str | None:
    for d in deps.split(":"):
        if d in REASONS:
            return REASONS[d]
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu.checks.mbedtls_suites", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="Mbed TLS's source tree (emu/checks/mbedtls/fetch.sh)")
    ap.add_argument("--alt", type=Path, required=True, help="gcm_alt.h/.c and the drops' headers")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    src, alt = a.src.resolve(), a.alt.resolve()
    build(src, alt, a.jobs)
    problems = prove_adapter(src, alt)
    total, why = Counter(), Counter()
    print(f"{'suite':34} {'passed':>7} {'failed':>7} {'skipped':>8}")
    for suite in SUITES:
        deps = depends(src, suite)
        results = outcomes(src, suite, alt)
        if not results:
            problems.append(f"{suite}: no outcome (did it run?)")
        c = Counter(r for _, r in results)
        print(f"{suite:34} {c['PASS']:7} {c['FAIL']:7} {c['SKIP']:8}")
        total.update(c)
        for case, r in results:
            if r == "FAIL":
                problems.append(f"{suite}: FAILED {case}")
            elif r == "SKIP":
                because = reason(deps.get(case, ""))
                if because is None and "GCM" in case.upper():
                    problems.append(f"{suite}: skipped without a reason: {case} (needs {deps.get(case, '?')})")
                why[because or "not about GCM: a dependency Mbed TLS's default config leaves out"] += 1
    for because, n in why.most_common():
        print(f"  skipped {n:5}: {because}")
    for p in problems[:30]:
        print(f"PROBLEM: {p}")
    if len(problems) > 30:
        print(f"PROBLEM: ... and {len(problems) - 30} more")
    print(f"mbedtls-check: {total['PASS']} passed, {len(problems)} failed, {total['SKIP']} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
