"""`make fuzz` (python -m tests.fuzz.run): build every libFuzzer target of tests/fuzz/targets.py,
run each for --seconds on one core from its committed corpus, then merge into
tests/fuzz/corpus/<name>/ only the inputs that add coverage (so it stays small), and print the
figures docs/reliability.md records: executions, execs/s, edges (libFuzzer's `cov`), features.
--replay runs the committed corpus once and stops. --live runs the bounded live mode instead
(tests/fuzz/live.py: every input also on emulated Cortex-M4 and M3 drops; --runs bounds it by
executions too; the corpus is only read). A divergence or a sanitizer report stops the run with
libFuzzer's crash file in the build folder and exit status 1."""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz import live, targets

BUILD = Path(__file__).resolve().parents[2] / "build" / "fuzz"
FLAGS = ["-timeout=20", "-rss_limit_mb=2048", "-print_final_stats=1", "-max_len=600"]


@dataclass
class Figures:
    name: str
    ok: bool
    execs: int
    per_sec: int
    edges: int
    features: int
    counters: int                      # instrumented edges in the program (drops, harness, oracle glue)
    log: Path


def _figures(name: str, proc: subprocess.CompletedProcess, log: Path) -> Figures:
    text = proc.stderr
    log.write_text(text)

    def stat(key):
        m = re.search(rf"stat::{key}:\s*(\d+)", text)
        return int(m.group(1)) if m else 0

    cov = re.findall(r"cov: (\d+) ft: (\d+)", text)
    edges, feats = map(int, cov[-1]) if cov else (0, 0)
    counters = sum(map(int, re.findall(r"\((\d+) inline 8-bit counters\)", text)))
    return Figures(name, proc.returncode == 0, stat("number_of_executed_units"),
                   stat("average_exec_per_sec"), edges, feats, counters, log)


def fuzz(exe: Path, target: targets.Target, seconds: int, seed: int, work: Path, keep=True) -> Figures:
    """Fuzz for `seconds` from a copy of the committed corpus; with `keep`, merge the inputs that
    add coverage back into it."""
    grown = work / "grown"
    shutil.rmtree(grown, ignore_errors=True)
    if target.corpus.is_dir():
        shutil.copytree(target.corpus, grown)
    else:
        grown.mkdir()
    proc = subprocess.run([str(exe), *FLAGS, f"-seed={seed}", f"-max_total_time={seconds}",
                           f"-artifact_prefix={work}/", str(grown)], capture_output=True, text=True,
                          timeout=seconds + 120)
    figs = _figures(target.name, proc, work / "fuzz.log")
    if figs.ok and keep:
        target.corpus.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(exe), "-merge=1", *FLAGS[:2], str(target.corpus), str(grown)],
                       capture_output=True, text=True, timeout=600)
    return figs


def replay(exe: Path, target: targets.Target, work: Path) -> Figures:
    proc = subprocess.run([str(exe), *FLAGS, "-runs=0", str(target.corpus)], capture_output=True,
                          text=True, timeout=600)
    return _figures(target.name, proc, work / "replay.log")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=60, help="per target")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replay", action="store_true", help="run the committed corpus once")
    ap.add_argument("--target", action="append", choices=sorted(targets.TARGETS),
                    help="default: all (with --live: gcm_portable, face_portable)")
    ap.add_argument("--live", action="store_true", help="the bounded live mode (tests/fuzz/live.py)")
    ap.add_argument("--runs", type=int, default=0, help="with --live: stop after this many executions too")
    ap.add_argument("--seeds", type=int, default=None,
                    help="with --live: start from the first N inputs of the corpus (default: all)")
    args = ap.parse_args(argv)
    if args.live:
        return main_live(args)
    rows = []
    for name in args.target or sorted(targets.TARGETS):
        t = targets.TARGETS[name]
        work = BUILD / name
        work.mkdir(parents=True, exist_ok=True)
        exe = targets.build(t, work)
        figs = replay(exe, t, work) if args.replay else fuzz(exe, t, args.seconds, args.seed, work)
        rows.append(figs)
        print(f"{name:22} {'ok' if figs.ok else 'FAILED':6} executions {figs.execs:>10}  "
              f"execs/s {figs.per_sec:>6}  edges {figs.edges:>5}/{figs.counters}  features {figs.features:>6}  "
              f"corpus {len(list(t.corpus.glob('*')))}", flush=True)
        if not figs.ok:
            print(f"  see {figs.log} and the crash file in {work}", file=sys.stderr)
    return 0 if all(r.ok for r in rows) else 1


def main_live(args) -> int:
    ok = True
    for name in args.target or sorted(live.WORKERS):
        if name not in live.WORKERS:
            raise SystemExit(f"--live runs {', '.join(sorted(live.WORKERS))}, not {name}")
        t = targets.TARGETS[name]
        work = BUILD / f"{name}-live"
        work.mkdir(parents=True, exist_ok=True)
        exe = targets.build(t, work)
        figs = live.run_live(exe, t, live.WORKERS[name](work), args.seconds, args.seed, work, args.runs, args.seeds)
        ok &= figs.ok
        print(f"{name:14} {'ok' if figs.ok else 'FAILED':6} executions {figs.served:>8}, on the emulated drops "
              f"{figs.emulated:>8}, in {figs.seconds:.0f} s ({figs.per_sec:.1f}/s; {figs.emulated_seconds:.0f} s "
              f"in the worker)", flush=True)
        if not figs.ok:
            print(f"  {figs.failure or 'see ' + str(figs.log)}; the crash file is in {work}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
