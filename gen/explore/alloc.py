"""`slicegen explore --space alloc`: the register allocator's eviction knobs for the Thumb-2 AES
kernel (gen/sched/regalloc.allocate: ``clean_bonus``, how much further a clean value's next use
counts when choosing whom to evict, ``pick``, which free register a new value gets, and the ALU
rematerialization of gen/sched/remat.py: ``recompute`` on or off, ``remat_bonus``, how much further
the next use of a value that looks recomputable counts).

A candidate is one policy of the grid ``POLICIES`` (the first is the kernel's own,
aes_thumb2.ALLOC_POLICY with regalloc's defaults for the rest, the baseline, which wins ties); each is scored on the whole kernel by the cycle model and run in
Unicorn against the IR (gen/explore/orders.runs_like_the_ir) before it can win, and the winner is
built through the whole pipeline. The grid is small (an exhaustive search), so ``--budget`` caps
how many of its policies are tried, in order.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from gen.explore import orders as EO
from gen.config import Config
from gen.errors import ConfigError
from gen.kernels.aes import thumb2 as aes_thumb2

#: candidate number -> policy; 0 is the kernel's (clean_bonus 2.0, pick 'lru', recompute with
#: remat_bonus 2.0)
BASE = dict({"clean_bonus": 2.0, "pick": "lru"}, **aes_thumb2.ALLOC_POLICY)
POLICIES = [BASE] + [
    dict(BASE, clean_bonus=b, pick=p) for p in ("lru", "first") for b in (1.0, 1.25, 1.5, 1.75, 2.5, 3.0, 4.0, 8.0)
] + [dict(BASE, pick="first")] + [dict(BASE, remat_bonus=b) for b in (1.0, 1.5, 3.0, 4.0)] + [
    dict(BASE, recompute=False, remat_bonus=1.0)]
SEARCH = "alloc"


def check(config: Config) -> None:
    if not (config.spec.family == "aes" and config.mode == "gcm" and config.target in aes_thumb2.CORES):
        raise ConfigError(f"--space alloc searches the AES kernel's allocator; {config.name} is not an "
                          f"AES-GCM Thumb-2 configuration (use --space seeds)")


@contextmanager
def using(policy: dict):
    old = dict(aes_thumb2.ALLOC_POLICY)
    aes_thumb2.ALLOC_POLICY.clear()
    aes_thumb2.ALLOC_POLICY.update(policy)
    try:
        yield
    finally:
        aes_thumb2.ALLOC_POLICY.clear()
        aes_thumb2.ALLOC_POLICY.update(old)


def score(config: Config, candidate: int) -> dict:
    from gen.explore.search import worker_name
    t0 = time.perf_counter()
    policy = POLICIES[candidate]
    with using(policy):
        c = EO.AES.compile(config, aes_thumb2.ORDERS)
    return {"config": config.name, "search": SEARCH, "candidate": candidate, "policy": policy,
            **EO.figures(config, c), "valid": EO.runs_like_the_ir(config, c),
            "worker": worker_name(), "seconds": round(time.perf_counter() - t0, 3)}


def best(lines: list[dict]) -> dict:
    """Fewest cycles among the policies that ran like the IR; a tie goes to the default (policy 0)."""
    from gen.explore import search as explore
    return explore.best(lines, 0)


def search(config: Config, budget: int, jobs: int = 1, log: Path | None = None, resume: bool = False,
           say=lambda done, total, line: None, scheduler=None) -> list[dict]:
    from gen.explore import search as explore
    check(config)
    explore.check(config, budget, 0, jobs, scheduler)
    todo = list(range(min(budget + 1, len(POLICIES))))
    return explore.run(config, todo, score, (), jobs, log, resume, say, scheduler, SEARCH)


def explore(config: Config, command: str, budget: int, out_dir: Path, jobs: int = 1, log: Path | None = None,
            resume: bool = False, scheduler=None):
    from gen.explore.view import Bar
    check(config)
    log = log if log is not None else out_dir / f"explore-{config.name}-alloc.jsonl"
    bar = Bar(f"{config.name}: allocator policies")
    try:
        lines = search(config, budget, jobs, log, resume, bar, scheduler)
    finally:
        bar.close()
    winner = best(lines)
    rows = [(str(line["candidate"]), f"{line['policy']['clean_bonus']:g}", line["policy"]["pick"],
             "on" if line["policy"].get("recompute") else "off", f"{line['policy'].get('remat_bonus', 1.0):g}",
             str(line["cycles"]), str(line["spills"]), "yes" if line["valid"] else "NO",
             ", ".join((["best"] if line is winner else []) + (["baseline"] if line["candidate"] == 0 else [])))
            for line in lines]
    with using(winner["policy"]):
        result = EO.finish(config, command, out_dir, log, lines, winner,
                           [("candidate", "clean_bonus", "pick", "recompute", "remat_bonus", "cycles", "spills",
                             "valid", "")] + rows,
                           f"{config.name}: {len(lines)} allocator policies; best {winner['policy']}: "
                           f"{winner['cycles']} modelled cycles; the default: {lines[0]['cycles']}")
    return lines, result
