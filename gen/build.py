"""The build pipeline: config -> header -> compile -> validate -> measure -> drop.

Nothing is written to the output folder unless every step passed; the drop then appears in
one rename (gen/drop.py).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from gen import generate
from gen.config import Config
from gen.drop import write_drop
from gen.version import GENERATOR_VERSION
from emu import toolchain
from emu.validate import validate, progress
from emu.bench import bench_drop
from emu.ct import check_drop


class ConstantTimeError(Exception):
    """A drop that claims constant time failed the trace check: it is not written."""


@dataclass
class BuildResult:
    config: Config
    path: Path
    manifest: dict


def manifest_for(config: Config, ks, report, metrics: dict, ct_check: str) -> dict:
    return {
        "name": config.name,
        "prefix": config.prefix,
        "cipher": config.cipher,
        "mode": config.mode,
        "target": config.target,
        "options": config.options(),
        "constant_time": config.constant_time,
        "config_sha256": config.sha256(),
        "generator_version": GENERATOR_VERSION,
        "validation": {**report.manifest(), "constant_time_check": ct_check},
        "metrics": metrics,
    }


def build(config: Config, command: str, out_dir: Path) -> BuildResult:
    progress(f"{config.name}: generating")
    header, ks = generate.header(config, command)
    with tempfile.TemporaryDirectory(prefix="slicegen-") as tmp:
        work = Path(tmp)
        hpath = work / f"{config.name}.h"
        hpath.write_text(header)
        progress(f"{config.name}: compiling")
        firmware = toolchain.build_firmware(hpath, config.prefix, config.target, work)
        progress(f"{config.name}: validating")
        report = validate(hpath, config.prefix, config.target, config.keybits, config.sha256(), work,
                          firmware=firmware)
        progress(f"{config.name}: constant-time check (trace equivalence)")
        ct = check_drop(hpath, config.prefix, config.target, config.keybits, ks.rk_words, ks.hk_words,
                        work, firmware=firmware, extra_lengths=ks.ct_extra_lengths)
        if config.constant_time and not ct.verified:
            raise ConstantTimeError(f"claims constant time but the checker disagrees:\n{ct}")
        progress(f"{config.name}: measuring (cycle model)")
        metrics = bench_drop(hpath, config.prefix, config.target, config.keybits, work, firmware=firmware)
        metrics["round_key_bytes"] = 4 * ks.rk_words
        metrics["ghash_key_bytes"] = 4 * ks.hk_words
        if ks.kernel_cycles:                  # the generator's figures of its asm kernels
            metrics["kernel_cycles"] = dict(ks.kernel_cycles)
        if not config.constant_time:          # the per-key GHASH tables live in the context
            metrics["table_bytes"] = 4 * ks.hk_words
    manifest = manifest_for(config, ks, report, metrics, ct.status)
    path = write_drop(out_dir, config.name, header, manifest)
    return BuildResult(config, path, manifest)
