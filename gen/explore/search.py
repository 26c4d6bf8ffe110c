"""`slicegen explore`: search instruction schedules, keep the fastest valid one.

This module is the seed space (the default) and what every space shares: `run` scores candidates
where gen/explore/pool.py says and keeps the JSON-lines results log; the winner (ties: the
baseline, then the earlier seed) is built through the whole pipeline, so explore never writes a
drop slower than the one it started from.  Results are the same whatever `--jobs`/`--scheduler`
(but ``VOLATILE``); `--resume` scores only the rest.  More: docs/internals/explorer.md.
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
from gen.explore.pool import check_scheduler, ordered
from gen.kernels import block_ctr_thumb2
from gen.kernels.aes import compact_thumb2 as aes_compact_thumb2, ecb_thumb2 as aes_ecb_thumb2
from gen.kernels.aes.breakdown import breakdown, describe

SCHEDULED_TARGETS = ("cortex-m4", "cortex-m3")

#: fields of a log line that are not reproduced by a second run
VOLATILE = ("worker", "seconds")


def schedule_cycles(config: Config, seed: int) -> int:
    return score(config, seed)["cycles"]


def objective(config: Config) -> str:
    """The figure a seed search minimizes: AES-GCM's ECB loop step, a pair in aes_encrypt_pairs
    (ecb_encrypt's bulk rate; aes_encrypt2 and the counter mode run the same body; [schedule]
    objective = size: one pair's segments of the looped kernel), with
    FACE the FACE encrypt2 per pair (its bulk rate), the other ciphers' ECB loop step (a step of
    encrypt_blocks_n, gen/kernels/block_ecb_thumb2.py) or, in counter mode, a step of ctr_blocks
    where the family has it (gen/kernels/block_ctr_thumb2.py) and else the encrypt_blocks call.
    (GHASH is written by its own generator, not list-scheduled: no seed moves it.)"""
    if config.mode != "gcm":
        if config.mode == "ecb":
            return "encrypt_blocks_n_per_step"
        return "ctr_blocks_per_step" if config.spec.family in block_ctr_thumb2.FAMILIES else "encrypt_blocks_call"
    if config.face != "off":
        return "face_encrypt2_per_pair"
    return "aes_pair_segments" if config.objective == "size" else "aes_encrypt_pairs_per_pair"


def worker_name() -> str:
    """The Dask worker's address when run on one, else this process."""
    if "distributed" in sys.modules:
        try:
            return sys.modules["distributed"].get_worker().address
        except ValueError:        # not inside a Dask worker
            pass
    return f"pid {os.getpid()}"


def score(config: Config, seed: int) -> dict:
    """One candidate's log line: modelled cycles of the objective, spill stores, instructions
    (AES-GCM without FACE: of one pair in the ECB loop, or with [schedule] objective = size of one pair's
    segments in the looped kernel, gen/kernels/aes/compact_thumb2.py; the others: ``figures``,
    every kernel figure)."""
    t0 = time.perf_counter()
    keybits = 8 * config.spec.key_bytes if config.spec.family == "aes" else 0
    if objective(config) == "aes_encrypt_pairs_per_pair":     # the kernel the drop prints, with its parts
        c = aes_ecb_thumb2.compile_loop(keybits, config.slicing, config.target, seed, spill=config.spill)
        line = {"config": config.name, "candidate": seed, "cycles": c.cycles, "spills": c.spills,
                "instructions": len(c.insns), "parts": breakdown(c.insns, config.target, c.cycles)}
    elif objective(config) == "aes_pair_segments":
        k = aes_compact_thumb2.thumb2(config.prefix, keybits, config.slicing, config.target, seed)
        line = {"config": config.name, "candidate": seed, "cycles": k.pair_segment_cycles, "spills": k.spills,
                "instructions": k.instructions}
    else:
        from gen.targets import cortex_m
        figures = cortex_m.kernels(dataclasses.replace(config, seed=seed)).kernel_cycles
        line = {"config": config.name, "candidate": seed, "cycles": figures[objective(config)],
                "spills": None, "instructions": None, "figures": figures}
    return dict(line, worker=worker_name(), seconds=round(time.perf_counter() - t0, 3))


def reproducible(line: dict) -> dict:
    """A log line without its `VOLATILE` fields: what a second run must give again."""
    return {k: v for k, v in line.items() if k not in VOLATILE}


def check(config: Config, budget: int, first_seed: int, jobs: int = 1, scheduler=None) -> None:
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
    if isinstance(scheduler, str):
        check_scheduler(scheduler)


def candidates(config: Config, budget: int, first_seed: int) -> list[int]:
    """The baseline (the configuration's own seed) first, then the seeds tried."""
    return [config.seed] + [s for s in range(first_seed, first_seed + budget) if s != config.seed]


