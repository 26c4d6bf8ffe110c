"""`slicegen` (also `python -m gen`): list, build, validate, bench, explore. See SPEC §2.

Exit status: 0 success, 1 a check failed (nothing written), 2 bad input (one line on stderr),
141 stdout was closed by its reader (`slicegen list | head`; quietly, no traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from gen import presets
from gen.config import Config, load_toml
from gen.version import GENERATOR_VERSION
from gen.errors import ConfigError


def resolve(arg: str) -> tuple[Config, str]:
    """A preset name or a TOML path -> (config, the command recorded in the banner)."""
    if arg.endswith(".toml"):
        return load_toml(arg), f"slicegen build {Path(arg).name}"
    return presets.preset(arg), f"slicegen build {arg}"


def check_failures() -> tuple[type[Exception], ...]:
    """What a failed generation, compile, validation, constant-time check or benchmark raises:
    reported as exit 1 with nothing written (bad input is ConfigError, exit 2)."""
    from emu.machines.toolchain import BuildError
    from emu.checks.validate import ValidationError
    from emu.machines.machine import EmulationError
    from emu.bench.drop import BenchError
    from gen.build import ConstantTimeError
    return BuildError, ValidationError, EmulationError, BenchError, ConstantTimeError


def cmd_list(args) -> int:
    for c in presets.all_presets():
        if args.names:
            print(c.name)
            continue
        opts = " ".join(f"{k}={v}" for k, v in c.options().items() if k != "seed") or "-"
        ct = "constant-time" if c.constant_time else "NOT constant-time"
        default = " (default)" if c.name in presets.DEFAULTS else ""
        print(f"{c.name:28s} {c.cipher:11s} {c.mode:4s} {c.target:10s} {opts:34s} {ct}{default}")
    return 0


def summary_table(results) -> str:
    rows = [("drop", "known answers passed", "constant-time", ".text bytes", "stack bytes")]
    for r in results:
        m = r.manifest
        v = m["validation"]
        kat = v["known_answers"]["passed"] if "known_answers" in v else v["nist_vectors"]["passed"]
        rows.append((m["name"], f"{kat} ({'cipher KAT' if 'known_answers' in v else 'NIST'})",
                     m["validation"]["constant_time_check"], str(m["metrics"]["text_bytes"]),
                     str(m["metrics"]["stack_bytes"])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_build(args) -> int:
    from gen.build import build
    names = list(args.configs) + (presets.DEFAULTS if args.defaults else [])
    if not names:
        raise ConfigError("build needs a PRESET or FILE.toml (or --defaults); see `slicegen list`")
    todo = [resolve(n) for n in names]            # all input is checked before anything is built
    seen = set()
    for config, _ in todo:
        if config.name in seen:
            raise ConfigError(f"two configurations are named {config.name!r}")
        seen.add(config.name)
    jobs = args.jobs
    if jobs < 1:
        raise ConfigError(f"--jobs {jobs}: give a number of processes >= 1")
    results = {}
    if jobs == 1:
        for config, command in todo:
            try:
                results[config.name] = build(config, command, Path(args.output))
            except check_failures() as exc:
                return _build_failed(config.name, exc)
            print(f"built {results[config.name].path}", file=sys.stderr)
    else:                 # each drop is built (and written) by one worker; the output is the same
        from concurrent.futures import ProcessPoolExecutor, as_completed
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(build, config, command, Path(args.output)): config.name
                       for config, command in todo}
            for fut in as_completed(futures):
                name = futures[fut]
                try:
                    results[name] = fut.result()
                except check_failures() as exc:
                    for other in futures:
                        other.cancel()
                    return _build_failed(name, exc)
                print(f"built {results[name].path}", file=sys.stderr)
    print(summary_table([results[config.name] for config, _ in todo]))
    return 0


def _build_failed(name: str, exc: Exception) -> int:
    print(f"slicegen: {name}: {exc}", file=sys.stderr)
    print(f"slicegen: {name}: nothing written", file=sys.stderr)
    return 1


def cmd_validate(args) -> int:
    from gen.drop.write import read_drop
    from emu.checks import scenarios
    from emu.checks.validate import ValidationError
    status = 0
    for d in args.drops:
        d = Path(d)
        if not (d / "manifest.json").is_file():
            raise ConfigError(f"{d}: not a drop (no manifest.json)")
        header, manifest = read_drop(d)
        with tempfile.TemporaryDirectory(prefix="slicegen-") as tmp:
            hpath = Path(tmp) / f"{manifest['name']}.h"
            hpath.write_text(header)
            for cipher in scenarios.cipher_names(manifest):     # a multi-key drop: each key size
                drop = scenarios.drop_from_manifest(hpath, manifest, cipher)
                what = manifest["name"] + (f" ({cipher})" if manifest["cipher"] != cipher else "")
                scenario = scenarios.for_mode(drop.mode)
                work = Path(tmp) / cipher
                work.mkdir()
                fw = scenario.firmware(drop, work)
                try:
                    report = scenario.validate(drop, work, fw)
                except ValidationError as exc:
                    print(f"slicegen: {d}: FAILED: {exc}", file=sys.stderr)
                    status = 1
                    break
                ct = scenario.constant_time(drop, work, fw)
                claimed = manifest["validation"].get("constant_time_check")
                if ct.status != claimed or (manifest["constant_time"] and not ct.verified):
                    print(f"slicegen: {d}: FAILED: the manifest says constant_time={manifest['constant_time']}, "
                          f"check {claimed!r}; the checker says {ct.status}:\n{ct}", file=sys.stderr)
                    status = 1
                    break
                print(f"{what}: {report.summary()} ({', '.join(report.places)}); "
                      f"constant-time check: {ct.status}")
    return status


def cmd_bench(args) -> int:
    from gen.cli.bench import cmd_bench as run_bench
    return run_bench(args)


def cmd_explore(args) -> int:
    from gen.explore import search as explore
    from gen.explore import alloc as explore_alloc
    from gen.explore import circuit as explore_circuit
    from gen.explore import orders as explore_orders
    config, _ = resolve(args.config)
    command = f"slicegen explore {Path(args.config).name if args.config.endswith('.toml') else args.config} " \
              f"--budget {args.budget} --seed {args.seed}"
    if args.space == "orders":
        args.kind = args.kind or explore_orders.default_kind(config)
        command += f" --space orders --kind={args.kind} --iters {args.iters} --cost {args.cost}"
        command += f" --cpsat {args.cpsat:g}" if args.cpsat else ""
        command += f" --from-op {args.from_op}" if args.from_op else ""
        command += " --write-orders" if args.write_orders else ""
    else:
        if args.kind or args.cpsat or args.from_op:
            raise ConfigError("--kind, --cpsat and --from-op belong to --space orders")
        if args.write_orders and args.space != "circuit":
            raise ConfigError("--write-orders belongs to --space orders and --space circuit")
        if args.space == "circuit":
            command += " --space circuit" + (" --write-orders" if args.write_orders else "")
    log = Path(args.log) if args.log else None
    try:
        if args.space == "alloc":
            explore_alloc.explore(config, command + " --space alloc", args.budget, Path(args.output), args.jobs, log,
                                  args.resume, args.scheduler)
        elif args.space == "circuit":
            explore_circuit.explore(config, command, args.budget, Path(args.output), args.jobs, log, args.resume,
                                    args.scheduler, args.write_orders)
        elif args.space == "orders":
            explore_orders.explore(config, command, args.kind, args.iters, args.cost, args.budget,
                                   args.seed, Path(args.output), args.jobs, log, args.resume, args.scheduler, args.write_orders, args.cpsat,
                                   args.from_op)
        else:
            explore.explore(config, command, args.budget, args.seed, Path(args.output), args.jobs, log,
                            args.resume, args.scheduler)
    except check_failures() as exc:
        print(f"slicegen: {config.name}: {exc}\nslicegen: {config.name}: nothing written", file=sys.stderr)
        return 1
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="slicegen",
        description="generator of constant-time bitsliced cipher drops (AES-GCM, Rijndael-256, SPEEDY) "
                    "for Cortex-M3/M4, ARMv8-A and portable C, each proven in emulation before it is written")
    p.add_argument("--version", action="version", version=f"slicegen {GENERATOR_VERSION}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="the presets")
    s.add_argument("--names", action="store_true", help="names only")
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("build", help="generate, compile, validate, measure; write the drop if all passed")
    s.add_argument("configs", nargs="*", metavar="PRESET|FILE.toml")
    s.add_argument("-o", "--output", default="out", help="output folder (default: out)")
    s.add_argument("--defaults", action="store_true", help="also build every default preset")
    s.add_argument("-j", "--jobs", type=int, default=1, help="drops built at once, one process each (default 1)")
    s.set_defaults(func=cmd_build)
    s = sub.add_parser("validate", help="re-run the checks on existing drops")
    s.add_argument("drops", nargs="+", metavar="DROP_DIR")
    s.set_defaults(func=cmd_validate)
    s = sub.add_parser("bench", help="cycles per message size, code size, RAM, stack (cycle model)")
    s.add_argument("drops", nargs="+", metavar="DROP_DIR")
    s.add_argument("--plot", metavar="FILE.png", help="draw cycles/byte against message size")
    s.set_defaults(func=cmd_bench)
    s = sub.add_parser("explore", help="search instruction schedules, build the fastest valid one")
    s.add_argument("config", metavar="PRESET|FILE.toml")
    s.add_argument("--budget", type=int, default=16, help="how many schedule seeds to try (default 16)")
    s.add_argument("--seed", type=int, default=0, help="the first seed (default 0)")
    s.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="candidates scored at once, one process each (default: the local cores)")
    s.add_argument("--log", metavar="FILE.jsonl",
                   help="results log, one JSON line per candidate (default: OUTPUT/explore-NAME.jsonl)")
    s.add_argument("--resume", action="store_true", help="keep the candidates already in the log, score the rest")
    s.add_argument("-o", "--output", default="explored", help="output folder (default: explored)")
    s.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="score candidates on this Dask cluster (dask.distributed) instead of --jobs processes")
    s.add_argument("--space", choices=("seeds", "orders", "alloc", "circuit"), default="seeds",
                   help="seeds: tie-break seeds of the scheduler (every scheduled kernel); orders: annealing "
                        "chains over one segment's evaluation order (the AES and Rijndael-256 kernels); alloc: "
                        "the register allocator's eviction knobs (the AES kernel; --budget policies); circuit: "
                        "the AES encrypt2 kernel's S-box circuit (every proven one; --budget after the stored)")
    s.add_argument("--kind", help="--space orders: the segment kind (default the S-box segment of the stored circuit, "
                   "e.g. ark+sbox@bpc113, and fpu:ark+sbox@bpc113 with spill = \"fpu\"; size: loop:ark+sbox; "
                   "Rijndael-256: its first linear kind)")
    s.add_argument("--iters", type=int, default=200, help="--space orders: annealing steps per chain (default 200)")
    s.add_argument("--cost", choices=("segment", "kernel", "live"), default="segment",
                   help="--space orders: a chain's cost, the segment's cycles alone, the whole kernel's, or "
                        "the whole kernel's plus the segment's live-value peak above the registers")
    s.add_argument("--cpsat", type=float, metavar="TIME",
                   help="--space orders: also the order of least register pressure by OR-Tools CP-SAT, within this "
                        "deterministic time (reproducible); --budget 0 for CP-SAT alone")
    s.add_argument("--from-op", type=int, default=0, metavar="N",
                   help="--space orders: only the segment's ops from N on move (another S-box circuit's order "
                        "keeps the top and middle it shares with the reference one: ark+sbox@bpc113 --from-op 80)")
    s.add_argument("--write-orders", action="store_true",
                   help="--space orders: rewrite the kernel's orders file (gen/kernels/aes/thumb2_orders.py, "
                        "gen/kernels/rijndael256/thumb2_orders.py) with the winner; --space circuit: its CIRCUIT")
    s.set_defaults(func=cmd_explore)
    return p



#: exit status when the reader of stdout went away (`slicegen list | head`): 128 + SIGPIPE, what
#: the shell reports for a C filter that SIGPIPE ended
EXIT_BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    """Run one command. A closed stdout (a pipe whose reader exited) ends it quietly: no
    traceback, status ``EXIT_BROKEN_PIPE``."""
    try:
        status = run_command(argv)
        sys.stdout.flush()            # inside the try: buffered output meets a closed pipe here
        return status
    except BrokenPipeError:
        # Python would flush stdout again at exit and print an error: point it at /dev/null
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def run_command(argv: list[str] | None) -> int:
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:     # argparse already printed its one-line usage error
        return 2 if exc.code else 0
    try:
        return args.func(args)
    except ConfigError as exc:
        print(f"slicegen: {exc}", file=sys.stderr)
        return 2
