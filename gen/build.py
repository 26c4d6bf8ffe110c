"""The build pipeline: config -> header -> compile -> validate -> measure -> drop.

Nothing is written to the output folder unless every step passed; the drop then appears in
one rename (gen/drop/write.py).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from gen.config import Config
from gen.drop import render as generate
from gen.drop.write import write_drop
from gen.kernels.face.aes_face import face_cache_bytes
from gen.version import GENERATOR_VERSION
from emu.checks import scenarios
from emu.checks.validate import progress


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
    scenario = scenarios.for_mode(config.mode)
    with tempfile.TemporaryDirectory(prefix="slicegen-") as tmp:
        work = Path(tmp)
        hpath = work / f"{config.name}.h"
        hpath.write_text(header)
        face = getattr(config, "face", "off")
        drop = scenarios.Drop(hpath, config.prefix, config.target, config.spec, config.mode, config.sha256(),
                              ks.ct_extra_lengths, ks.rk_words + (ks.ghash.words if ks.ghash else 0), ks.core,
                              face=face, face_cache_bytes=face_cache_bytes(face) if face != "off" else 0)
        progress(f"{config.name}: compiling")
        firmware = scenario.firmware(drop, work)
        progress(f"{config.name}: validating")
        report = scenario.validate(drop, work, firmware)
        progress(f"{config.name}: constant-time check (trace equivalence)")
        ct = scenario.constant_time(drop, work, firmware)
        if config.constant_time and not ct.verified:
            raise ConstantTimeError(f"claims constant time but the checker disagrees:\n{ct}")
        progress(f"{config.name}: measuring (cycle model)")
        metrics = scenario.bench(drop, work, firmware, cache_bytes=ks.cache_bytes)
        metrics["round_key_bytes"] = 4 * ks.rk_words
        if ks.ghash:
            metrics["ghash_key_bytes"] = 4 * ks.ghash.words
        if ks.kernel_cycles:                  # the generator's figures of its asm kernels
            metrics["kernel_cycles"] = dict(ks.kernel_cycles)
        if ks.kernel_facts:
            metrics["kernel_facts"] = dict(ks.kernel_facts)
        if ks.ghash and not config.constant_time:   # the per-key GHASH tables live in the context
            metrics["table_bytes"] = 4 * ks.ghash.words
    manifest = manifest_for(config, ks, report, metrics, ct.status)
    path = write_drop(out_dir, config.name, header, manifest)
    return BuildResult(config, path, manifest)
