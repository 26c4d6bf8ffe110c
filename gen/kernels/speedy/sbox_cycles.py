"""Pick SPEEDY's S-box circuit by modelled cycles, register pressure included.

Every circuit of gen/circuits/sbox_pool.py is checked on all 64 inputs, put into one middle
round and compiled by the generator's own pipeline; the score is that round's modelled cycles,
spills included (ties: fewer gates, then pool order).

    .venv/bin/python -m gen.kernels.speedy.sbox_cycles     # prints the scores and the winner

reproduces ``gen/circuits/speedy_sbox.GATES`` (tests/test_speedy_thumb2.py).  More:
docs/internals/speedy.md.
"""
from __future__ import annotations

import dataclasses
import sys

from gen.ciphers.base import circuit_table
from gen.circuits import sbox_pool
from gen.circuits.speedy_sbox import POOL_ARGS
from gen.ir import Builder, Program
from gen.kernels import thumb2_function as TF
from gen.kernels.thumb2_function import cheapest
from gen.kernels.speedy.encrypt import THUMB2_STRATEGIES
from gen.kernels.speedy.rounds import emit_add_round_key, emit_mixcolumns, emit_sbox, shift_columns

SCORE_CORE = "cortex-m3"      # the issue's headline core; the M4's table gives the same ALU costs
PARAMS = [TF.Param("rk", "const uint32_t *", "rk"), TF.Param("out", "uint32_t *", "out"),
          TF.Param("in", "const uint32_t *", "in")]


def round_program(spec, gates) -> Program:
    """One middle round of ``spec`` with S-box circuit ``gates``: columns in, columns out."""
    spec = dataclasses.replace(spec, sbox_circuit=tuple(gates))
    b = Builder(f"{spec.name}_round")
    b.declare("in", 6, "r")
    b.declare("rk", 6, "r")
    b.declare("out", 6, "w")
    x = emit_add_round_key(b, [(b.ld("in", j), 0) for j in range(6)], 0)
    x = shift_columns(emit_sbox(b, spec, x))
    x = shift_columns(emit_sbox(b, spec, x))
    x = emit_mixcolumns(b, x, spec.linear_layer["mixcolumns"])
    for j, (v, rot) in enumerate(x):
        b.st("out", j, b.ror(v, rot) if rot else v)
    return b.finish()


def round_cycles(spec, gates, core: str = SCORE_CORE, seed: int = 0) -> dict:
    """Modelled cycles, spills and reloads of one compiled round with circuit ``gates``, compiled
    as the kernel is (the cheapest of the family's list schedulers)."""
    fn = cheapest(round_program(spec, gates), f"{spec.name}_round", PARAMS, core, seed, THUMB2_STRATEGIES,
                  pinned=("rk",))
    return {"cycles": fn.cycles, "spills": fn.spills, "reloads": fn.reloads, "gates": len(gates)}


def scored_pool(spec, core: str = SCORE_CORE) -> list:
    """[(score dict, gates)] for the whole pool, best first."""
    names_in, names_out = spec.sbox_inputs, spec.sbox_outputs
    cands = sbox_pool.pool(list(spec.sbox), spec.sbox_bits, spec.sbox_bits, names_in, names_out,
                           **POOL_ARGS)
    out = []
    for k, gates in enumerate(cands):
        if circuit_table(gates, names_in, names_out, spec.sbox_bits) != list(spec.sbox):
            raise AssertionError(f"pool circuit {k} does not compute the S-box")
        out.append((round_cycles(spec, gates, core), k, gates))
    out.sort(key=lambda s: (s[0]["cycles"], s[0]["gates"], s[1]))
    return [(score, gates) for score, _, gates in out]


def choose(spec, core: str = SCORE_CORE) -> tuple:
    return scored_pool(spec, core)[0][1]


def main(argv=None) -> int:
    from gen.ciphers import get
    spec = get("speedy5")
    ranked = scored_pool(spec)
    gate_counts = sorted({s["gates"] for s, _ in ranked})
    print(f"{len(ranked)} circuits in the pool, {gate_counts[0]}..{gate_counts[-1]} gates; "
          f"round cycles on the {SCORE_CORE} model:")
    for score, gates in ranked[:10]:
        print(f"  {score}")
    print("fewest gates:", min(ranked, key=lambda sg: (sg[0]['gates'], sg[0]['cycles']))[0])
    print("winner:")
    print(repr(ranked[0][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
