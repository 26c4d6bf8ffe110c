"""Many small S-box circuits instead of one: the candidates a cycle-scored choice picks from.

Gate count is not what a kernel pays (spills are), so this keeps a *pool*: sbox_search.py's
greedy construction as a beam search (``margin``, ``width``, ``slack``), plus XOR against a signal
already built.  Gates are one Thumb-2 instruction each (and/or/xor, andn = BIC, orn = ORN).
Deterministic; the caller checks every circuit on all inputs (gen/kernels/speedy/sbox_cycles.py).
More: docs/internals/speedy.md.
"""
from __future__ import annotations

from functools import lru_cache

from gen.circuits import sbox_search as S


def _table_bits(table, n_out: int, k: int) -> int:
    return sum(1 << x for x, t in enumerate(table) if (t >> (n_out - 1 - k)) & 1)


#: an XOR remainder with more prime implicants than this is not worth a cover search (its covers
#: are far longer than the output's own, and enumerating them is exponential)
XOR_MAX_PRIMES = 14
#: factorings tried per XOR remainder (the first ones: the factoring search's own order)
XOR_MAX_FACTORINGS = 4


@lru_cache(maxsize=None)
def _sop_candidates(on_bits: int, n: int, slack: int, max_primes: int | None = None) -> tuple:
    """Factored sums of products for the function with on-set ``on_bits`` (a truth-table int)."""
    on = [x for x in range(1 << n) if (on_bits >> x) & 1]
    if not on:
        return ()
    primes = S.prime_implicants(on, n)
    if max_primes is not None and len(primes) > max_primes:
        return ()
    out = []
    for cover in S.covers(on, primes, slack):
        out.extend(S.factorings(S._lit_products(cover, n)))
    return tuple(out)


def _signal_tables(em: S.Emitter, n: int) -> dict:
    """Truth table of every input and gate of ``em`` (as ints over the 2**n inputs)."""
    full = (1 << (1 << n)) - 1
    env = {name: sum(1 << x for x in range(1 << n) if (x >> (n - 1 - k)) & 1)
           for k, name in enumerate(em.inputs)}
    ops = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
           "andn": lambda a, b: a & ~b & full, "orn": lambda a, b: (a | ~b) & full,
           "not": lambda a, b: ~a & full}
    for dst, op, a, b in em.gates:
        env[dst] = ops[op](env[a], None if b is None else env[b])
    return env


def _emit_xor(em: S.Emitter, s: str, e, name: str) -> S.Emitter:
    t = em.copy()
    v, neg = t.expr(e)
    x = t.gate("xor", min(s, v), max(s, v)) if s != v else None
    if x is None:
        return None
    t.gates.append((name, "not" if neg else "or", x, None if neg else x))
    return t


def _trials(em: S.Emitter, f: int, name: str, n: int, slack: int, xor: bool) -> list:
    """Every way to add output ``name`` (truth table f) to ``em``: (gates after, emitter)."""
    out = []
    for e in _sop_candidates(f, n, slack):
        t = em.copy()
        t.output(e, name)
        out.append(t)
    if xor:
        for s, ts in sorted(_signal_tables(em, n).items()):
            if s.startswith("@"):
                continue
            for e in _sop_candidates(f ^ ts, n, 0, XOR_MAX_PRIMES)[:XOR_MAX_FACTORINGS]:
                t = _emit_xor(em, s, e, name)
                if t is not None:
                    out.append(t)
    return sorted(((len(t.gates), t) for t in out), key=lambda gt: (gt[0], gt[1].gates))


def pool(table, n_in: int, n_out: int, inputs: tuple, outputs: tuple, slack: int = 1,
         width: int = 2, margin: int = 1, xor: bool = True) -> list:
    """Distinct circuits for ``table`` (finalised as sbox_search.search does), fewest gates first."""
    fs = [_table_bits(table, n_out, k) for k in range(n_out)]
    found: dict = {}

    def grow(em: S.Emitter, todo: tuple) -> None:
        if not todo:
            gates = S._finalise(em.gates)
            found.setdefault(gates, None)
            return
        # next output: the one whose cheapest candidate adds the fewest gates now (as search())
        best = {k: _trials(em, fs[k], f"@{outputs[k]}", n_in, slack, xor) for k in todo}
        k = min(todo, key=lambda j: (best[j][0][0], j))
        top = best[k][0][0]
        for g, t in best[k][:width]:
            if g <= top + margin:
                grow(t, tuple(j for j in todo if j != k))

    for first in range(n_out):
        em = S.Emitter(inputs)
        for g, t in _trials(em, fs[first], f"@{outputs[first]}", n_in, slack, xor)[:width]:
            grow(t, tuple(j for j in range(n_out) if j != first))
    return sorted(found, key=lambda gates: (len(gates), gates))
