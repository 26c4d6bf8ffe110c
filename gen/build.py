"""The build pipeline: config -> header -> compile -> validate -> measure -> drop.

Nothing is written to the output folder unless every step passed; the drop then appears in
one rename (gen/drop/write.py).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from gen import ciphers
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


def _drop(config: Config, ks, hpath: Path, cipher: str) -> scenarios.Drop:
    """The checks' view of the drop for one of its ciphers (a multi-key drop has one per key size)."""
    face = getattr(config, "face", "off")
    return scenarios.Drop(hpath, config.prefix, config.target, ciphers.get(cipher), config.mode, config.sha256(),
                          ks.ct_extra_lengths, ks.rk_words + (ks.ghash.words if ks.ghash else 0), ks.core,
                          face=face, face_cache_bytes=face_cache_bytes(face) if face != "off" else 0)


def build(config: Config, command: str, out_dir: Path) -> BuildResult:
    progress(f"{config.name}: generating")
    header, ks = generate.header(config, command)
    scenario = scenarios.for_mode(config.mode)
    with tempfile.TemporaryDirectory(prefix="slicegen-") as tmp:
        work = Path(tmp)
        hpath = work / f"{config.name}.h"
        hpath.write_text(header)
        drops = [_drop(config, ks, hpath, cipher) for cipher in config.ciphers]
        progress(f"{config.name}: compiling")
        firmware = scenario.firmware(drops[0], work)
        per_size = []                 # a multi-key drop: every check and figure once per key size
        for drop in drops:
            what = f"{config.name} ({drop.spec.name})" if config.multikey else config.name
            sub = work / drop.spec.name if config.multikey else work
            sub.mkdir(exist_ok=True)
            progress(f"{what}: validating")
            report = scenario.validate(drop, sub, firmware)
            progress(f"{what}: constant-time check (trace equivalence)")
            ct = scenario.constant_time(drop, sub, firmware)
            if config.constant_time and not ct.verified:
                raise ConstantTimeError(f"claims constant time but the checker disagrees:\n{ct}")
            progress(f"{what}: measuring (cycle model)")
            metrics = scenario.bench(drop, sub, firmware, cache_bytes=ks.cache_bytes)
            per_size.append((drop, report, ct, metrics))
        metrics = per_size[0][3]
        metrics["round_key_bytes"] = 4 * ks.rk_words
        if ks.ghash:
            metrics["ghash_key_bytes"] = 4 * ks.ghash.words
        if ks.kernel_cycles:                  # the generator's figures of its asm kernels
            metrics["kernel_cycles"] = dict(ks.kernel_cycles)
        if ks.kernel_facts:
            metrics["kernel_facts"] = dict(ks.kernel_facts)
        if ks.ghash and not config.constant_time:   # the per-key GHASH tables live in the context
            metrics["table_bytes"] = 4 * ks.ghash.words
    if config.multikey:
        manifest = multikey_manifest(config, per_size, metrics)
    else:
        _, report, ct, _ = per_size[0]
        manifest = manifest_for(config, ks, report, metrics, ct.status)
    path = write_drop(out_dir, config.name, header, manifest)
    return BuildResult(config, path, manifest)


#: the figures of a multi-key drop that belong to the one header, not to a key size
SHARED_METRICS = ("model", "core", "compiler", "mca_cores", "text_bytes", "rodata_bytes", "ctx_bytes", "table_bytes",
                  "cache_bytes", "face_cache_bytes", "round_key_bytes", "ghash_key_bytes", "kernel_cycles",
                  "kernel_facts")


def multikey_manifest(config: Config, per_size, metrics: dict) -> dict:
    """A multi-key drop's manifest: `validation` and `metrics` hold the sums / the first key size's
    figures where SPEC §4 expects one value, and `keybits` each key size's own (every check ran
    once per size on the same compiled header)."""
    statuses = {ct.status for _, _, ct, _ in per_size}
    manifest = manifest_for(config, None, per_size[0][1], metrics,
                            per_size[0][2].status if len(statuses) == 1 else "not-constant-time")
    val = manifest["validation"]
    val["nist_vectors"] = {"passed": sum(r.nist_passed for _, r, _, _ in per_size),
                           "failed": sum(r.nist_failed for _, r, _, _ in per_size),
                           "files": [f for _, r, _, _ in per_size for f in r.nist_files]}
    val["differential_cases"] = sum(r.differential_cases for _, r, _, _ in per_size)
    val["keybits"] = {str(8 * d.spec.key_bytes): {**r.manifest(), "constant_time_check": ct.status}
                      for d, r, ct, _ in per_size}
    first = str(8 * per_size[0][0].spec.key_bytes)
    metrics["figures_key_bits"] = int(first)
    metrics["keybits"] = {str(8 * d.spec.key_bytes): {k: v for k, v in m.items() if k not in SHARED_METRICS}
                          for d, _, _, m in per_size}
    manifest["metrics"] = metrics
    return manifest
