"""`slicegen explore`: search instruction schedules, keep the fastest valid one.

The Thumb-2 AES kernel's list scheduler and register allocator break ties with a seed
(`[schedule] seed`). Exploring scores the configuration's own seed (the baseline) and `budget`
consecutive seeds from `--seed` with the project's timing table (the same one the cycle model
uses), in a local process pool of `--jobs` workers, then builds the winner through the whole
pipeline — compile, every NIST vector, differential cases, constant-time check — so the drop it
writes is as valid as any other. The winner has the fewest modelled cycles; a tie goes to the
baseline, then to the earlier seed, so explore never writes a drop slower than the one it
started from.

Every candidate is one JSON line of the results log, in candidate order: the same seed and
budget give the same lines whatever `--jobs` is, except the fields in `VOLATILE` (which process
scored it, how long it took). `--resume` keeps the lines already there and scores only the rest.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from gen.config import Config
from gen.errors import ConfigError
from gen.kernels.aes import compact_thumb2 as aes_compact_thumb2, thumb2 as aes_thumb2

SCHEDULED_TARGETS = ("cortex-m4", "cortex-m3")

#: fields of a log line that are not reproduced by a second run
VOLATILE = ("worker", "seconds")


def schedule_cycles(config: Config, seed: int) -> int:
    return score(config, seed)["cycles"]


def score(config: Config, seed: int) -> dict:
    """One candidate's log line: modelled cycles of one encrypt2 call (objective size: of one pair's
    segments in the looped kernel, gen/kernels/aes/compact_thumb2.py), spill stores, instructions."""
    t0 = time.perf_counter()
    if config.objective == "size" and config.face == "off":
        k = aes_compact_thumb2.thumb2(config.prefix, 8 * config.spec.key_bytes, config.slicing, config.target, seed)
        st = {"cycles": k.pair_segment_cycles, "spills": k.spills, "instructions": k.instructions}
    else:
        code = aes_thumb2.thumb2(config.prefix, 8 * config.spec.key_bytes, config.slicing, config.target, seed)
        st = code.stats["thumb2"]
    return {"config": config.name, "candidate": seed, "cycles": st["cycles"], "spills": st["spills"],
            "instructions": st["instructions"], "worker": f"pid {os.getpid()}",
            "seconds": round(time.perf_counter() - t0, 3)}


def reproducible(line: dict) -> dict:
    """A log line without its `VOLATILE` fields: what a second run must give again."""
    return {k: v for k, v in line.items() if k not in VOLATILE}


def check(config: Config, budget: int, first_seed: int, jobs: int = 1) -> None:
    """Bad input raises ConfigError before anything is scored or written."""
    if config.target not in SCHEDULED_TARGETS:
        raise ConfigError(f"explore needs a scheduled target ({', '.join(SCHEDULED_TARGETS)}); "
                          f"{config.name} is {config.target}")
    if not 1 <= budget <= 10000:
        raise ConfigError("--budget must be between 1 and 10000")
    if first_seed < 0 or first_seed + budget > 2**32:
        raise ConfigError("--seed must be in 0..2^32-1 (and seed + budget too)")
    if jobs < 1:
        raise ConfigError(f"--jobs {jobs}: give a number of processes >= 1")


def candidates(config: Config, budget: int, first_seed: int) -> list[int]:
    """The baseline (the configuration's own seed) first, then the seeds tried."""
    return [config.seed] + [s for s in range(first_seed, first_seed + budget) if s != config.seed]


def read_log(path: Path) -> dict[int, dict]:
    """The complete lines of a results log by candidate (a line cut short by an interrupt is dropped)."""
    done = {}
    if path.is_file():
        for text in path.read_text().splitlines():
            try:
                line = json.loads(text)
                done[int(line["candidate"])] = line
            except (ValueError, KeyError, TypeError):
                continue
    return done


def search(config: Config, budget: int, first_seed: int, jobs: int = 1, log: Path | None = None,
           resume: bool = False, say=lambda msg: None) -> list[dict]:
    """Score every candidate (baseline first) -> their log lines in candidate order. With `log`,
    the lines are (re)written there as they come; with `resume`, lines already in it are kept
    and their candidates not scored again."""
    check(config, budget, first_seed, jobs)
    todo = candidates(config, budget, first_seed)
    done = read_log(log) if (log is not None and resume) else {}
    for line in done.values():
        if line.get("config") != config.name:
            raise ConfigError(f"--resume: {log} is a log of {line.get('config')!r}, not {config.name!r}")
    done = {seed: line for seed, line in done.items() if seed in todo}
    missing = [seed for seed in todo if seed not in done]
    out = None
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        out = log.open("w")
        for seed in todo:
            if seed in done:
                out.write(json.dumps(done[seed]) + "\n")
        out.flush()
    pool = None
    try:
        if jobs == 1 or len(missing) < 2:
            scored = (score(config, seed) for seed in missing)
        else:
            from concurrent.futures import ProcessPoolExecutor
            pool = ProcessPoolExecutor(max_workers=min(jobs, len(missing)))
            scored = pool.map(score, [config] * len(missing), missing)
        for i, line in enumerate(scored):
            done[line["candidate"]] = line
            if out is not None:
                out.write(json.dumps(line) + "\n")
                out.flush()
            say(f"  seed {line['candidate']}: {line['cycles']} cycles ({i + 1}/{len(missing)})")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if out is not None:
            out.close()
    if log is not None:   # candidate order, whatever was resumed: the file a fresh run writes
        log.write_text("".join(json.dumps(done[seed]) + "\n" for seed in todo))
    return [done[seed] for seed in todo]


def best(lines: list[dict], baseline: int) -> dict:
    """Fewest cycles; a tie goes to the baseline, then to the earlier line."""
    return min(enumerate(lines), key=lambda il: (il[1]["cycles"], il[1]["candidate"] != baseline, il[0]))[1]


def table(lines: list[dict], winner: dict, baseline: int) -> str:
    rows = [("candidate", "cycles", "spills", "")]
    for line in lines:
        mark = ["best"] if line is winner else []
        mark += ["baseline"] if line["candidate"] == baseline else []
        rows.append((str(line["candidate"]), str(line["cycles"]), str(line["spills"]), ", ".join(mark)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    text = ["  ".join(c.rjust(w) if i < 3 else c for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]
    text.insert(1, "  ".join("-" * w for w in widths[:3]))
    return "\n".join(text)


def explore(config: Config, command: str, budget: int, first_seed: int, out_dir: Path,
            jobs: int = 1, log: Path | None = None, resume: bool = False):
    from gen.build import build
    from emu.validate import progress
    check(config, budget, first_seed, jobs)
    log = log if log is not None else out_dir / f"explore-{config.name}.jsonl"
    lines = search(config, budget, first_seed, jobs, log, resume, progress)
    winner = best(lines, config.seed)
    base = lines[0]["cycles"]
    assert winner["cycles"] <= base
    chosen = dataclasses.replace(config, seed=winner["candidate"])
    result = build(chosen, command, out_dir)
    print(table(lines, winner, config.seed))
    print(f"{config.name}: {len(lines)} schedules (seed {config.seed} and {budget} from {first_seed}); best seed {winner['candidate']}: {winner['cycles']} cycles "
          f"per encrypt2 ({winner['cycles'] / 32:.2f} c/B); the config's seed {config.seed}: {base} cycles")
    print(f"wrote {result.path} (schedule seed {winner['candidate']}), log {log}; its config:", file=sys.stderr)
    print(chosen.toml(), end="", file=sys.stderr)
    return lines, result
