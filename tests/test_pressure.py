"""gen/explore/pressure.py: the values live at one op in every evaluation order are a true lower
bound of MAXLIVE (checked against every topological order of small programs and against random
and stored orders of the AES segments), and the S-box's floor is what docs/cortex-m4.md says."""
import itertools
import random

from gen.explore import pressure as P
from gen.explore.cpsat import REGISTERS, maxlive
from gen.ir import Builder
from gen.kernels.aes import thumb2 as A
from gen.sched import listsched


def harness(body):
    """A segment program: 8 input loads, ``body(b, q) -> 8 results``, 8 stores."""
    b = Builder("t")
    b.declare("in", 8, "r")
    b.declare("rk", 8, "r", constant=True)
    b.declare("out", 8, "w")
    q = [b.ld("in", i) for i in range(8)]
    out = body(b, q)
    for i in range(8):
        b.st("out", i, out[i])
    return b.finish()


def topological_orders(prog):
    """Every topological order of the segment's ops (positions inside the segment)."""
    n = len(prog.ops)
    lo, hi = P.HARNESS, n - P.HARNESS
    preds = [{p - lo for p in ps if lo <= p < hi} for ps in listsched.dependences(prog)[lo:hi]]

    def rec(done, order):
        if len(order) == hi - lo:
            yield tuple(order)
            return
        for g in range(hi - lo):
            if g not in done and preds[g] <= done:
                yield from rec(done | {g}, order + [g])
    yield from rec(frozenset(), [])


def random_order(prog, rng):
    n = len(prog.ops)
    lo, hi = P.HARNESS, n - P.HARNESS
    preds = [{p - lo for p in ps if lo <= p < hi} for ps in listsched.dependences(prog)[lo:hi]]
    done, order = set(), []
    while len(order) < hi - lo:
        g = rng.choice([g for g in range(hi - lo) if g not in done and preds[g] <= done])
        done.add(g)
        order.append(g)
    return tuple(order)


def small_programs():
    """Programs small enough to try every order (a few thousand at most)."""
    def chain(b, q):          # a running XOR; its partial sums also go out
        acc, outs = q[0], []
        for x in q[1:5]:
            acc = b.eor(acc, x)
            outs.append(acc)
        return outs + [b.and_(acc, q[5]), b.and_(acc, q[6]), b.and_(acc, q[7]), acc]

    def fan(b, q):            # 4 products of input pairs, each read again after their sum
        p = [b.and_(q[2 * k], q[2 * k + 1]) for k in range(4)]
        s = b.eor(b.eor(p[0], p[1]), b.eor(p[2], p[3]))
        u = b.and_(b.eor(s, p[0]), b.eor(b.eor(s, p[1]), b.and_(b.eor(s, p[2]), p[3])))
        return [u, s, u, s, u, s, u, s]

    def keyed(b, q):          # round-key words: loads of a constant memory
        k = [b.ld("rk", i) for i in range(2)]
        x = [b.eor(q[i], k[i]) for i in range(2)]
        t = b.and_(b.eor(x[0], q[2]), b.eor(x[1], q[3]))
        return [b.eor(t, x[0]), b.eor(t, x[1]), t] + [b.eor(t, q[k]) for k in range(4, 8)] + [t]
    return [harness(f) for f in (chain, fan, keyed)]


def test_the_floor_is_a_lower_bound_of_every_order_of_small_programs():
    for prog in small_programs():
        floor = P.certain_live(prog)
        live = [maxlive(prog, order) for order in topological_orders(prog)]
        assert floor.bound <= min(live), (floor, min(live))


def test_the_floor_counts_values_that_are_live_in_every_order():
    chain, fan, keyed = (P.certain_live(prog) for prog in small_programs())
    # chain: at its first XOR, that XOR's result and the six inputs not yet read (q2..q7)
    assert chain.bound == 7 and chain.op == 0 and sorted(chain.values) == [-6, -5, -4, -3, -2, -1, 8]
    # fan: at s = (p0 ^ p1) ^ (p2 ^ p3), s itself and the products p0..p3 (each read again after s)
    assert fan.bound == 5 and fan.reloadable == 0 and sorted(fan.values) == [8, 9, 10, 11, 14]
    assert P.spill_floor(fan, 4) == 1 and P.spill_floor(fan, 14) == 0
    # keyed: the round-key pointer is live until the last round-key load
    assert "rk" in keyed.values and keyed.reloadable == 1   # k0: a round-key word, reloaded not spilled


def test_sbox_floor_against_stored_and_random_orders():
    rng = random.Random(34)
    for kind in ("ark+sbox", "ark+sbox@bpc113"):
        prog = A.segment_program(kind)
        floor = P.certain_live(prog)
        assert floor.bound == 19                      # docs/cortex-m4.md: >= 19 live in every order
        assert P.spill_floor(floor, REGISTERS) == 5
        assert floor.bound <= maxlive(prog, A.sbox_order(A.ORDERS, kind)) == 25
        for _ in range(20):
            assert floor.bound <= maxlive(prog, random_order(prog, rng))
    for kind in ("-lin:0:1", "-lin:0:0"):
        prog = A.segment_program(kind)
        assert P.certain_live(prog).bound <= maxlive(prog, A.ORDERS.get(kind) or A.ORDERS[kind[1:]])


def test_exhaustive_enumeration_is_not_vacuous():
    counts = [len(list(topological_orders(prog))) for prog in small_programs()]
    assert all(c > 1 for c in counts) and max(c for c in counts) < 20000, counts
