"""Checks and figures of a block-cipher drop (modes ecb and ctr; Rijndael-256, SPEEDY, ...).

The scenario GCM drops get from emu/checks/validate.py, emu/ct/checker.py and emu/bench/drop.py, for the block-cipher
API of SPEC §5: the cipher's known answers (gen/ciphers: the source is named there) and random
cases against the cipher's reference model (ECB, and CTR one-shot and in pieces at odd sizes,
counters that wrap at 2^32, in-place and unaligned buffers, bad arguments), on the emulated core
and, for `portable`, on the host; figures from the cycle model. Cases go through the batch
driver emu/checks/driver_block.c, many per emulator start.
"""
from __future__ import annotations

import random
import struct
from dataclasses import dataclass
from pathlib import Path

from emu.machines import layout

from emu.machines import toolchain
from emu.bench.drop import BenchError, _Bench, _pattern, _r2, model_name, CTX_SYMBOL
from emu.checks.runner import EmuRunner, HostRunner

DRIVER = Path(__file__).resolve().parent / "driver_block.c"
RANDOM_CASES = 1000
OP_ECB, OP_CTR, OP_CTR_STREAM, OP_BADARG = 0, 1, 2, 3
CTR_SIZES = (16, 64, 256, 1024, 4096)
ECB_BLOCKS = 64


def defines(spec, mode: str) -> tuple[str, ...]:
    return (f"-DSG_BLOCK={spec.block_bytes}", f"-DSG_KEYBYTES={spec.key_bytes}") + \
        (("-DSG_CTR",) if mode == "ctr" else ())


def firmware(header: Path, prefix: str, target: str, spec, mode: str, workdir: Path) -> toolchain.Firmware:
    return toolchain.build_firmware(header, prefix, target, workdir, driver=DRIVER, defines=defines(spec, mode))


@dataclass
class Case:
    op: int
    key: bytes
    iv: bytes
    data: bytes
    expect_out: bytes = b""
    expect_rc: int = 0
    expect_rc2: int = 0
    flags: int = 0
    label: str = ""


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def _result_len(c: Case) -> int:
    return 8 if c.op == OP_BADARG else 4 + _pad4(len(c.data))


class Codec:
    """Case batches in the layout emu/checks/driver_block.c reads, and its results."""

    @staticmethod
    def encode(cases: list[Case]) -> bytes:
        out = bytearray()
        for c in cases:
            body = struct.pack("<5I", c.op, len(c.key), len(c.iv), len(c.data), c.flags) + c.key + c.iv + c.data
            out += body + bytes(_pad4(len(body)) - len(body))
        return bytes(out)

    @staticmethod
    def result_size(cases: list[Case]) -> int:
        return sum(_result_len(c) for c in cases)

    @staticmethod
    def decode(cases: list[Case], blob: bytes) -> list[tuple]:
        results, pos = [], 0
        for c in cases:
            if c.op == OP_BADARG:
                rc, rc2 = struct.unpack_from("<2i", blob, pos)
                results.append((rc, rc2, b""))
            else:
                rc = struct.unpack_from("<i", blob, pos)[0]
                results.append((rc, 0, bytes(blob[pos + 4:pos + 4 + len(c.data)])))
            pos += _result_len(c)
        return results


def ecb_reference(spec, key: bytes, data: bytes) -> bytes:
    """The reference model block by block; where pyca/cryptography has the cipher (AES) every
    block is also checked against it, so the expected values come from two implementations."""
    b = spec.block_bytes
    out = b"".join(spec.encrypt(key, data[i:i + b]) for i in range(0, len(data), b))
    if spec.pyca is not None:
        other = b"".join(spec.pyca(key, data[i:i + b]) for i in range(0, len(data), b))
        if other != out:
            raise AssertionError(f"{spec.title}: the reference model disagrees with pyca/cryptography")
    return out


def ctr_reference(spec, key: bytes, iv: bytes, data: bytes) -> bytes:
    """SP 800-38A counter mode; the counter is the block's last 4 bytes, big-endian, mod 2^32."""
    b = spec.block_bytes
    head, ctr = iv[:-4], int.from_bytes(iv[-4:], "big")
    stream = bytearray()
    while len(stream) < len(data):
        stream += ecb_reference(spec, key, head + ctr.to_bytes(4, "big"))
        ctr = (ctr + 1) & 0xFFFFFFFF
    return bytes(x ^ y for x, y in zip(data, stream))


