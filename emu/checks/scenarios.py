"""Which checks and figures a drop gets, chosen by its mode (and cipher): GCM drops the NIST
CAVP files, McGrew-Viega, pyca differential cases, the GCM trace checks and the GCM benchmark;
block-cipher drops (ecb, ctr) their cipher's known answers, random cases against its reference
model, the block trace checks and the block benchmark. Registering a mode is one line in
SCENARIOS."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from emu import platforms

from emu.checks import blockcipher

from emu.ct import face_cache as ct_face_cache

from emu.bench import face_cache

from emu.checks import qemu

from emu.machines import toolchain
from emu.bench.drop import bench_drop
from emu.bench.mca import bench_mca_drop
from emu.bench import rv32_mca
from emu.ct.checker import CtReport, check_drop
from emu.ct.block import check_block_drop
from emu.checks.validate import Report, progress, validate


@dataclass
class Drop:
    """What the checks need to know of a drop (from a Config and its KernelSet, or a manifest)."""
    header: Path
    prefix: str
    target: str
    spec: object            # gen.ciphers CipherSpec
    mode: str
    config_sha256: str
    ct_extra_lengths: tuple[int, ...] = ()
    ctx_words: int = 0      # lower bound of sizeof(ctx) for the GCM checker (0: read the firmware)
    core: str = ""          # the emulated core when not the target's usual one (armv8a with EOR3)
    face: str = "off"       # FACE depth: r1/r2 drops also get the cached calls checked (emu/bench/face_cache.py)
    face_cache_bytes: int = 0   # sizeof(PREFIX_face_cache): the pipeline knows it, a drop on disk says it in its manifest


def drop_from_manifest(header: Path, manifest: dict, cipher: str | None = None) -> Drop:
    """The checks' view of a drop read from disk (`slicegen validate`, `slicegen bench`); for a
    multi-key drop (cipher "aes"), its first key size unless `cipher` names another."""
    from gen import ciphers
    from gen.targets.common import ct_extra_lengths
    cipher = cipher or cipher_names(manifest)[0]
    return Drop(header, manifest["prefix"], manifest["target"], ciphers.get(cipher),
                manifest.get("mode", "gcm"), manifest.get("config_sha256", ""),
                ct_extra_lengths(manifest.get("options", {}).get("face", "off")),
                core="armv8a-max" if manifest.get("options", {}).get("eor3") == "on" else "",
                face=manifest.get("options", {}).get("face", "off"),
                face_cache_bytes=manifest.get("metrics", {}).get("face_cache_bytes", 0))


def cipher_names(manifest: dict) -> list[str]:
    """The single-key ciphers a drop serves: ["aes128", "aes256"] for a multi-key drop of keybits
    [128, 256] (issue 32), else [its cipher]."""
    keybits = manifest.get("options", {}).get("keybits")
    return [f"aes{b}" for b in keybits] if keybits else [manifest["cipher"]]


def seed_of(config_sha256: str) -> int:
    return int(hashlib.sha256(config_sha256.encode()).hexdigest()[:8], 16)


A_CLASS_CASES = 1000


class Gcm:
    @staticmethod
    def firmware(d: Drop, work: Path) -> toolchain.Firmware:
        plat = platforms.for_target(d.target)
        if plat.name != "aarch64":          # aarch64-linux-gnu-gcc links its own way (static, no PIE)
            return toolchain.build_firmware(d.header, d.prefix, d.target, work)
        return toolchain.build_platform_firmware(plat, d.header, d.prefix, d.core or plat.core(d.target), work)

    @staticmethod
    def validate(d: Drop, work: Path, fw) -> Report:
        plat = platforms.for_target(d.target)
        more = {}
        if plat.name == "aarch64":   # fast in emulation: 1,000 random cases (issue 17), and qemu as well
            core = d.core or plat.core(d.target)
            program = qemu.build_program(plat, d.header, d.prefix, core, work)
            more = {"differential_cases": A_CLASS_CASES,
                    "second_place": (f"qemu-aarch64 -cpu {qemu.QEMU_CPU[core]}", qemu.QemuRunner(program, core))}
        report = validate(d.header, d.prefix, d.target, 8 * d.spec.key_bytes, d.config_sha256, work, firmware=fw,
                          **more)
        if d.face != "off" and face_cache.declares_cached_api(d.header, d.prefix):                  # the *_cached calls, in emulation (emu/bench/face_cache.py)
            progress(f"{d.prefix}: cached FACE calls against pyca")
            drop = face_cache.CachedDrop(d.header, d.prefix, d.target, work / "face-cache")
            report.face_cache_cases = face_cache.validate_cached(drop, 8 * d.spec.key_bytes, seed_of(d.config_sha256))
        return report

    @staticmethod
    def constant_time(d: Drop, work: Path, fw) -> CtReport:
        report = check_drop(d.header, d.prefix, d.target, 8 * d.spec.key_bytes, d.ctx_words, 0, work,
                            firmware=fw, extra_lengths=d.ct_extra_lengths)
        if d.face != "off" and face_cache.declares_cached_api(d.header, d.prefix):                  # a cached sequence across a rebuild (emu/ct/face_cache.py)
            r = ct_face_cache.check(d.header, d.prefix, d.target, 8 * d.spec.key_bytes, work / "face-cache-ct")
            report.checks.append(("face cache sequence", r.status, r.instructions))
            report.checked += [f for f in ct_face_cache.FUNCTIONS if f not in report.checked]
            if not r.verified:
                report.status, report.divergence = r.status, r.divergence
        return report

    @staticmethod
    def bench(d: Drop, work: Path, fw, cache_bytes: int = 0) -> dict:
        if platforms.for_target(d.target).name == "aarch64":     # A-class: llvm-mca, not a cycle model
            return bench_mca_drop(d.header, d.prefix, d.target, 8 * d.spec.key_bytes, work, fw)
        metrics = bench_drop(d.header, d.prefix, d.target, 8 * d.spec.key_bytes, work, firmware=fw,
                             cache_bytes=cache_bytes)
        _mca_cross_check(d, work, fw, metrics)
        if d.face != "off" and face_cache.declares_cached_api(d.header, d.prefix):                  # the cached calls over 256 consecutive IVs
            drop = face_cache.CachedDrop(d.header, d.prefix, d.target, work / "face-cache-bench")
            metrics["face_cache"] = face_cache.bench_cached(drop, 8 * d.spec.key_bytes, progress=progress)
            metrics["face_cache_bytes"] = d.face_cache_bytes
        return metrics


class Block:
    @staticmethod
    def firmware(d: Drop, work: Path) -> toolchain.Firmware:
        return blockcipher.firmware(d.header, d.prefix, d.target, d.spec, d.mode, work)

    @staticmethod
    def validate(d: Drop, work: Path, fw) -> Report:
        return blockcipher.validate(d.header, d.prefix, d.target, d.spec, d.mode, seed_of(d.config_sha256),
                                    work, fw, progress=progress)

    @staticmethod
    def constant_time(d: Drop, work: Path, fw) -> CtReport:
        return check_block_drop(fw, d.prefix, d.spec, d.mode)

    @staticmethod
    def bench(d: Drop, work: Path, fw, cache_bytes: int = 0) -> dict:
        metrics = blockcipher.bench(d.header, d.prefix, d.target, d.spec, d.mode, work, fw)
        _mca_cross_check(d, work, fw, metrics)
        return metrics


def _mca_cross_check(d: Drop, work: Path, fw, metrics: dict) -> None:
    """RV32: the E31 model beside llvm-mca-19 -mcpu=sifive-e31 over the same ECB stream."""
    if platforms.for_target(d.target).name == "rv32imac":
        metrics["llvm_mca_cross_check"] = rv32_mca.ecb_cross_check(fw, d.prefix, d.spec, work)


SCENARIOS = {"gcm": Gcm, "ecb": Block, "ctr": Block}


def for_mode(mode: str):
    return SCENARIOS[mode]
