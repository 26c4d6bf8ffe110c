"""The held polarity of every signal of SPEEDY's S-box circuit, chosen for the fewest NOTs over a
round's two S-boxes, for the 32-block bitsliced kernel (gen/kernels/speedy/rv32_bs32.py), where
every NOT is one instruction a row.

The trick: each gate of the circuit (and, or, andn, orn only) may compute its value or, by De
Morgan, its complement from complemented operands (``and`` on held complements is ``or``...), so
its output polarity is a free bit; a gate then needs its first operand in the gate's polarity and
its second in the same (and, or) or the other (andn, orn).  A signal needed in the polarity it is
not held in costs one NOT (then both are held).  The first S-box's input polarities are free (the
round-key masks set them), the second's are the first's output polarities; the outputs' are free
(the next round key, or the last one, absorbs them).  Minimised by a seeded local search over the
6 + 2 x 47 bits (deterministic); gen/kernels/speedy/rv32.py's greedy per-gate rule needs 8 + 8.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from gen.ir import Builder

#: op -> (second operand's polarity relative to the gate's, op on held values at polarity 0, at 1)
RULES = {"and": (0, "and", "orr"), "or": (0, "orr", "and"), "andn": (1, "and", "orr"), "orn": (1, "orr", "and")}
#: restarts and moves of the search (deterministic: seeded)
RESTARTS, MOVES, SEED = 20, 3000, 36


@dataclass(frozen=True)
class Plan:
    pin: tuple        # the first S-box's input polarities
    p1: tuple         # gate output polarities of the first S-box (circuit order)
    p2: tuple         # of the second
    nots: tuple       # NOTs of each


def nots(gates, inputs, pin, p) -> int:
    """NOTs one S-box needs with input polarities ``pin`` and gate polarities ``p``."""
    held = dict(zip(inputs, pin))
    need: dict[str, set] = {}
    for (dst, op, a, b), pg in zip(gates, p):
        rel = RULES[op][0]
        need.setdefault(a, set()).add(pg)
        need.setdefault(b, set()).add(pg ^ rel)
        held[dst] = pg
    return sum(1 for s, ps in need.items() if ps - {held[s]})


def _outputs(gates, outputs, p) -> tuple:
    pos = {g[0]: k for k, g in enumerate(gates)}
    return tuple(p[pos[o]] for o in outputs)


def search(spec) -> Plan:
    """The cheapest plan found (fewest NOTs over the round's two S-boxes); SPEEDY's circuit: 6 + 6
    (the greedy rule: 8 + 8), ~2.5 s, once a process (cached by circuit)."""
    return _search(spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs)


@functools.lru_cache(maxsize=None)
def _search(gates, ins, outs) -> Plan:
    assert all(g[1] in RULES for g in gates), "the search models and/or/andn/orn circuits only"
    n = len(gates)
    rng = random.Random(SEED)

    def cost(v):
        pin, p1, p2 = v[:6], v[6:6 + n], v[6 + n:]
        c1 = nots(gates, ins, pin, p1)
        c2 = nots(gates, ins, _outputs(gates, outs, p1), p2)
        return c1 + c2, c1, c2

    best = None
    for _ in range(RESTARTS):
        v = [rng.getrandbits(1) for _ in range(6 + 2 * n)]
        c = cost(v)
        for _ in range(MOVES):
            k = rng.randrange(len(v))
            v[k] ^= 1
            c2 = cost(v)
            if c2[0] <= c[0]:
                c = c2
            else:
                v[k] ^= 1
        if best is None or c < best[0]:
            best = (c, tuple(v))
    (_, c1, c2), v = best
    return Plan(pin=v[:6], p1=v[6:6 + n], p2=v[6 + n:], nots=(c1, c2))


def sbox(b: Builder, gates, inputs, outputs, ins: list, p) -> list:
    """The circuit on held values ``ins`` [(vreg, polarity)] with gate polarities ``p``:
    [(vreg, polarity)] of the outputs; a NOT only where a signal is needed in the polarity it is
    not held in (cached)."""
    held: dict[str, dict[int, int]] = {n: {pol: v} for n, (v, pol) in zip(inputs, ins)}

    def get(s, pol):
        if pol not in held[s]:
            held[s][pol] = b.mvn(held[s][1 - pol])
        return held[s][pol]

    pol = {}
    for (dst, op, a, bb), pg in zip(gates, p):
        rel, g0, g1 = RULES[op]
        held[dst] = {pg: b.alu(g1 if pg else g0, get(a, pg), get(bb, pg ^ rel))}
        pol[dst] = pg
    return [(held[o][pol[o]], pol[o]) for o in outputs]
