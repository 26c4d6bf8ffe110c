"""`slicegen explore`: search instruction schedules, keep the fastest valid one.

The Thumb-2 AES kernel's list scheduler and register allocator break ties with a seed
(`[schedule] seed`). Exploring tries `budget` consecutive seeds from `--seed`, costs each
schedule with the project's timing table (the same one the cycle model uses), then builds
the fastest through the whole pipeline — compile, every NIST vector, differential cases,
constant-time check — so the drop it writes is as valid as any other.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from gen.config import Config
from gen.errors import ConfigError
from gen.kernels.aes import thumb2 as aes_thumb2

SCHEDULED_TARGETS = ("cortex-m4", "cortex-m3")


def schedule_cycles(config: Config, seed: int) -> int:
    code = aes_thumb2.thumb2(config.prefix, 8 * config.spec.key_bytes, config.slicing, config.target, seed)
    return code.stats["thumb2"]["cycles"]


def search(config: Config, budget: int, first_seed: int, say=lambda msg: None) -> list[tuple[int, int]]:
    """[(cycles of one encrypt2 call, seed)] for seeds first_seed .. first_seed+budget-1, best first."""
    if config.target not in SCHEDULED_TARGETS:
        raise ConfigError(f"explore needs a scheduled target ({', '.join(SCHEDULED_TARGETS)}); "
                          f"{config.name} is {config.target}")
    if not 1 <= budget <= 10000:
        raise ConfigError("--budget must be between 1 and 10000")
    if first_seed < 0 or first_seed + budget > 2**32:
        raise ConfigError("--seed must be in 0..2^32-1 (and seed + budget too)")
    tried = []
    for i, seed in enumerate(range(first_seed, first_seed + budget)):
        tried.append((schedule_cycles(config, seed), seed))
        say(f"  seed {seed}: {tried[-1][0]} cycles ({i + 1}/{budget})")
    return sorted(tried)


def explore(config: Config, command: str, budget: int, first_seed: int, out_dir: Path):
    from gen.build import build
    from emu.validate import progress
    ranked = search(config, budget, first_seed, progress)
    best_cycles, best_seed = ranked[0]
    base = schedule_cycles(config, config.seed)
    print(f"{config.name}: {budget} schedules; best seed {best_seed}: {best_cycles} cycles per encrypt2 "
          f"({best_cycles / 32:.2f} c/B); the config's seed {config.seed}: {base} cycles")
    chosen = dataclasses.replace(config, seed=best_seed)
    result = build(chosen, command, out_dir)
    print(f"wrote {result.path} (schedule seed {best_seed}); its config:", file=sys.stderr)
    print(chosen.toml(), end="", file=sys.stderr)
    return ranked, result
