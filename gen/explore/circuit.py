"""`slicegen explore --space circuit`: which proven S-box circuit the Thumb-2 AES encrypt2 kernel
evaluates (gen/circuits/aes_sbox.CIRCUITS: Boyar-Peralta's 115 gates, Boyar-Peralta-Calik's 113,
Maximov-Ekdahl's 111 lowered to 127 Thumb-2 ops).

Fewer gates are not fewer cycles (the kernel is spill-bound): each circuit, with its own stored
order, is scored on the whole kernel and run in Unicorn against its IR; the stored ``CIRCUIT`` is
the baseline and wins ties, and ``--write-orders`` records a winner only if no kernel reading the
choice gets slower.  Refuses the size and FACE configurations.  More: docs/internals/explorer.md.
"""
from __future__ import annotations

import time
from pathlib import Path

from gen.explore import orders as EO
from gen.circuits import aes_sbox
from gen.config import Config
from gen.errors import ConfigError
from gen.kernels.aes import thumb2 as aes_thumb2

SEARCH = "circuit"


def check(config: Config) -> None:
    if not (config.spec.family == "aes" and config.mode == "gcm" and config.target in aes_thumb2.CORES):
        raise ConfigError(f"--space circuit chooses the AES kernel's S-box circuit; {config.name} is not an "
                          f"AES-GCM Thumb-2 configuration (use --space seeds)")
    if config.objective == "size":
        raise ConfigError(f"--space circuit: {config.name} builds the looped size kernel, which keeps the "
                          f"reference circuit ({aes_sbox.DEFAULT}); choose on its speed or balanced configuration")
    if config.face != "off":
        raise ConfigError(f"--space circuit: {config.name} is scored by its FACE kernels, whose rounds take the "
                          f"plain kernel's circuit; choose on the speed configuration of {config.cipher}")


def candidates() -> list[str]:
    """The stored choice first (the baseline), then the other circuits in aes_sbox.CIRCUITS order."""
    return [aes_thumb2.CIRCUIT] + [c for c in aes_sbox.CIRCUITS if c != aes_thumb2.CIRCUIT]


def using(circuit: str):
    """The encrypt2 kernels (and the IR they are checked against) use ``circuit`` inside the block."""
    return aes_thumb2.using_circuit(circuit)


def score(config: Config, candidate: str) -> dict:
    from gen.explore.search import worker_name
    t0 = time.perf_counter()
    with using(candidate):
        c = EO.AES.compile(config, aes_thumb2.ORDERS)
        valid = EO.runs_like_the_ir(config, c)
    kind = aes_thumb2.sbox_kind(candidate)
    return {"config": config.name, "search": SEARCH, "candidate": candidate, "gates": len(aes_sbox.CIRCUITS[candidate]),
            "stored_order": kind in aes_thumb2.ORDERS, **EO.figures(config, c), "valid": valid,
            "worker": worker_name(), "seconds": round(time.perf_counter() - t0, 3)}


def best(lines: list[dict]) -> dict:
    """Fewest cycles among the circuits that ran like the IR; a tie goes to the stored choice."""
    from gen.explore import search as explore
    return explore.best(lines, aes_thumb2.CIRCUIT)


def search(config: Config, budget: int, jobs: int = 1, log: Path | None = None, resume: bool = False,
           say=lambda done, total, line: None, scheduler=None) -> list[dict]:
    from gen.explore import search as explore
    check(config)
    explore.check(config, budget, 0, jobs, scheduler)
    todo = candidates()[:budget + 1]
    return explore.run(config, todo, score, (), jobs, log, resume, say, scheduler, SEARCH)


def effect(circuit: str, configs=None) -> list[tuple]:
    """Every distinct encrypt2 kernel among the presets (or ``configs``) that reads the stored choice
    -> (name, cycles with the stored circuit, with ``circuit``)."""
    from gen import presets
    seen, out = set(), []
    for config in presets.all_presets() if configs is None else configs:
        try:
            check(config)
        except ConfigError:
            if not (config.spec.family == "aes" and config.mode == "gcm" and config.target in aes_thumb2.CORES
                    and config.face != "off"):
                continue
            key = (config.cipher, config.slicing, config.target, config.face)
            if key not in seen:                       # the FACE rounds read the choice too
                seen.add(key)
                old, new = _face(config), None
                with using(circuit):
                    new = _face(config)
                out += [(f"{config.name} face_{w}", old[w], new[w]) for w in old]
            continue
        key = (config.cipher, config.slicing, config.target, config.objective, config.spill)
        if key in seen:
            continue
        seen.add(key)
        old = EO.AES.compile(config, aes_thumb2.ORDERS).cycles
        with using(circuit):
            new = EO.AES.compile(config, aes_thumb2.ORDERS).cycles
        out.append((config.name, old, new))
    return out


def _face(config: Config) -> dict:
    """The loop-step cycles of a FACE drop's encrypt2 kernels (the figure its objective scores)."""
    from gen.kernels.face import thumb2 as face_thumb2
    bits = 8 * config.spec.key_bytes
    fns = face_thumb2.face_functions(config.prefix, bits, config.slicing, config.face, config.target, config.seed,
                                      config.spill)
    return {w: fns[w].cycles for w in ("encrypt2", "encrypt2c") if w in fns}


def explore(config: Config, command: str, budget: int, out_dir: Path, jobs: int = 1, log: Path | None = None,
            resume: bool = False, scheduler=None, write: Path | bool | None = None):
    from gen.explore.view import Bar
    check(config)
    log = log if log is not None else out_dir / f"explore-{config.name}-circuit.jsonl"
    bar = Bar(f"{config.name}: S-box circuits")
    try:
        lines = search(config, budget, jobs, log, resume, bar, scheduler)
    finally:
        bar.close()
    winner, base = best(lines), lines[0]
    rows = [(line["candidate"], str(line["gates"]), "yes" if line["stored_order"] else "no (transplanted)",
             str(line["cycles"]), str(line["spills"]), "yes" if line["valid"] else "NO",
             ", ".join((["best"] if line is winner else []) + (["baseline"] if line is base else [])))
            for line in lines]
    with using(winner["candidate"]):
        result = EO.finish(config, command, out_dir, log, lines, winner,
                           [("circuit", "gates", "stored order", "cycles", "spills", "valid", "")] + rows,
                           f"{config.name}: {len(lines)} S-box circuits; best {winner['candidate']}: "
                           f"{winner['cycles']} modelled cycles; the stored choice ({base['candidate']}): "
                           f"{base['cycles']}")
    if write:
        if winner is base:
            print(f"orders file not written: the stored choice {base['candidate']} stays")
            return lines, result
        effects = effect(winner["candidate"])
        for name, old, new in effects:
            print(f"  with it, {name}: {old} -> {new} modelled cycles")
        slower = [name for name, old, new in effects if new > old]
        if slower:
            print(f"orders file not written: {', '.join(slower)} would be slower")
            return lines, result
        path = EO.write_orders(EO.AES, None, None, command,
                               f"CIRCUIT {base['candidate']} -> {winner['candidate']}: {base['cycles']} -> "
                               f"{winner['cycles']} cycles per {config.name} call",
                               None if write is True else write, circuit=winner["candidate"])
        print(f"wrote {path}")
    return lines, result
