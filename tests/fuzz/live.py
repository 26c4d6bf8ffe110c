"""The bounded live mode of the fuzzing (issue 33): the host fuzzer drives the emulated Cortex-M
drops input by input. libFuzzer runs tests/fuzz/gcm_portable.c or face_portable.c as always
(coverage and checks of the portable drop against OpenSSL and SP 800-38D, or the cache's model),
and their tests/fuzz/live.h, switched on by SG_LIVE_FDS, hands each input, as it is generated,
over a pipe to the worker in this process. The worker decodes it as the target did (tests/fuzz/emu_replay.py,
emu_face_replay.py; the target sends its decoding, and a difference is a failure), runs it in
Unicorn on a Cortex-M4 and a Cortex-M3 drop (each on its own CPU model) and compares with the
portable drop on the host, which the same execution has just checked against the oracle. A
disagreement is answered as a failure: the target aborts and libFuzzer keeps the input.
Bounded by seconds and/or executions, seeded: `python -m tests.fuzz.run --live` / `make fuzz-live`."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from emu.bench.face_cache import CachedDrop
from emu.checks.runner import EmuRunner, HostRunner
from emu.machines import toolchain
from emu.machines.machine import EmulationError
from tests import hostbuild
from tests.fuzz import emu_face_replay, emu_replay, targets

#: key bytes -> (a Cortex-M4 drop, a Cortex-M3 drop): the speed drop with the lean one-shot path,
#: FACE r1 and r2, the sfs slicing, the ctmul GHASH
GCM_EMULATED = {16: ("aes128gcm-m4-ffs", "aes128gcm-m3-ffs-face-r2"),
                24: ("aes192gcm-m4-ffs-face-r1", "aes192gcm-m3-ffs"),
                32: ("aes256gcm-m4-ffs-face-r2", "aes256gcm-m3-sfs")}
FACE_EMULATED = ("aes128gcm-m4-ffs-face-r2", "aes128gcm-m3-ffs-face-r2")
PORTABLE = {16: "aes128gcm-portable", 24: "aes192gcm-portable", 32: "aes256gcm-portable"}

#: (preset, header text) -> header text: how a test plants a bug in an emulated drop only
Mutate = Callable[[str, str], str]


def _render(preset: str, work: Path, mutate: Mutate | None) -> hostbuild.Header:
    hdr = hostbuild.render(preset, work)
    if mutate is not None:
        hdr.path.write_text(mutate(preset, hdr.path.read_text()))
    return hdr


def _host(preset: str, work: Path) -> HostRunner:
    work.mkdir(parents=True, exist_ok=True)
    ref = hostbuild.render(preset, work)
    return HostRunner(toolchain.build_host_library(ref.path, ref.prefix, work))


class GcmWorker:
    """gcm_portable's inputs on the emulated drops of their key size (GCM_EMULATED)."""

    def __init__(self, work: Path, mutate: Mutate | None = None, drops=GCM_EMULATED):
        self.hosts, self.emus, self.emulated = {}, {}, 0
        for keylen, names in drops.items():
            self.hosts[keylen] = _host(PORTABLE[keylen], work / PORTABLE[keylen])
            self.emus[keylen] = []
            for name in names:
                (work / name).mkdir(parents=True, exist_ok=True)
                hdr = _render(name, work / name, mutate)
                fw = toolchain.build_firmware(hdr.path, hdr.prefix, hdr.config.target, work / name)
                self.emus[keylen].append((name, EmuRunner(fw)))

    def check(self, data: bytes, decoded: tuple) -> str | None:
        d = emu_replay.decode(data)
        mine = (d.op, d.keylen, d.ivlen, len(d.aad), len(d.msg), d.taglen)
        if tuple(decoded) != mine:
            return f"the decoders disagree: C {tuple(decoded)}, Python {mine}"
        if d.keylen not in self.emus:     # a worker given fewer drops (the CI slice): not run
            return None
        self.emulated += 1
        host = self.hosts[d.keylen]
        case = emu_replay.cases([d], host)[0]
        want = host.run([case])
        for name, emu in self.emus[d.keylen]:
            bad = emu_replay.mismatches([case], want, emu.run([case]))
            if bad:
                return f"{name} ({emu.firmware.core}): {bad[0]}"
        return None