def read_log(path: Path) -> dict:
    """The complete lines of a results log by candidate (a line cut short by an interrupt is dropped)."""
    done = {}
    if path.is_file():
        for text in path.read_text().splitlines():
            try:
                line = json.loads(text)
                done[line["candidate"]] = line
            except (ValueError, KeyError, TypeError):
                continue
    return done


def search(config: Config, budget: int, first_seed: int, jobs: int = 1, log: Path | None = None,
           resume: bool = False, say=lambda done, total, line: None, scheduler=None) -> list[dict]:
    """Score every seed candidate (baseline first) -> their log lines in candidate order (run)."""
    check(config, budget, first_seed, jobs, scheduler)
    return run(config, candidates(config, budget, first_seed), score, (), jobs, log, resume, say, scheduler)


def run(config: Config, todo: list, fn, extra: tuple, jobs: int = 1, log: Path | None = None,
        resume: bool = False, say=lambda done, total, line: None, scheduler=None, search_name=None) -> list[dict]:
    """``fn(config, *extra, candidate)`` for every candidate of ``todo`` -> the log lines in ``todo``
    order. With `log`, the lines are (re)written there as they come; with `resume`, lines already
    in it are kept and their candidates not scored again (a log of another configuration, or of
    another search (``search_name``), is refused). ``scheduler``: a Dask scheduler address (or
    Client), in place of the local pool of ``jobs`` processes."""
    done = read_log(log) if (log is not None and resume) else {}
    for line in done.values():
        if line.get("config") != config.name:
            raise ConfigError(f"--resume: {log} is a log of {line.get('config')!r}, not {config.name!r}")
        if line.get("search") != search_name:
            raise ConfigError(f"--resume: {log} is a log of the search {line.get('search') or 'seeds'!r}, "
                              f"not {search_name or 'seeds'!r}")
    done = {c: line for c, line in done.items() if c in todo}
    missing = [c for c in todo if c not in done]
    out = None
    try:
        # the pool (or the Dask client) first: a scheduler that does not answer leaves no log behind
        with ordered(fn, [(config, *extra, c) for c in missing], jobs, scheduler) as scored:
            if log is not None:
                log.parent.mkdir(parents=True, exist_ok=True)
                out = log.open("w")
                for c in todo:
                    if c in done:
                        out.write(json.dumps(done[c]) + "\n")
                out.flush()
            for i, line in enumerate(scored):
                done[line["candidate"]] = line
                if out is not None:
                    out.write(json.dumps(line) + "\n")
                    out.flush()
                say(i + 1, len(missing), line)
    finally:
        if out is not None:
            out.close()
    if log is not None:   # candidate order, whatever was resumed: the file a fresh run writes
        log.write_text("".join(json.dumps(done[c]) + "\n" for c in todo))
    return [done[c] for c in todo]


def best(lines: list[dict], baseline) -> dict:
    """Fewest cycles among the lines that ran like the IR (``valid``, where a search checks it); a tie
    goes to the baseline, then to the earlier line. Every search space picks its winner here."""
    valid = [line for line in lines if line.get("valid", True)]
    return min(enumerate(valid), key=lambda il: (il[1]["cycles"], il[1]["candidate"] != baseline, il[0]))[1]


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
            jobs: int = 1, log: Path | None = None, resume: bool = False, scheduler=None):
    from gen.build import build
    from gen.explore.view import Bar, svg
    check(config, budget, first_seed, jobs, scheduler)
    log = log if log is not None else out_dir / f"explore-{config.name}.jsonl"
    bar = Bar(f"{config.name}: seeds")
    try:
        lines = search(config, budget, first_seed, jobs, log, resume, bar, scheduler)
    finally:
        bar.close()
    winner = best(lines, config.seed)
    base = lines[0]["cycles"]
    assert winner["cycles"] <= base
    chosen = dataclasses.replace(config, seed=winner["candidate"])
    result = build(chosen, command, out_dir)
    plot = log.with_suffix(".svg")
    plot.write_text(svg([line["cycles"] for line in lines], f"{config.name}: {objective(config)}, best over seeds tried"))
    print(table(lines, winner, config.seed))
    print(f"{config.name}: {len(lines)} schedules (seed {config.seed} and {budget} from {first_seed}); best seed {winner['candidate']}: {winner['cycles']} cycles "
          f"({objective(config)}); the config's seed {config.seed}: {base} cycles")
    if "parts" in winner:
        print(f"where the cycles go, the config's seed: {describe(lines[0]['parts'])}")
        print(f"where the cycles go, the winner:       {describe(winner['parts'])}")
    print(f"wrote {result.path} (schedule seed {winner['candidate']}), log {log}, plot {plot}; its config:", file=sys.stderr)
    print(chosen.toml(), end="", file=sys.stderr)
    return lines, result
