"""The E31 cycle model cross-checked against llvm-mca-19 -mcpu=sifive-e31 over the same executed
instruction stream (issue 36).

A call runs in Unicorn's E31 with the E31 cycle counter (emu/bench/rv32_cycles.py) attached and a
block hook that records the stream; every executed instruction is printed by capstone, control
transfers (branches, jumps, calls, returns) as 1-cycle ``nop``s (llvm-mca's sifive-e31 model is
LLVM's Rocket model: no taken-branch cost, and a ~98-cycle stall after every JAL/JALR of a
straight-line stream, an artifact: DESIGN.md), and the text goes to ``llvm-mca-19
-mtriple=riscv32 -mcpu=sifive-e31 -iterations=1``.

Where the two differ, and why (``explain``): the Rocket model gives MUL/MULH* a 4-cycle latency
and a pipelined multiplier where the E31 manual (FE310-G000 3.3) says 5 cycles and a multiplier
that blocks until the previous operation completes; it has no branch predictor (our model's
mispredicts cost 3 cycles each, section 3.2); it charges every DIV/REM 33 cycles where ours
depends on the operands.  Loads (LW 2, sub-word 3) and the ALU (1) agree.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from unicorn import UC_HOOK_BLOCK

from gen import cores
from emu.bench.rv32_cycles import CycleCounter
from emu.machines import layout, toolchain
from emu.machines.machine import Machine
from emu.platforms import rv32_classify as C

MCA = "llvm-mca-19"
_CONTROL = frozenset({"branch", "jump", "jumpr"})


def tool_version() -> str:
    out = subprocess.run([toolchain.tool(MCA), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version (\S+)", out)
    return f"llvm-mca {m.group(1) if m else '?'}"


def mca_cycles(lines: list[str], workdir: Path) -> int:
    src = Path(workdir) / "stream-sifive-e31.s"
    src.write_text("\n".join(lines) + "\n")
    out = toolchain.run([toolchain.tool(MCA), "-mtriple=riscv32", "-mcpu=sifive-e31", "-iterations=1",
                         "-summary-view", "-resource-pressure=false", "-instruction-info=false", str(src)],
                        Path(workdir))
    m = re.search(r"Total Cycles:\s+(\d+)", out)
    if not m:
        raise ValueError(f"llvm-mca gave no total:\n{out[:2000]}")
    return int(m.group(1))


class StreamRecorder:
    """The executed instruction stream of the calls made while ``recording`` is true."""

    def __init__(self, machine: Machine, code_end: int):
        self.uc = machine.uc
        self.recording = False
        self.blocks: list[tuple[int, int]] = []
        self._decoded: dict[tuple[int, int], list] = {}
        self._md = C.disassembler()
        self.uc.hook_add(UC_HOOK_BLOCK, self._on_block, begin=layout.FLASH_BASE, end=code_end - 1)
        self.uc.ctl_flush_tb()

    def _on_block(self, uc, address, size, _user):
        if self.recording:
            self.blocks.append((address, size))

    def instructions(self):
        """(Insn, text) of every executed instruction, in order."""
        for key in self.blocks:
            d = self._decoded.get(key)
            if d is None:
                code = bytes(self.uc.mem_read(*key))
                d = self._decoded[key] = [(C.classify_capstone(i), f"{i.mnemonic} {i.op_str}".strip())
                                          for i in self._md.disasm(code, key[0])]
            yield from d


def cross_check(fw: toolchain.Firmware, calls, workdir: Path) -> dict:
    """Run ``calls`` (a function of (machine, call) that makes the set-up calls untraced and
    returns the measured call as (symbol, args)), count it with the E31 model and with llvm-mca
    over its stream; the figures and the differences' sources."""
    m = Machine(fw.core, fw.image)
    end = layout.FLASH_BASE + len(fw.image)
    counter = CycleCounter(m.uc, fw.core, layout.FLASH_BASE, end)
    rec = StreamRecorder(m, end)
    symbol, args = calls(m, lambda name, *a: m.call(fw.addr(name), *a))
    counter.reset()
    rec.recording = True
    m.call(fw.addr(symbol), *args)
    rec.recording = False
    ours = counter.cycles
    lines, counts = [], {"mul": 0, "div": 0, "control": 0, "instructions": 0}
    for ins, text in rec.instructions():
        counts["instructions"] += 1
        if ins.cls in _CONTROL:
            counts["control"] += 1
            lines.append("nop")
        else:
            if ins.cls in ("mul", "div"):
                counts[ins.cls] += 1
            lines.append(text)
    mca = mca_cycles(lines, workdir)
    return {"call": symbol, "model_cycles": ours, "llvm_mca_cycles": mca, "tool": tool_version(),
            "instructions": counts["instructions"], "muls": counts["mul"], "divides": counts["div"],
            "control_transfers": counts["control"], "mispredicts": counter.mispredicts,
            "mispredict_cycles": cores.get(fw.core).MISPREDICT * counter.mispredicts, "stall_cycles": counter.stall_cycles,
            "difference_pct": round(100.0 * (ours - mca) / mca, 2)}


ECB_BLOCKS = 64


def ecb_cross_check(fw: toolchain.Firmware, prefix: str, spec, workdir: Path) -> dict:
    """``cross_check`` of ``PREFIX_ecb_encrypt`` over ECB_BLOCKS blocks (after ``PREFIX_init``):
    the kernel the issue's c/B targets are about, for any drop kind."""
    blk, kb = spec.block_bytes, spec.key_bytes

    def calls(m, call):
        ctx = m.alloc(8192)
        key = m.alloc(kb, bytes(range(kb)), readonly=True)
        if call(f"{prefix}_init", ctx, key, kb) != 0:
            raise ValueError(f"{prefix}_init failed")
        src, dst = m.alloc(ECB_BLOCKS * blk, bytes(ECB_BLOCKS * blk), readonly=True), m.alloc(ECB_BLOCKS * blk)
        return f"{prefix}_ecb_encrypt", (ctx, dst, src, ECB_BLOCKS)
    out = cross_check(fw, calls, workdir)
    out["blocks"] = ECB_BLOCKS
    return out
