"""gen/sched/strd_pairs.py prices a candidate merge (store A becomes an STRD, store B goes) by
the pair terms next to A and B only; that must equal re-pricing the whole body, for random
bodies of loads, stores and ALU work, adjacent and distant pairs, both cores."""
import random

import pytest

from gen.isa import thumb2 as t2
from gen.sched import listsched, strd_pairs


def random_body(rng, n):
    regs = [f"r{k}" for k in range(8)]
    body = []
    for _ in range(n):
        kind = rng.choice(["alu", "alu", "ldr", "str", "ldr_slot", "ldr_base"])
        if kind == "alu":
            body.append(t2.Insn("eor", dst=rng.choice(regs), srcs=(rng.choice(regs), rng.choice(regs))))
        elif kind == "ldr":
            body.append(t2.ldr(rng.choice(regs), rng.choice(regs), 4 * rng.randrange(8)))
        elif kind == "str":
            body.append(t2.str_slot(rng.choice(regs), rng.randrange(6), "spill"))
        elif kind == "ldr_slot":
            body.append(t2.ldr_slot(rng.choice(regs), rng.randrange(6), "reload"))
        else:
            body.append(t2.ldr(rng.choice(regs), "r1", 0))
    return body


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_merge_delta_equals_repricing_the_whole_body(core):
    rng = random.Random(core)
    checked = 0
    for _ in range(60):
        body = random_body(rng, 30)
        stores = [k for k, i in enumerate(body) if i.mnem == "str"]
        tim = [i.timing() for i in body]
        for a in stores:
            for b in stores:
                if b <= a:
                    continue
                strd = t2.THUMB2.store_pair(body[a].srcs[0], body[b].srcs[0], body[a].slot)
                trial = body[:a] + [strd] + body[a + 1:b] + body[b + 1:]
                want = listsched.cycles(trial, core) - listsched.cycles(body, core)
                assert strd_pairs._merge_delta(tim, a, b, strd.timing(), core) == want, (a, b)
                checked += 1
    assert checked > 200