class FaceWorker:
    """face_portable's call sequences on the emulated FACE r2 drops (FACE_EMULATED), one cache and two
    ctx kept in emulated RAM across an input's steps (tests/fuzz/emu_face_replay.py)."""

    def __init__(self, work: Path, mutate: Mutate | None = None, drops=FACE_EMULATED):
        host = _host(PORTABLE[16], work / PORTABLE[16])
        self.replays, self.emulated = [], 0
        for name in drops:
            (work / name).mkdir(parents=True, exist_ok=True)
            hdr = _render(name, work / name, mutate)
            drop = CachedDrop(hdr.path, hdr.prefix, hdr.config.target, work / name / "fw")
            self.replays.append((name, emu_face_replay.FaceReplay(drop, host)))

    def check(self, data: bytes, decoded: tuple) -> str | None:
        self.emulated += 1
        for name, replay in self.replays:
            errors = replay.run(data)
            if errors:
                return f"{name} ({replay.d.fw.core}): {errors[0]}"
            if (replay.step,) != tuple(decoded):
                return f"the decoders disagree: C {decoded[0]} steps, Python {replay.step}"
        return None


WORKERS = {"gcm_portable": GcmWorker, "face_portable": FaceWorker}


@dataclass
class LiveFigures:
    name: str
    ok: bool
    served: int            # inputs the fuzzer handed to the worker
    emulated: int          # of which run on emulated drops
    seconds: float         # wall time of the whole run
    emulated_seconds: float
    failure: str
    log: Path

    @property
    def per_sec(self) -> float:
        return self.emulated / self.seconds if self.seconds else 0.0


def _read(f, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = f.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def run_live(exe: Path, target: targets.Target, worker, seconds: int, seed: int, work: Path,
             runs: int = 0, seeds: int | None = None) -> LiveFigures:
    """libFuzzer on `exe` for `seconds` (and at most `runs` inputs, if given) from a copy of the
    plain target's corpus (its first `seeds` inputs, in name order, if given), every input also
    through `worker`. The corpus is not written: the live mode checks the emulated drops, it does
    not grow the corpus (`make fuzz` does)."""
    from tests.fuzz.run import FLAGS, _figures
    grown = work / "live-corpus"
    shutil.rmtree(grown, ignore_errors=True)
    grown.mkdir(parents=True)
    for path in sorted(target.corpus.iterdir())[:seeds]:
        shutil.copy(path, grown / path.name)
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    env = dict(os.environ, SG_LIVE_FDS=f"{rep_r},{req_w}")
    log = work / "live.log"
    cmd = [str(exe), *FLAGS, f"-seed={seed}", f"-max_total_time={seconds}", f"-artifact_prefix={work}/",
           *([f"-runs={runs}"] if runs else []), str(grown)]
    start = time.monotonic()
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, pass_fds=(rep_r, req_w), env=env)
    os.close(rep_r)
    os.close(req_w)
    served, emulated, failure = 0, 0.0, ""
    with os.fdopen(req_r, "rb", buffering=0) as requests, os.fdopen(rep_w, "wb", buffering=0) as replies:
        while (head := _read(requests, 8)) is not None:
            size, n = struct.unpack("<2I", head)
            decoded = struct.unpack(f"<{n}I", _read(requests, 4 * n) or b"") if n else ()
            data = _read(requests, size) if size else b""
            t0 = time.monotonic()
            try:
                msg = worker.check(data, decoded)
            except EmulationError as e:      # a stray access, no return: a finding too
                msg = f"emulation error: {e}"
            except Exception as e:           # the worker's own failure must not pass as agreement
                msg = f"worker error: {e!r}"
            emulated += time.monotonic() - t0
            served += 1
            if msg:
                failure = failure or msg
            text = (msg or "").encode()
            try:
                replies.write(struct.pack("<2I", 1 if msg else 0, len(text)) + text)
            except BrokenPipeError:
                break
    proc.wait(timeout=seconds + 600)
    figs = _figures(target.name, subprocess.CompletedProcess(cmd, proc.returncode, "", log.read_text()), log)
    return LiveFigures(target.name, figs.ok and not failure, served, worker.emulated, time.monotonic() - start,
                       emulated, failure, log)
