"""Post-allocation list scheduling for a single-issue in-order core with result latencies (the
SiFive E31: gen/cores/inorder.py): each step issues, among the instructions whose dependences
(listsched.post_dependences: registers, stack slots, the order of in/out accesses) are met,
the one that can issue earliest on the scoreboard; ties go to the longest path to the end
(critical path, latencies of the core), then to program order.  Deterministic."""
from __future__ import annotations

from gen import cores
from gen.cores import inorder
from gen.sched.listsched import post_dependences


def schedule(insns: list, core: str, isa, readonly: frozenset = frozenset()) -> list:
    n = len(insns)
    preds = post_dependences(insns, readonly=readonly, isa=isa)
    succs: list = [[] for _ in range(n)]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    tim = [i.timing() for i in insns]
    table = cores.get(core).TABLE
    lat = [table[t.cls][1] for t in tim]
    height = [0] * n
    for i in reversed(range(n)):
        height[i] = lat[i] + max((height[s] for s in succs[i]), default=0)
    npred = [len(p) for p in preds]
    ready = {i for i in range(n) if npred[i] == 0}
    sb = inorder.Scoreboard(core)
    out = []
    while ready:
        def key(i):
            t = sb.issue + 1
            for r in tim[i].reads | tim[i].writes:
                t = max(t, sb.ready.get(r, 0))
            if tim[i].cls in sb._blocking:
                t = max(t, sb.unit_free)
            return (t, -height[i], i)
        best = min(ready, key=key)
        ready.discard(best)
        sb.step(tim[best])
        out.append(insns[best])
        for s in succs[best]:
            npred[s] -= 1
            if npred[s] == 0:
                ready.add(s)
    assert len(out) == n, "a dependence cycle in the post-allocation graph"
    return out


def cycles(insns, core: str) -> int:
    return inorder.sequence_cycles([i.timing() for i in insns], core)
