"""A small, honest search for a bitsliced S-box circuit: two-level minimisation, then factoring
and sharing, costed in the ops a bitsliced kernel pays (and / or / andn / orn, one each).

Quine-McCluskey covers within ``slack`` of the minimum, algebraic factoring, structural hashing
across outputs with lazy negations, outputs ordered greedily.  Deterministic; the result is kept
as data and checked there on every input.  Steps: docs/internals/speedy.md.
"""
from __future__ import annotations

from itertools import combinations

Cube = tuple[int, int]     # (care mask, value) over n input bits; bit n-1-v is input x_v


def prime_implicants(on: list[int], n: int) -> list[Cube]:
    full = (1 << n) - 1
    cubes = {(full, x) for x in on}
    primes: set[Cube] = set()
    while cubes:
        merged, used = set(), set()
        cl = sorted(cubes)
        for i, a in enumerate(cl):
            for b in cl[i + 1:]:
                d = a[1] ^ b[1]
                if a[0] == b[0] and d and not d & (d - 1):
                    merged.add((a[0] & ~d, a[1] & ~d))
                    used.update((a, b))
        primes |= cubes - used
        cubes = merged
    return sorted(primes)


def _covers(c: Cube, x: int) -> bool:
    return x & c[0] == c[1]


def _literals(c: Cube) -> int:
    return bin(c[0]).count("1")


def covers(on: list[int], primes: list[Cube], slack: int) -> list[tuple[Cube, ...]]:
    """Irredundant covers of ``on`` with a literal count within ``slack`` of the minimum."""
    found: list[tuple[int, tuple[Cube, ...]]] = []
    best = None
    for k in range(1, len(primes) + 1):
        if best is not None and k > best + slack:   # ran past any cover worth having
            break
        for sub in combinations(primes, k):
            if all(any(_covers(c, x) for c in sub) for x in on):
                if any(all(any(_covers(c, x) for c in sub if c != d) for x in on) for d in sub):
                    continue                        # redundant
                cost = sum(_literals(c) for c in sub)
                found.append((cost, sub))
                best = cost if best is None else min(best, cost)
    return [sub for cost, sub in sorted(found) if cost <= best + slack]


# ---- expressions: ('lit', v, neg) | ('and', e1, e2, ...) | ('or', e1, e2, ...) ----

def _cube_expr(c: Cube, n: int):
    lits = [("lit", v, not (c[1] >> (n - 1 - v)) & 1) for v in range(n) if (c[0] >> (n - 1 - v)) & 1]
    return lits[0] if len(lits) == 1 else ("and",) + tuple(lits)


def factorings(products: list[frozenset]):
    """All algebraic factorings of a sum of products (products as frozensets of literals)."""
    if len(products) == 1:
        p = sorted(products[0])
        yield p[0] if len(p) == 1 else ("and",) + tuple(p)
        return
    counts: dict = {}
    for p in products:
        for lit in p:
            counts[lit] = counts.get(lit, 0) + 1
    shared = sorted(l for l, k in counts.items() if k >= 2)
    if not shared:
        for_each = [sorted(p) for p in products]
        yield ("or",) + tuple(p[0] if len(p) == 1 else ("and",) + tuple(p) for p in for_each)
        return
    for lit in shared:
        inner = [p - {lit} for p in products if lit in p]
        rest = [p for p in products if lit not in p]
        if any(not p for p in inner):          # lit alone is a product: absorbs the others
            continue
        for fi in factorings(inner):
            term = ("and", lit, fi)
            if not rest:
                yield term
                continue
            for fr in factorings(rest):
                yield ("or", term, fr)


