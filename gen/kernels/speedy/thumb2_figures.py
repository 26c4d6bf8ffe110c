"""SPEEDY-r-192 in Thumb-2: the kernel's top comment, its figures for the manifest, and the
list schedulers it is compiled with (``STRATEGIES``, from encrypt.py).

The code itself is the family's IR compiled by gen/kernels/block_thumb2.py; this module says
what is in it (comment) and what it costs per part (the generator's cycle model):

* ``middle_round``: cycles one more round adds to a block call (the encrypt program of r + 1
  rounds minus that of r rounds, both compiled for the core with the drop's seed), so packing,
  unpacking and the call frame are outside it;
* ``round_alone``: one middle round compiled as a function of its own (the S-box choice's
  score, gen/kernels/speedy/sbox_cycles.py), call frame included;
* facts: S-box gates by kind, IR ops per round part and of the packing transposes.
"""
from __future__ import annotations

import dataclasses
from collections import Counter

from gen.kernels.block_thumb2 import ENC_PARAMS
from gen.kernels.thumb2_function import cheapest
from gen.kernels.speedy import sbox_cycles
from gen.kernels.speedy.encrypt import THUMB2_STRATEGIES as STRATEGIES
from gen.kernels.speedy.encrypt import encrypt_program
from gen.kernels.speedy.portable import round_stats
from gen.kernels.speedy.rounds import mix_plan


def _encrypt_cycles(spec, core: str, seed: int) -> int:
    return cheapest(encrypt_program(spec), f"{spec.name}_encrypt_blocks", ENC_PARAMS, core, seed, STRATEGIES,
                    pinned=("rk",)).cycles


def figures(spec, core: str, seed: int = 0) -> tuple[dict, dict]:
    """(cycles, facts) of the Thumb-2 kernel of ``spec`` on ``core``."""
    longer = dataclasses.replace(spec, rounds=spec.rounds + 1)
    cycles = {"middle_round": _encrypt_cycles(longer, core, seed) - _encrypt_cycles(spec, core, seed),
              "round_alone": sbox_cycles.round_cycles(spec, spec.sbox_circuit, core, seed)["cycles"]}
    facts = {"sbox_gates": len(spec.sbox_circuit),
             "sbox_gate_kinds": dict(sorted(Counter(op for _, op, _, _ in spec.sbox_circuit).items())),
             "mixcolumns_eors_per_column": mixcolumns_eors(spec),
             "round_ir_ops": round_stats(spec)}
    return cycles, facts


def comment(spec, core: str) -> str:
    kinds = Counter(op for _, op, _, _ in spec.sbox_circuit)
    mix = mixcolumns_eors(spec)
    return (f"/* {spec.title} for {core}, column-sliced: one block is six 32-bit column words (row i of "
            f"column j at bit 31 - i).\n"
            f" * S-box: a {len(spec.sbox_circuit)}-gate circuit ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}; "
            f"andn = BIC, orn = ORN), one instruction per gate, found by the generator and chosen by the "
            f"modelled cycles of a compiled round (gen/kernels/speedy/sbox_cycles.py). It is small because SPEEDY's "
            f"S-box coordinates are two-level NAND-NAND functions by design: each has a minimal sum of 4 products "
            f"of 2 or 3 literals (10 or 11 gates, 63 for the six), and factoring and sharing across the outputs, "
            f"with BIC/ORN taking every negation for free, bring that to {len(spec.sbox_circuit)}.\n"
            f" * ShiftColumns costs no instruction: each column's rotation is carried and folded into the shifted "
            f"operand of the next instruction that reads it. MixColumns: {mix} EORs per column, every rotation in an "
            f"operand. Round constants are folded into the round keys by init.\n"
            f" * No branch and no address depends on the key or the data. */\n")


def mixcolumns_eors(spec) -> int:
    """EORs per column of rounds.emit_mixcolumns: one per pair base (x ^ rotl(x, d)), then one per
    term after the first."""
    _, bases, singles = mix_plan(spec.linear_layer["mixcolumns"])
    return len(bases) + len(singles) - 1 + (1 if bases else 0)
