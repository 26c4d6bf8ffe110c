"""How few EORs a XOR of rotations of one word can take: an exhaustive check.

A chain makes ``v_k = rot(v_i) ^ rot(v_j)`` (one EOR with a rotated operand); values are rotation
masks.  ``chain_exists(target, n_ops)`` searches every chain, up to rotation, solving the last two
ops; ``chain_exists(T, 4) is False`` shows gen/kernels/speedy/rounds.mix_plan's 5 EORs minimal
(tests/test_speedy_thumb2.py).  The savings and why none drops a chain: docs/internals/speedy.md.
"""
from __future__ import annotations

MASK = 0xFFFFFFFF


def rotl(x: int, s: int) -> int:
    s %= 32
    return ((x << s) | (x >> (32 - s))) & MASK if s else x


def rotations(x: int) -> set:
    return {rotl(x, s) for s in range(32)}


def _one_op_from(w: int, vals: list, allrots: set) -> bool:
    """Is ``w`` (up to rotation) rot(a) ^ rot(c) for a, c in vals?"""
    return any((w ^ rotl(a, s)) in allrots for a in vals for s in range(32))


def chain_exists(target: int, n_ops: int) -> bool:
    """Is ``target`` (a mask of offsets, up to rotation) reachable by a chain of at most
    ``n_ops`` ops from v0 = x?"""
    odd = bin(target).count("1") % 2 == 1
    target_rots = rotations(target)

    def grow(vals: list, allrots: set, left: int) -> bool:
        if target_rots & allrots:
            return True
        if left == 0:
            return False
        if _one_op_from(target, vals, allrots):
            return True
        if left == 1:
            return False
        if left == 2:
            for b in vals:
                for s in range(32):
                    w = target ^ rotl(b, s)
                    if w and _one_op_from(w, vals, allrots):
                        return True
            if odd:
                return False
        seen: set = set()
        for i, a in enumerate(vals):
            for c in vals[i:]:
                for s in range(32):
                    v = a ^ rotl(c, s)
                    if not v or v in allrots:
                        continue
                    canon = min(rotations(v))
                    if canon in seen:
                        continue
                    seen.add(canon)
                    if grow(vals + [canon], allrots | rotations(canon), left - 1):
                        return True
        return False

    return grow([1], rotations(1), n_ops)


def mask_of(offsets) -> int:
    return sum(1 << (a % 32) for a in offsets)
