"""The checks a drop must pass before it is written (and again under `slicegen validate`).

For each place the drop runs (the emulated core; plus the host for `portable`):
all cases of the two NIST CAVP files of its key size (FAIL cases must return -1 with a zeroed
output), the McGrew-Viega cases, and random cases against pyca/cryptography.
"""
from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from emu.checks import vectors

from emu.checks import differential
from emu.checks.runner import EmuRunner, HostRunner
from emu.machines.toolchain import build_firmware, build_host_library

DIFFERENTIAL_CASES = 240


class ValidationError(Exception):
    """The drop gave a wrong answer; the message lists the first failing cases."""


@dataclass
class Report:
    nist_passed: int = 0
    nist_failed: int = 0
    nist_files: list[str] = field(default_factory=list)
    differential_cases: int = 0
    spec_cases: int = 0
    places: list[str] = field(default_factory=list)
    max_stack: int = 0
    failures: list[str] = field(default_factory=list)
    kat_passed: int = 0            # block-cipher drops: the cipher's known answers (emu/checks/blockcipher.py)
    kat_source: str = ""
    face_cache_cases: int = 0      # FACE drops: cases through the *_cached calls (emu/bench/face_cache.py)

    def summary(self) -> str:
        if self.kat_source:
            return (f"{self.kat_passed} known answers and {self.differential_cases} random cases "
                    f"against the reference model passed")
        cached = f"; {self.face_cache_cases} cached-FACE cases passed" if self.face_cache_cases else ""
        return (f"NIST {self.nist_passed} passed, {self.nist_failed} failed; {self.spec_cases} spec "
                f"and {self.differential_cases} differential cases passed{cached}")

    def manifest(self) -> dict:
        if self.kat_source:        # a cipher NIST's CAVP files do not cover
            # SPEC section 4 asks every manifest for validation.nist_vectors: here it says, truthfully,
            # that no NIST file exists for the cipher, and known_answers names what was run instead.
            return {"nist_vectors": {"passed": 0, "failed": 0, "files": [],
                                     "note": "NIST CAVP publishes no vectors for this cipher; see known_answers"},
                    "known_answers": {"passed": self.kat_passed, "source": self.kat_source},
                    "differential_cases": self.differential_cases, "places": self.places}
        out = {"nist_vectors": {"passed": self.nist_passed, "failed": self.nist_failed,
                                "files": self.nist_files},
               "differential_cases": self.differential_cases,
               "places": self.places}
        if self.face_cache_cases:
            out["face_cache_cases"] = self.face_cache_cases
        return out


def alignment_flags(i: int) -> int:
    """Vary in-place use and misalignment from case to case (bits as in emu/machines/driver.c)."""
    return ((i % 7 == 3) & 1) | (((i >> 1) % 4) << 1) | (((i >> 3) % 4) << 3)


def progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(msg, file=sys.stderr, flush=True)


def run_checks(runner, place: str, keybits: int, seed: int, report: Report,
               differential_cases: int = DIFFERENTIAL_CASES) -> None:
    t0 = time.time()
    for fname, cases in vectors.nist_cases(keybits, alignment_flags).items():
        progress(f"  {place}: {fname} ({len(cases)} cases)")
        for case, (rc, out, tag) in zip(cases, runner.run(cases)):
            problem = vectors.check(case, rc, out, tag)
            if problem:
                report.nist_failed += 1
                report.failures.append(f"{place}: {case.label}: {problem}")
            else:
                report.nist_passed += 1
        if fname not in report.nist_files:
            report.nist_files.append(fname)
    for label, cases in (("spec", vectors.spec_cases(keybits)),
                         ("differential", differential.random_cases(keybits, differential_cases, seed))):
        progress(f"  {place}: {label} ({len(cases)} cases)")
        for case, (rc, out, tag) in zip(cases, runner.run(cases)):
            problem = vectors.check(case, rc, out, tag)
            if problem:
                report.failures.append(f"{place}: {case.label}: {problem}")
        if label == "spec":
            report.spec_cases += len(cases)
        else:
            report.differential_cases += len(cases)
    report.places.append(place)
    progress(f"  {place}: done in {time.time() - t0:.1f} s")


def validate(header_path: Path, prefix: str, target: str, keybits: int, config_sha256: str,
             workdir: Path, firmware=None, differential_cases: int = DIFFERENTIAL_CASES,
             second_place=None) -> Report:
    report = Report()
    seed = int(hashlib.sha256(config_sha256.encode()).hexdigest()[:8], 16)
    fw = firmware or build_firmware(header_path, prefix, target, workdir)
    emu_runner = EmuRunner(fw)
    run_checks(emu_runner, f"emulated {fw.core}", keybits, seed, report, differential_cases)
    report.max_stack = emu_runner.max_stack
    if target == "portable":
        run_checks(HostRunner(build_host_library(header_path, prefix, workdir)), "host", keybits, seed, report)
    elif second_place is not None:          # e.g. qemu-aarch64 for armv8a (emu/checks/qemu.py)
        name, runner = second_place
        run_checks(runner, name, keybits, seed, report, differential_cases)
    if report.failures:
        shown = "\n  ".join(report.failures[:10])
        more = f"\n  ... and {len(report.failures) - 10} more" if len(report.failures) > 10 else ""
        raise ValidationError(f"{len(report.failures)} failing cases:\n  {shown}{more}")
    return report