def cases(spec, mode: str, seed: int, count: int = RANDOM_CASES) -> dict[str, list[Case]]:
    """{label: cases}: the known answers, random cases against the reference, bad arguments."""
    b, kb = spec.block_bytes, spec.key_bytes
    rng = random.Random(seed)
    kat = [Case(OP_ECB, k, b"", p, c, label=f"known answer #{i} ({spec.kat_source})")
           for i, (k, p, c) in enumerate(spec.known_answers())]
    rand = []
    for i in range(count):
        key = rng.randbytes(kb)
        flags = rng.getrandbits(5) | (rng.randint(0, 60) << 16)
        kind = OP_ECB if mode == "ecb" else (OP_ECB, OP_CTR, OP_CTR_STREAM)[i % 3]
        if kind == OP_ECB:
            data = rng.randbytes(b * rng.randint(0, 5))
            rand.append(Case(OP_ECB, key, b"", data, ecb_reference(spec, key, data), flags=flags,
                             label=f"random ecb #{i} blocks={len(data) // b}"))
            continue
        iv = bytearray(rng.randbytes(b))
        if i % 7 == 0:                              # the counter wraps inside the message
            iv[-4:] = (0xFFFFFFFF - rng.randint(0, 2)).to_bytes(4, "big")
        data = rng.randbytes(rng.choice((rng.randint(0, 3 * b + 7), rng.randint(0, 400))))
        rand.append(Case(kind, key, bytes(iv), data, ctr_reference(spec, key, bytes(iv), data), flags=flags,
                         label=f"random ctr{' stream' if kind == OP_CTR_STREAM else ''} #{i} len={len(data)}"))
    bad = [Case(OP_BADARG, bytes(n), bytes(b), b"", expect_rc=-2, expect_rc2=-2 if mode == "ctr" else 0,
                label=f"bad arguments: key of {n} bytes; ctr with NULL input")
           for n in (0, kb - 1, kb + 1)]
    return {"known answers": kat, "random": rand, "long messages": long_cases(spec, mode, rng),
            "bad arguments": bad}


#: ECB block counts of the long-message cases: around the 32-block groups of the RV32 SPEEDY
#: drops' bitsliced kernel (gen/kernels/speedy/rv32_bs32_c.py) and its padded remainder
LONG_BLOCKS = (0, 1, 31, 32, 33, 64, 65, 97)
#: driver flags of the long cases: aligned out of place, in place, input and output misaligned
LONG_FLAGS = (0, 1, (1 << 1) | (3 << 3))


def long_cases(spec, mode: str, rng: random.Random) -> list[Case]:
    """ECB over LONG_BLOCKS blocks and CTR over several groups of 32 blocks, one-shot (a counter
    that wraps at 2^32 at a group boundary, and one that wraps inside a group) and streamed in
    pieces of at most 256 bytes (the driver's): the multi-block paths of every block drop, in
    place and misaligned."""
    b, kb = spec.block_bytes, spec.key_bytes
    out = []
    for n in LONG_BLOCKS:
        for flags in LONG_FLAGS:
            key, data = rng.randbytes(kb), rng.randbytes(b * n)
            out.append(Case(OP_ECB, key, b"", data, ecb_reference(spec, key, data), flags=flags,
                            label=f"long ecb blocks={n} flags={flags}"))
    if mode != "ctr":
        return out
    for n, start, kind, flags in ((97 * b + 13, 0xFFFFFFFF - 31, OP_CTR, 0),
                                  (65 * b, 0xFFFFFFFF - 40, OP_CTR, LONG_FLAGS[2]),
                                  (64 * b + 5, 0xFFFFFFFF - 3, OP_CTR_STREAM, 1 | (200 << 16)),
                                  (40 * b + 7, 0xFFFFFFFF - 31, OP_CTR_STREAM, 255 << 16)):
        key, data = rng.randbytes(kb), rng.randbytes(n)
        iv = rng.randbytes(b - 4) + start.to_bytes(4, "big")
        out.append(Case(kind, key, iv, data, ctr_reference(spec, key, iv, data), flags=flags,
                        label=f"long ctr len={n} counter from {start:#x} flags={flags:#x}"))
    return out


def check(case: Case, result: tuple) -> str | None:
    rc, rc2, out = result
    if rc != case.expect_rc or rc2 != case.expect_rc2:
        return f"returned {rc}/{rc2}, expected {case.expect_rc}/{case.expect_rc2}"
    if case.op != OP_BADARG and out != case.expect_out:
        return "wrong output"
    return None


def run_groups(runner, groups: dict, report, place: str, progress=lambda _m: None) -> None:
    """Run each group of ``cases`` on ``runner``; count passes into ``report`` (emu/checks/validate.Report:
    known answers, random cases) and list failures there, prefixed with ``place``."""
    for label, group in groups.items():
        progress(f"  {place}: {label} ({len(group)} cases)")
        for case, result in zip(group, runner.run(group)):
            problem = check(case, result)
            if problem:
                report.failures.append(f"{place}: {case.label}: {problem}")
            elif label == "known answers":
                report.kat_passed += 1
            elif label == "random":
                report.differential_cases += 1


