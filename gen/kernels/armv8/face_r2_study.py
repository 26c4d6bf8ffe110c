"""Not a kernel: the instruction mix of a stitched loop step with a second cached round (FACE r2,
Park and Lee, CHES 2018, in an A-class form), for llvm-mca to cost (docs/armv8.md).

After round 1, the blocks of a group in one low-byte run differ only in column 0 (ctr_table.py),
so round 2's varying input is those 4 bytes; their S-boxes are key-dependent, so they need an
AESE (a table indexed by them would not be constant time). The batched form: one TBL gathers the
4 varying bytes of 4 blocks into one vector, one AESE gives their S-boxes (ShiftRows absorbed by
the gather's indices), `xtime` gives 2s and 3s, and per block one 3-register TBL spreads
s/2s/3s to the MixColumns positions and one EOR adds the base. Round 2's AESE/AESMC pair of
blocks 1..7 (14 AES-pipe instructions) becomes 2 AESEs. Only the mix and the dependencies are
right (indices and tables are loaded from x9): enough for a cost, not for a result.
"""
from __future__ import annotations

from gen.kernels.armv8 import choose


def r2_work() -> list[str]:
    out = []
    for g, last in enumerate((4, 7)):                   # blocks 1-4 and 5-7 (TBL wants consecutive registers)
        out += [f"ldr q27, [x9, #{64 * g}]",
                f"tbl v28.16b, {{v{last - 3}.16b, v{last - 2}.16b, v{last - 1}.16b, v{last}.16b}}, v27.16b",
                "ldr q29, [x9, #128]", "aese v28.16b, v29.16b",
                "sshr v30.16b, v28.16b, #7", "movi v27.16b, #0x1b", "and v30.16b, v30.16b, v27.16b",
                "shl v29.16b, v28.16b, #1", "eor v29.16b, v29.16b, v30.16b", "eor v30.16b, v29.16b, v28.16b"]
        for b in range(last - 3 if g == 0 else 5, last + 1):
            out += [f"ldr q27, [x9, #{160 + 16 * b}]", f"tbl v{b}.16b, {{v28.16b, v29.16b, v30.16b}}, v27.16b",
                    f"eor v{b}.16b, v{b}.16b, v15.16b"]
    return out


def r2_loop_body(keybits: int = 128, spread: str = "early") -> list[str]:
    """The stitched loop step (8 blocks, Karatsuba, round-1 table) with round 2 of blocks 1..7
    replaced by ``r2_work``, placed where block 0's round 2 starts (block 0's round 2 gives the
    run's base of round 2, as block 0's round 1 did for the r1 table before run_base)."""
    body = choose.stitched_body(keybits, 8, "karatsuba", spread, cached=True)
    out, count = [], {}
    for line in body:
        op, reg = line.split()[0], line.split()[1].split(".")[0] if " " in line else ""
        if op in ("aese", "aesmc") and reg in {f"v{i}" for i in range(1, 8)}:
            count[(reg, op)] = count.get((reg, op), 0) + 1
            if count[(reg, op)] == 1:                   # the block's first pair is round 2 (round 1: the table)
                continue
        out.append(line)
    at = [i for i, line in enumerate(out) if line.startswith("aese v0.16b")][0]      # block 0's round 2
    return out[:at] + r2_work() + out[at:]
