"""Where the modelled cycles of the Thumb-2 AES encrypt2 kernel go: every instruction's cost in
gen/cores/timing.sequence_cycles (its isolated cost plus its pair adjustment with the instruction
before it, so the parts add up to the kernel's cycles exactly), by what the instruction is for:
ALU work, loads of the data and round keys, spill stores, reloads (of spilled values, of round-key
words from rk, of the pointers), output stores, and the prologue/epilogue."""
from __future__ import annotations

from gen.cores import timing as T

PARTS = ("alu", "loads", "spill_stores", "reloads", "stores", "frame")


def part(insn, k: int, n: int) -> str:
    if k == 0 or insn.mnem in ("push", "pop", "vpush", "vpop") or (k >= n - 2 and insn.mnem == "add"):
        return "frame"
    note = getattr(insn, "note", "") or ""
    if note.startswith(("home", "frame")):   # arguments to their FPU homes, round keys into s16-s31
        return "frame"
    if note.startswith("spill"):
        return "spill_stores"
    if note.startswith("reload"):
        return "reloads"
    if insn.mnem.startswith("ldr") or (insn.mnem == "vmov" and insn.srcs[0].startswith("s")):
        return "loads"                   # (a VMOV from s16-s31 without a note: a round-key word, fpu_rk)
    if insn.mnem.startswith("str"):
        return "stores"
    if insn.mnem == "add" and k == 1 and "sp" in str(insn.text()):
        return "frame"
    return "alu"


def breakdown(insns, core: str, total: int | None = None) -> dict:
    """Cycles by part (PARTS) of a whole function, prologue to return; they add up to
    timing.sequence_cycles(insns).  ``total``: the figure of the function as run in a loop
    (gen/kernels/aes/ecb_thumb2.compile_loop: a loop step); the frame part is then the rest, the
    back edge in place of the prologue and the epilogue."""
    out = dict.fromkeys(PARTS, 0)
    prev = None
    for k, insn in enumerate(insns):
        i = insn.timing()
        out[part(insn, k, len(insns))] += T.insn_cycles(i, core, taken=False, which="max") + T.pair_adjust(prev, i)
        prev = i
    if total is not None:
        out["frame"] += total - sum(out[p] for p in PARTS)
    out["total"] = sum(out[p] for p in PARTS)
    return out


def describe(parts: dict) -> str:
    return ", ".join(f"{p.replace('_', ' ')} {parts[p]}" for p in PARTS) + f" = {parts['total']} cycles"