class Emitter:
    """Gates with structural hashing and lazy negation; a value is (name, negated)."""

    def __init__(self, inputs: tuple[str, ...]):
        self.inputs = inputs
        self.gates: list[tuple] = []
        self.cache: dict[tuple, str] = {}

    def copy(self) -> "Emitter":
        e = Emitter(self.inputs)
        e.gates, e.cache = list(self.gates), dict(self.cache)
        return e

    def gate(self, op: str, a: str, b) -> str:
        key = (op,) + ((min(a, b), max(a, b)) if op in ("and", "or") else (a, b))
        if key not in self.cache:
            self.cache[key] = f"t{len(self.gates)}"
            self.gates.append((self.cache[key], op, a, b))
        return self.cache[key]

    def binary(self, op: str, x, y):
        (a, na), (b, nb) = x, y
        dual = "or" if op == "and" else "and"
        if not na and not nb:
            return self.gate(op, a, b), False
        if na and nb:                       # ~a & ~b = ~(a | b);  ~a | ~b = ~(a & b)
            return self.gate(dual, a, b), True
        if na:
            a, b = b, a
        return self.gate("andn" if op == "and" else "orn", a, b), False

    def expr(self, e):
        if e[0] == "lit":
            return self.inputs[e[1]], bool(e[2])
        vals = [self.expr(x) for x in e[1:]]
        vals.sort(key=lambda v: v[1])       # positive operands first: fewer lazy negations
        acc = vals[0]
        for v in vals[1:]:
            acc = self.binary(e[0], acc, v)
        return acc

    def output(self, e, name: str) -> None:
        v, neg = self.expr(e)
        self.gates.append((name, "not" if neg else "or", v, None if neg else v))


def _lit_products(cover: tuple[Cube, ...], n: int) -> list[frozenset]:
    out = []
    for c in cover:
        out.append(frozenset(("lit", v, int(not (c[1] >> (n - 1 - v)) & 1))
                             for v in range(n) if (c[0] >> (n - 1 - v)) & 1))
    return out


def _candidates(table_bits: list[int], n: int, slack: int):
    on = [x for x, b in enumerate(table_bits) if b]
    out = []
    for cover in covers(on, prime_implicants(on, n), slack):
        out.extend(factorings(_lit_products(cover, n)))
    return out


def search(table: list[int], n_in: int, n_out: int, inputs: tuple[str, ...], outputs: tuple[str, ...],
           slack: int = 1) -> tuple:
    """A gate list for ``table`` (inputs / outputs named MSB first)."""
    cands = [_candidates([(t >> (n_out - 1 - k)) & 1 for t in table], n_in, slack)
             for k in range(n_out)]
    best = None
    for first in range(n_out):
        em, todo = Emitter(inputs), list(range(n_out))
        order = [first]
        while True:
            k = order[-1]
            todo.remove(k)
            trial = []
            for e in cands[k]:
                t = em.copy()
                t.output(e, f"@{outputs[k]}")
                trial.append((len(t.gates), t))
            em = min(trial, key=lambda x: x[0])[1]
            if not todo:
                break
            # next: the output whose cheapest candidate adds the fewest gates now
            def added(j):
                return min(len((lambda t: (t.output(e, "_"), t)[1])(em.copy()).gates) for e in cands[j])
            order.append(min(todo, key=lambda j: (added(j), j)))
        if best is None or len(em.gates) < len(best.gates):
            best = em
    return _finalise(best.gates)


def _finalise(gates: list[tuple]) -> tuple:
    """Name the outputs: an output gate 'or v v' (a copy) renames v; a 'not' stays a gate."""
    rename: dict[str, str] = {}
    out = []
    for dst, op, a, b in gates:
        if dst.startswith("@") and op == "or" and a == b and a not in rename:
            rename[a] = dst[1:]
    for dst, op, a, b in gates:
        if dst.startswith("@") and op == "or" and a == b and rename.get(a) == dst[1:]:
            continue
        f = lambda x: None if x is None else rename.get(x, x)
        out.append((dst.lstrip("@") if dst.startswith("@") else f(dst), op, f(a), f(b)))
    # temporaries numbered in order
    names: dict[str, str] = {}
    final = []
    for dst, op, a, b in out:
        g = lambda x: None if x is None else names.get(x, x)
        a, b = g(a), g(b)
        if dst.startswith("t"):
            names[dst] = f"t{len(names)}"
            dst = names[dst]
        final.append((dst, op, a, b))
    return tuple(final)
