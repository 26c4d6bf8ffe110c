"""The SPEEDY 6-bit S-box as a straight-line circuit, kept as data.

Chosen by modelled cycles (gen/kernels/speedy/sbox_cycles.py) from a pool of circuits that
gen/circuits/sbox_pool.py builds from the S-box table of Leander et al., "The SPEEDY Family of
Block Ciphers", TCHES 2021/4: Quine-McCluskey covers of every output bit, algebraic factoring,
structural sharing across outputs, lazy negations absorbed by ANDN (BIC) / ORN, XOR against
signals already built, greedily with a beam.  Each circuit is put into a whole round, compiled
for the Cortex-M3 by the generator's scheduler and register allocator, and scored by the
round's modelled cycles, spills included; this one wins with 214 cycles per round.  The pool's
256 circuits (47 to 53 gates) cost 214 to 249 cycles per round, its 88 circuits of 47 gates 214
to 218: gates and register pressure both show in the score.

47 gates (13 and, 13 andn, 18 or, 3 orn), no NOT and no XOR: the coordinates of SPEEDY's S-box
are two-level NAND-NAND functions by design (the designers' low-latency criterion): each has a
minimal sum of 4 products of 2 or 3 literals, 10 or 11 gates, 63 for the six; factoring and
sharing across outputs bring that to 47.  XOR decompositions were tried by the search and none
is shorter.  Every gate is one 32-bit Thumb-2
op in a column-sliced kernel.

    .venv/bin/python -m gen.kernels.speedy.sbox_cycles     # rebuilds the pool, prints GATES

Bit order: ``x0`` is the most significant bit of the 6-bit input (state column 0), ``y0`` the
most significant bit of the output.
"""
from __future__ import annotations

INPUTS = tuple(f"x{i}" for i in range(6))
OUTPUTS = tuple(f"y{i}" for i in range(6))
SOURCE = ("gen/kernels/speedy/sbox_cycles.py over gen/circuits/sbox_pool.py on the SPEEDY table "
          "(TCHES 2021/4), 47 gates, chosen by modelled Cortex-M3 cycles of a round")

#: the pool's shape (gen/circuits/sbox_pool.pool keyword arguments) that GATES was chosen from
POOL_ARGS = {"slack": 1, "width": 2, "margin": 1, "xor": True}

# (dst, op, a, b), op in and / or / andn (a & ~b) / orn (a | ~b); in evaluation order.
GATES: tuple[tuple[str, str, str, str], ...] = (
    ('t0', 'and', 'x0', 'x1'), ('t1', 'or', 'x5', 't0'), ('t2', 'and', 'x2', 't1'),
    ('t3', 'andn', 'x4', 'x2'), ('t4', 'and', 'x0', 'x3'), ('t5', 'or', 't3', 't4'),
    ('t6', 'andn', 't5', 'x1'), ('y5', 'or', 't2', 't6'), ('t7', 'and', 'x2', 'x4'),
    ('t8', 'orn', 't7', 'x5'), ('t9', 'and', 'x3', 't8'), ('t10', 'and', 'x4', 'x5'),
    ('t11', 'andn', 'x0', 'x3'), ('t12', 'or', 't10', 't11'), ('t13', 'and', 'x1', 't12'),
    ('y0', 'or', 't9', 't13'), ('t14', 'or', 'x1', 'x0'), ('t15', 'andn', 't14', 'x2'),
    ('t16', 'andn', 't15', 'x4'), ('t17', 'andn', 't10', 'x0'), ('t18', 'or', 't17', 't11'),
    ('y4', 'or', 't16', 't18'), ('t19', 'andn', 'x2', 'x3'), ('t20', 'and', 'x1', 'x3'),
    ('t21', 'or', 't19', 't20'), ('t22', 'andn', 't21', 'x0'), ('t23', 'andn', 'x5', 'x2'),
    ('t24', 'or', 't23', 't7'), ('t25', 'and', 'x0', 't24'), ('y3', 'or', 't22', 't25'),
    ('t26', 'andn', 'x4', 'x3'), ('t27', 'or', 't26', 't20'), ('t28', 'and', 'x0', 't27'),
    ('t29', 'andn', 't19', 'x4'), ('t30', 'or', 'x0', 'x2'), ('t31', 'or', 't30', 'x5'),
    ('t32', 'orn', 't29', 't31'), ('y2', 'or', 't28', 't32'), ('t33', 'or', 'x4', 'x5'),
    ('t34', 'orn', 't23', 't33'), ('t35', 'and', 'x3', 't34'), ('t36', 'and', 'x0', 'x2'),
    ('t37', 'and', 't36', 'x5'), ('t38', 'andn', 'x1', 'x0'), ('t39', 'andn', 't38', 'x3'),
    ('t40', 'or', 't37', 't39'), ('y1', 'or', 't35', 't40'),
)


def search_again(table) -> list:
    """The pool of candidate circuits for ``table`` (gen/ciphers/speedy.SBOX), fewest gates
    first; gen/kernels/speedy/sbox_cycles.choose picks GATES from it by modelled cycles."""
    from gen.circuits.sbox_pool import pool
    return pool(list(table), 6, 6, INPUTS, OUTPUTS, **POOL_ARGS)