def validate(header: Path, prefix: str, target: str, spec, mode: str, seed: int, workdir: Path,
             fw: toolchain.Firmware | None = None, report=None, progress=lambda _m: None):
    """Run every case on the emulated core (and the host for `portable`) into `report`
    (emu/checks/validate.Report); raise emu.checks.validate.ValidationError listing failures."""
    from emu.checks.validate import Report, ValidationError
    report = report or Report()
    fw = fw or firmware(header, prefix, target, spec, mode, workdir)
    runners = [(f"emulated {fw.core}", EmuRunner(fw, codec=Codec))]
    if target == "portable":
        lib = toolchain.build_host_library(header, prefix, workdir, driver=DRIVER, defines=defines(spec, mode))
        runners.append(("host", HostRunner(lib, codec=Codec)))
    groups = cases(spec, mode, seed)
    for place, runner in runners:
        run_groups(runner, groups, report, place, progress)
        report.places.append(place)
        if isinstance(runner, EmuRunner):
            report.max_stack = max(report.max_stack, runner.max_stack)
    report.kat_source = spec.kat_source
    if report.failures:
        shown = "\n  ".join(report.failures[:10])
        raise ValidationError(f"{len(report.failures)} failing cases:\n  {shown}")
    return report


def bench(header: Path, prefix: str, target: str, spec, mode: str, workdir: Path,
          fw: toolchain.Firmware | None = None, progress=None) -> dict:
    """The manifest's `metrics` of a block-cipher drop: key set-up, ECB cycles per block (64
    blocks), CTR cycles at CTR_SIZES (ctr mode), sizes, ctx and stack (emu/bench/drop.py's rules)."""
    say = progress or (lambda _msg: None)
    sizes_info = toolchain.drop_sizes(header, prefix, target, workdir)
    fw = fw or firmware(header, prefix, target, spec, mode, workdir)
    if CTX_SYMBOL not in fw.symbols or fw.symbols[CTX_SYMBOL][1] == 0:
        raise BenchError(f"cannot find the size of {prefix}_ctx (no {CTX_SYMBOL} in the firmware)")
    ctx_bytes = fw.symbols[CTX_SYMBOL][1]
    b = _Bench(fw, prefix)
    m = b.machine
    blk, kb = spec.block_bytes, spec.key_bytes
    ctx = m.alloc(ctx_bytes)
    key = m.alloc(kb, _pattern(kb, 1), readonly=True)
    say(f"{prefix}: key setup")
    key_setup = b.measure("init", ctx, key, kb)
    say(f"{prefix}: ecb_encrypt, {ECB_BLOCKS} blocks")
    src = m.alloc(blk * ECB_BLOCKS, _pattern(blk * ECB_BLOCKS, 2), readonly=True)
    dst = m.alloc(blk * ECB_BLOCKS)
    ecb1 = b.measure("ecb_encrypt", ctx, dst, src, 1, expect=None)
    ecb = b.measure("ecb_encrypt", ctx, dst, src, ECB_BLOCKS, expect=None)
    if m.read(dst, blk) != spec.encrypt(_pattern(kb, 1), _pattern(blk, 2)):
        raise BenchError(f"{prefix}_ecb_encrypt gave a wrong block while measured")
    metrics = {"model": model_name(fw.core), "core": fw.core, "compiler": toolchain.compiler_description(fw.core, fw.extra_cflags),
               "key_setup_cycles": key_setup,
               "ecb_cycles_per_block": {"1": ecb1, str(ECB_BLOCKS): _r2(ecb / ECB_BLOCKS)},
               "ecb_cycles_per_byte": _r2(ecb / (ECB_BLOCKS * blk))}
    if mode == "ctr":
        cycles, per_byte = {}, {}
        iv = m.alloc(blk, _pattern(blk, 5), readonly=True)
        for n in CTR_SIZES:
            say(f"{prefix}: ctr, {n} bytes")
            msg, out = m.alloc(n, _pattern(n, 6), readonly=True), m.alloc(n)
            cycles[str(n)] = b.measure("ctr", ctx, iv, blk, msg, n, out)
            per_byte[str(n)] = _r2(cycles[str(n)] / n)
        metrics.update(cycles=cycles, cycles_per_byte=per_byte)
    metrics.update(text_bytes=sizes_info["text_bytes"], rodata_bytes=sizes_info["rodata_bytes"],
                   ctx_bytes=ctx_bytes, table_bytes=0, cache_bytes=0, stack_bytes=b.stack)
    return metrics
