"""The M4 ctmul GHASH's cross-block chains (gen/kernels/ghash/m4_cross.py, issue 34 part 6): the
masks the dynamic programme picks are proven by the field bounds for every group size that uses
them, none of them can be weakened, and the Python twin of the generated product slot equals the
XOR of carry-less products (all-ones, dense and random words).  The generated kernels themselves
are run against the model in tests/test_ghash_thumb2.py."""
import itertools
import random

import pytest

from gen.kernels.ghash import holes, m4_cross
from gen.kernels.ghash import model as m
from gen.kernels.ghash.thumb2 import CROSS_KERNELS, TAIL_GROUP
from tests.test_ghash_thumb2 import clmul_cases

SIZES = (4, 8, 16)


def _chain(c, blocks):
    orders = m4_cross.best_orders(blocks)
    prods = holes.cross_products(c, orders)
    cost, masks = holes.cross_chain(c, orders)
    return prods, list(masks), cost


@pytest.mark.parametrize("blocks", SIZES)
def test_cross_chains_proven_and_tight(blocks):
    """Every class: one product per group, the masks keep every field <= 15 over the whole group
    (chain_bounds), the cost counts the mask instructions, and weakening any one mask (fewer
    words) breaks the bound: the programme keeps no mask it does not need."""
    for c in range(4):
        prods, masks, cost = _chain(c, blocks)
        assert len(prods) == 4 * blocks and len(masks) == len(prods) - 1
        assert sorted(set(prods)) == sorted((j, (c - j) % 4) for j in range(4))
        groups = [[p] for p in prods]
        assert holes.chain_fits(c, groups, masks)
        assert cost == sum(len(mk) for mk in masks)
        for i, mk in enumerate(masks):
            for weaker in ((), (0,), (1,)):
                if set(weaker) < set(mk):
                    assert not holes.chain_fits(c, groups, masks[:i] + [weaker] + masks[i + 1:]), (c, i, weaker)


def test_without_masks_the_fields_overflow():
    """The bound is not vacuous: two blocks of class 0 with no mask reach 2 x 15 + ... > 15."""
    prods, _, _ = _chain(0, 4)
    b = holes.chain_bounds(0, [[p] for p in prods], [()] * (len(prods) - 1))
    assert max(b[-1].values()) > holes.HOLE_LIMIT


def test_orders_beat_one_order_for_all_blocks():
    """The per-block y-class orders need fewer masks than the best single order for every
    block (16 blocks: 374 against 388), and a block's order is a permutation of the classes."""
    for blocks in SIZES:
        orders = m4_cross.best_orders(blocks)
        assert len(orders) == blocks and all(sorted(o) == [0, 1, 2, 3] for o in orders)
        one = min(sum(holes.cross_chain(c, (o,) * blocks)[0] for c in range(4))
                  for o in itertools.permutations(range(4)))
        assert m4_cross.masks_per_slot(blocks) <= one
    assert m4_cross.masks_per_slot(16) <= 374 < 388


@pytest.mark.parametrize("blocks", SIZES)
def test_slot_twin_equals_clmul(blocks):
    """The twin of the generated slot (same masks, 64-bit sums, same order) against the XOR of
    the blocks' carry-less products; all-ones words are the worst case of the bounds, dense
    words catch counts that are not monotone in the data once one word is masked."""
    for xs, bs, want in clmul_cases(random.Random(blocks), blocks, 120, 50):
        assert m4_cross.slot_model(xs, bs) == want


def test_which_kernels_use_them():
    """The groups of 8 and 16 and their tail groups down to MIN_BLOCKS (4); single blocks keep the
    per-block chains (a slot's end costs more than one block saves)."""
    assert CROSS_KERNELS == {8, 16} and m4_cross.MIN_BLOCKS == 4
    assert all(g in TAIL_GROUP for g in CROSS_KERNELS)


def _free_order_optimum(c, blocks):
    """The fewest masks class c needs over ``blocks`` blocks when it alone chooses each block's
    y-class order (a lower bound for the shared orders): the chain's dynamic programme with every
    order's products tried after each block."""
    layer = holes.chain_start(c)
    for b in range(blocks):
        best = {}
        for order in itertools.permutations(range(4)):
            lay = layer
            for p, j in enumerate(order):
                lay = holes.chain_step(c, lay, (j, (c - j) % 4), first=b == 0 and p == 0)
            for k, v in lay.items():
                if k not in best or v[0] < best[k][0]:
                    best[k] = v
        layer = best
    return holes.layer_cost(layer)


@pytest.mark.parametrize("blocks", SIZES)
def test_shared_orders_cost_no_mask_more_than_free_ones(blocks):
    """The beam search's per-block orders (shared by the four classes, since t = x & m_j is) need
    exactly the masks each class would need with orders of its own: the sum of the per-class
    optima, a lower bound, is reached (16 blocks: 374)."""
    assert m4_cross.masks_per_slot(blocks) == sum(_free_order_optimum(c, blocks) for c in range(4))
