"""Run batches of GCM cases through a drop: in the emulated core, or on the host."""
from __future__ import annotations

import ctypes
from pathlib import Path

from emu.machines.machine import Machine
from emu.machines.toolchain import Firmware
from emu.checks import vectors

BATCH_BYTES = 3 * 1024 * 1024


def batches(cases: list, codec=vectors):
    batch, size = [], 0
    for c in cases:
        n = len(codec.encode([c]))
        if batch and size + n > BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(c)
        size += n
    if batch:
        yield batch


class EmuRunner:
    """The batch driver in Unicorn; one emu_start per batch. ``codec`` packs cases and unpacks
    results for the driver (emu/checks/vectors.py for GCM, emu/checks/blockcipher.Codec for block ciphers)."""

    def __init__(self, firmware: Firmware, codec=vectors):
        self.codec = codec
        self.firmware = firmware
        self.machine = Machine(firmware.core, firmware.image)
        self.entry = firmware.addr("sg_run_batch")
        self.max_stack = 0

    def run(self, cases: list) -> list[tuple]:
        results = []
        for batch in batches(cases, self.codec):
            m = self.machine
            m.reset_buffers()
            blob = self.codec.encode(batch)
            src = m.alloc(len(blob), blob, readonly=True)
            dst = m.alloc(self.codec.result_size(batch))
            m.call(self.entry, src, len(batch), dst, timeout_s=300.0)
            self.max_stack = max(self.max_stack, m.stack_used)
            results += self.codec.decode(batch, m.read(dst, self.codec.result_size(batch)))
        return results


class HostRunner:
    """The same driver compiled for the host, through ctypes."""

    def __init__(self, library: Path, codec=vectors):
        self.codec = codec
        self.lib = ctypes.CDLL(str(library))
        self.lib.sg_run_batch.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_char_p]
        self.lib.sg_run_batch.restype = ctypes.c_uint32

    def run(self, cases: list) -> list[tuple]:
        results = []
        for batch in batches(cases, self.codec):
            blob = self.codec.encode(batch)
            out = ctypes.create_string_buffer(self.codec.result_size(batch))
            self.lib.sg_run_batch(blob, len(batch), out)
            results += self.codec.decode(batch, out.raw)
        return results
