"""Mbed TLS 3.6's own test suites over the generated MBEDTLS_GCM_ALT adapter (`make mbedtls-check`).

Two places: `--place host` (the host compiler, portable drops) and `--place m4` (a static 32-bit
Arm Linux build run under qemu-arm: Mbed TLS and its tests for armhf, the adapter and the
Cortex-M4 drops compiled -mcpu=cortex-m4 -mthumb; their object's build attributes are removed so
the M-profile object links beside glibc's A-profile ones). For m4 the drops' assembly kernels in
that object are checked byte for byte against the arm-none-eabi-gcc build the emulator runs.
Builds Mbed TLS's libmbedcrypto (its own Makefiles, the user config emu/checks/mbedtls/user_config.h:
MBEDTLS_GCM_ALT) with the adapter's gcm_alt.c added to the archive, builds the GCM suites
(test_suite_gcm.*, test_suite_cipher.gcm, test_suite_psa_crypto), runs each with an outcome file,
and reads every case's result. Proves the adapter ran: the archive's mbedtls_gcm_* come from
gcm_alt.o only, and every suite binary holds each drop's init. Then the adapter's own checks
(emu/checks/mbedtls/*_check.c: byte-copied contexts, bad input). Fails on any failed case, and on
any skipped case about GCM whose skip has no reason below (a reason is a dependency this build
leaves out on purpose).

    python -m emu.checks.mbedtls_suites --src build/mbedtls/src --alt build/mbedtls/alt [--place host|m4] [-j 2]
    (builds in build/mbedtls/build-PLACE, a copy of the fetched tree)
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from emu.machines import toolchain

USER_CONFIG = Path(__file__).resolve().parent / "mbedtls" / "user_config.h"
C_CHECKS = (USER_CONFIG.parent / "copy_check.c", USER_CONFIG.parent / "bad_input_check.c")

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


@dataclass(frozen=True)
class Place:
    """Where the suites are built and run."""
    cc: str
    ar: str
    drop_cflags: str = ""          # for gcm_alt.c (the drops' implementation)
    ldflags: str = ""
    runner: tuple = ()             # the suites run as runner + ./suite
    m_profile: bool = False        # strip gcm_alt.o's build attributes (M beside A); check the kernels
    only_gcm: tuple = ()           # suites run on their cases that name GCM only (time under qemu)


PLACES = {
    "host": Place("cc", "ar"),
    "m4": Place("arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-ar",
                drop_cflags="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16",
                ldflags="-static", runner=("qemu-arm",), m_profile=True,
                only_gcm=("test_suite_psa_crypto",)),
}


def run(cmd: list[str], cwd: Path) -> None:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"mbedtls-check: {' '.join(cmd)} failed in {cwd}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")


def cflags(alt: Path, config: Path = USER_CONFIG) -> str:
    return f"-O2 -I{alt} -DMBEDTLS_USER_CONFIG_FILE='\"{config}\"'"


def tree(fetched: Path, place: str) -> Path:
    """A build copy of the fetched tree per place (build-host, build-m4 beside it): the fetched
    one stays as unpacked; a copy is made again when the fetched version changes."""
    copy = fetched.parent / f"build-{place}"
    version = (fetched / ".slicegen-version").read_text()
    if not (copy / ".slicegen-version").exists() or (copy / ".slicegen-version").read_text() != version:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(fetched, copy, symlinks=True)
    return copy


def build(src: Path, alt: Path, jobs: int, place: Place, config: Path = USER_CONFIG,
          objects: tuple = (("gcm_alt.c", True),), suites: list = SUITES) -> None:
    """libmbedcrypto with the adapter (objects: alt's C files added to the archive, True for
    those compiled with the drops' flags), then the suites; a clean first when the adapter, the
    drops, the config, the place or the flags changed (Mbed TLS's Makefiles track no header)."""
    stamp = src / ".slicegen-build"
    h = hashlib.sha256(cflags(alt, config).encode() + repr(place).encode() + config.read_bytes() + repr(objects).encode())
    for f in [*sorted(alt.glob("*.[ch]")), *(Path(s) for s, _ in objects if Path(s).is_absolute())]:
        h.update(f.name.encode() + f.read_bytes())
    if stamp.exists() and stamp.read_text() == h.hexdigest():
        if all((src / "tests" / suite).exists() for suite in suites):
            return                            # built from these very inputs
    else:
        run(["make", "-s", "-C", "library", "clean"], src)
        run(["make", "-s", "-C", "tests", "clean"], src)
        stamp.unlink(missing_ok=True)
    cf, tools = cflags(alt, config), [f"CC={place.cc}", f"AR={place.ar}"]
    run(["make", f"-j{jobs}", "-C", "library", "libmbedcrypto.a", f"CFLAGS={cf}", *tools], src)
    for source, drop_flags in objects:
        obj = alt / Path(source).with_suffix(".o").name
        run(["sh", "-c", f"{place.cc} {cf} {place.drop_cflags if drop_flags else ''} -std=c99 -Wall -Wextra -Werror "
             f"-Iinclude -c {source if Path(source).is_absolute() else alt / source} -o {obj}"], src)
        if place.m_profile and drop_flags:
            run([place.cc.replace("gcc", "objcopy"), "--remove-section=.ARM.attributes", str(obj)], src)
        run([place.ar, "rs", "library/libmbedcrypto.a", str(obj)], src)
    run(["make", f"-j{jobs}", "-C", "tests", *suites, f"CFLAGS={cf}", f"LDFLAGS={place.ldflags}", *tools], src)
    stamp.write_text(h.hexdigest())


def asm_kernels(alt: Path) -> list[str]:
    """The drops' assembly sections (.text.NAME: one per kernel, a second entry point shares it)."""
    return sorted(set(re.findall(r"\.pushsection \.text\.(\w+),", "".join(p.read_text() for p in alt.glob("*.h")))))


def same_kernels(alt: Path, place: Place, obj_name: str = "gcm_alt.o") -> list[str]:
    """The assembly kernels in obj_name (gcm_alt.o) are byte for byte those of the drops built by
    arm-none-eabi-gcc with the flags of the emulator's firmware (emu/machines/toolchain.py)."""
    work = alt / "kernels"                      # not *.[ch] of alt: the build's stamp reads those
    work.mkdir(exist_ok=True)
    ref_c, ref_o = work / "ref.c", work / "ref.o"
    ref_c.write_text("".join(f'#define {m}_IMPLEMENTATION\n#include "{h.name}"\n'
                             for h in sorted(alt.glob("*.h"))
                             if h.name != "gcm_alt.h" and not h.name.endswith("_psa_driver.h")
                             for m in [h.stem.replace("-", "_").upper()]))
    if not ref_o.exists() or ref_o.stat().st_mtime < (alt / obj_name).stat().st_mtime:
        run([toolchain.tool(toolchain.ARM_GCC), *toolchain.build_cflags("cortex-m4"), f"-I{alt}", "-c", str(ref_c),
             "-o", str(ref_o)], work)
    problems, names = [], asm_kernels(alt)
    for name in names:
        got = []
        for obj, objcopy in ((alt / obj_name, place.cc.replace("gcc", "objcopy")), (ref_o, "arm-none-eabi-objcopy")):
            out = work / f"{obj.stem}.{name}.bin"
            run([objcopy, "-O", "binary", f"--only-section=.text.{name}", str(obj), str(out)], work)
            got.append(out.read_bytes())
        if not got[0] or got[0] != got[1]:
            problems.append(f"kernel {name}: {len(got[0])} bytes in {obj_name}, {len(got[1])} in the emulator's build, not the same")
    if not names:
        problems.append("no assembly kernel in the drops: not a Cortex-M drop")
    print(f"{len(names) - len(problems)} of {len(names)} assembly kernels byte-identical to the emulator's build")
    return problems


def prove_adapter(src: Path, alt: Path, place: Place) -> list[str]:
    """The archive's GCM functions are the adapter's, and the suites hold the drops' code."""
    nm = place.cc.replace("gcc", "nm") if place.cc != "cc" else "nm"
    out = subprocess.run([nm, "-A", "--defined-only", str(src / "library" / "libmbedcrypto.a")],
                         capture_output=True, text=True).stdout
    defs = {(m.group(1), m.group(2)) for m in re.finditer(r":(\w+\.o):\w+ T (mbedtls_gcm_\w+)$", out, re.M)}
    nine = {"init", "setkey", "starts", "update_ad", "update", "finish", "crypt_and_tag", "auth_decrypt", "free"}
    problems = [f"mbedtls_gcm_{f} is not defined by gcm_alt.o" for f in sorted(nine)
                if ("gcm_alt.o", f"mbedtls_gcm_{f}") not in defs]
    problems += [f"{o} defines {s} too" for o, s in sorted(defs) if o != "gcm_alt.o" and s[12:] in nine]
    inits = re.findall(r"^int  (\w+)_init\(", "".join(p.read_text() for p in alt.glob("*.h")), re.M)
    for suite in SUITES:
        syms = subprocess.run([nm, str(src / "tests" / suite)], capture_output=True, text=True).stdout
        problems += [f"{suite} does not hold {p}_init" for p in inits if f" {p}_init\n" not in syms]
    return problems


def c_checks(src: Path, alt: Path, place: Place) -> list[str]:
    """The adapter's own checks beside the suites (emu/checks/mbedtls/*_check.c): a byte-copied
    context goes on, for each key size served; bad input gets Mbed TLS's codes, nothing half-written."""
    bits = ",".join(re.findall(r"case (\d+)u: rc = \w+_init\(", (alt / "gcm_alt.c").read_text()))
    problems = []
    for check in C_CHECKS:
        exe = alt / "kernels" / check.stem
        exe.parent.mkdir(exist_ok=True)
        run(["sh", "-c", f"{place.cc} {cflags(alt)} -DSG_KEYBITS={bits} -Iinclude {check} library/libmbedcrypto.a "
             f"{place.ldflags} -o {exe}"], src)
        r = subprocess.run([*place.runner, str(exe)], capture_output=True, text=True)
        print(f"adapter, {check.name}: {(r.stdout.strip().splitlines() or ['no output'])[-1]}")
        if r.returncode:
            problems.append(f"{check.name}: {r.stdout.strip()}")
    return problems


def depends(src: Path, suite: str) -> dict[str, str]:
    """case description -> its depends_on line in the suite's .data file."""
    deps = {}
    for block in (src / "tests" / "suites" / f"{suite}.data").read_text().split("\n\n"):
        lines = [x for x in block.strip().splitlines() if not x.startswith("#")]
        if len(lines) > 1 and lines[1].startswith("depends_on:"):
            deps.setdefault(lines[0], lines[1][len("depends_on:"):])
    return deps


def outcomes(src: Path, suite: str, workdir: Path, place: Place) -> list[tuple[str, str]]:
    csv = workdir / f"{suite}.outcomes.csv"
    csv.unlink(missing_ok=True)
    env = {**os.environ, "MBEDTLS_TEST_OUTCOME_FILE": str(csv)}
    data = []
    if suite in place.only_gcm:           # the .datax's cases (blank-line separated) that name GCM
        blocks = (src / "tests" / f"{suite}.datax").read_text().split("\n\n")
        kept = workdir / f"{suite}.gcm.datax"
        kept.write_text("\n\n".join(b for b in blocks if "GCM" in b.strip().split("\n")[0].upper()) + "\n")
        data = [str(kept)]
    subprocess.run([*place.runner, f"./{suite}", *data], cwd=src / "tests", env=env, capture_output=True, text=True)
    rows = [line.split(";") for line in csv.read_text().splitlines()] if csv.exists() else []
    return [(r[3], r[4]) for r in rows if len(r) >= 5]


def reason(deps: str) -> str | None:
    for d in deps.split(":"):
        if d in REASONS:
            return REASONS[d]
    return None


def run_suites(src: Path, alt: Path, place: Place, suites: list, problems: list) -> tuple[Counter, Counter]:
    """Runs each suite, prints its counts; failures and unexplained GCM skips go to problems.
    Returns the total counts and the skips by reason."""
    total, why = Counter(), Counter()
    print(f"{'suite':34} {'passed':>7} {'failed':>7} {'skipped':>8}")
    for suite in suites:
        deps = depends(src, suite)
        results = outcomes(src, suite, alt, place)
        if not results:
            problems.append(f"{suite}: no outcome (did it run?)")
        c = Counter(r for _, r in results)
        print(f"{suite:34} {c['PASS']:7} {c['FAIL']:7} {c['SKIP']:8}"
              + ("   (its cases that name GCM)" if suite in place.only_gcm else ""))
        total.update(c)
        for case, r in results:
            if r == "FAIL":
                problems.append(f"{suite}: FAILED {case}")
            elif r == "SKIP":
                because = reason(deps.get(case, ""))
                if because is None and "GCM" in case.upper():
                    problems.append(f"{suite}: skipped without a reason: {case} (needs {deps.get(case, '?')})")
                why[because or "not about GCM: a dependency Mbed TLS's default config leaves out"] += 1
    return total, why


def verdict(label: str, total: Counter, why: Counter, problems: list) -> int:
    """Prints the skips by reason, the problems and the last line; the exit status."""
    for because, n in why.most_common():
        print(f"  skipped {n:5}: {because}")
    for p in problems[:30]:
        print(f"PROBLEM: {p}")
    if len(problems) > 30:
        print(f"PROBLEM: ... and {len(problems) - 30} more")
    print(f"{label}: {total['PASS']} passed, {len(problems)} failed, {total['SKIP']} skipped")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu.checks.mbedtls_suites", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, required=True,
                    help="Mbed TLS's source tree as fetched (emu/checks/mbedtls/fetch.sh); built in a copy beside it")
    ap.add_argument("--alt", type=Path, required=True, help="gcm_alt.h/.c and the drops' headers")
    ap.add_argument("--place", choices=sorted(PLACES), default="host")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    alt, place = a.alt.resolve(), PLACES[a.place]
    src = tree(a.src.resolve(), a.place)
    build(src, alt, a.jobs, place)
    problems = prove_adapter(src, alt, place)
    if place.m_profile:
        problems += same_kernels(alt, place)
    problems += c_checks(src, alt, place)
    total, why = run_suites(src, alt, place, SUITES, problems)
    return verdict(f"mbedtls-check ({a.place})", total, why, problems)


if __name__ == "__main__":
    sys.exit(main())
