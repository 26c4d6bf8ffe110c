"""The SPEEDY 6-bit S-box as a straight-line circuit, kept as data.

From the S-box table of Leander et al., "The SPEEDY Family of Block Ciphers", TCHES 2021/4;
chosen by modelled cycles of a whole compiled round (gen/kernels/speedy/sbox_cycles.py) from
gen/circuits/sbox_pool.py's pool.  47 gates (13 and, 13 andn, 18 or, 3 orn), no NOT, no XOR.

    .venv/bin/python -m gen.kernels.speedy.sbox_cycles     # rebuilds the pool, prints GATES

Bit order: ``x0``/``y0`` are the most significant bits.  The scores: docs/internals/speedy.md.
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
    ('t0', 'and', 'x2', 'x4'), ('t1', 'orn', 't0', 'x5'), ('t2', 'and', 'x3', 't1'),
    ('t3', 'and', 'x4', 'x5'), ('t4', 'andn', 'x0', 'x3'), ('t5', 'or', 't3', 't4'),
    ('t6', 'and', 'x1', 't5'), ('y0', 'or', 't2', 't6'), ('t7', 'or', 'x1', 'x0'),
    ('t8', 'andn', 't7', 'x2'), ('t9', 'andn', 't8', 'x4'), ('t10', 'andn', 't3', 'x0'),
    ('t11', 'or', 't10', 't4'), ('y4', 'or', 't9', 't11'), ('t12', 'andn', 'x2', 'x3'),
    ('t13', 'and', 'x1', 'x3'), ('t14', 'or', 't12', 't13'), ('t15', 'andn', 't14', 'x0'),
    ('t16', 'andn', 'x5', 'x2'), ('t17', 'or', 't16', 't0'), ('t18', 'and', 'x0', 't17'),
    ('y3', 'or', 't15', 't18'), ('t19', 'andn', 'x4', 'x3'), ('t20', 'or', 't19', 't13'),
    ('t21', 'and', 'x0', 't20'), ('t22', 'andn', 't12', 'x4'), ('t23', 'or', 'x0', 'x2'),
    ('t24', 'or', 't23', 'x5'), ('t25', 'orn', 't22', 't24'), ('y2', 'or', 't21', 't25'),
    ('t26', 'andn', 'x4', 'x2'), ('t27', 'and', 'x0', 'x3'), ('t28', 'or', 't26', 't27'),
    ('t29', 'andn', 't28', 'x1'), ('t30', 'and', 'x0', 'x1'), ('t31', 'or', 'x5', 't30'),
    ('t32', 'and', 'x2', 't31'), ('y5', 'or', 't29', 't32'), ('t33', 'or', 'x4', 'x5'),
    ('t34', 'orn', 't16', 't33'), ('t35', 'and', 'x3', 't34'), ('t36', 'and', 'x0', 'x2'),
    ('t37', 'and', 't36', 'x5'), ('t38', 'andn', 'x1', 'x0'), ('t39', 'andn', 't38', 'x3'),
    ('t40', 'or', 't37', 't39'), ('y1', 'or', 't35', 't40'),
)


def search_again(table) -> list:
    """The pool of candidate circuits for ``table`` (gen/ciphers/speedy.SBOX), fewest gates
    first; gen/kernels/speedy/sbox_cycles.choose picks GATES from it by modelled cycles."""
    from gen.circuits.sbox_pool import pool
    return pool(list(table), 6, 6, INPUTS, OUTPUTS, **POOL_ARGS)
