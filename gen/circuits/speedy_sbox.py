"""The SPEEDY 6-bit S-box as a straight-line circuit, kept as data.

Found by gen/circuits/sbox_search.py (ours: Quine-McCluskey covers of every output bit,
algebraic factoring, structural sharing across outputs, lazy negations absorbed by ANDN/ORN)
from the S-box table of Leander et al., "The SPEEDY Family of Block Ciphers", TCHES 2021/4.
47 gates (13 and, 13 andn, 18 or, 3 orn); every gate is one 32-bit op
in a column-sliced kernel (andn = BIC, orn = ORN).  ``search_again(table)`` reproduces it.

Bit order: ``x0`` is the most significant bit of the 6-bit input (state column 0), ``y0`` the
most significant bit of the output.
"""
from __future__ import annotations

INPUTS = tuple(f"x{i}" for i in range(6))
OUTPUTS = tuple(f"y{i}" for i in range(6))
SOURCE = "gen/circuits/sbox_search.py on the SPEEDY table (TCHES 2021/4), 47 gates"

# (dst, op, a, b), op in and / or / andn (a & ~b) / orn (a | ~b); in evaluation order.
GATES: tuple[tuple[str, str, str, str], ...] = (
    ('t0', 'and', 'x4', 'x5'), ('t1', 'andn', 'x0', 'x3'), ('t2', 'or', 't0', 't1'),
    ('t3', 'and', 'x1', 't2'), ('t4', 'and', 'x2', 'x4'), ('t5', 'orn', 't4', 'x5'),
    ('t6', 'and', 'x3', 't5'), ('y0', 'or', 't3', 't6'), ('t7', 'or', 'x1', 'x0'),
    ('t8', 'andn', 't7', 'x4'), ('t9', 'andn', 't8', 'x2'), ('t10', 'andn', 't0', 'x0'),
    ('t11', 'or', 't10', 't1'), ('y4', 'or', 't9', 't11'), ('t12', 'andn', 'x5', 'x2'),
    ('t13', 'or', 't12', 't4'), ('t14', 'and', 'x0', 't13'), ('t15', 'andn', 'x2', 'x3'),
    ('t16', 'and', 'x1', 'x3'), ('t17', 'or', 't15', 't16'), ('t18', 'andn', 't17', 'x0'),
    ('y3', 'or', 't14', 't18'), ('t19', 'andn', 'x4', 'x3'), ('t20', 'or', 't19', 't16'),
    ('t21', 'and', 'x0', 't20'), ('t22', 'andn', 't15', 'x4'), ('t23', 'or', 'x0', 'x2'),
    ('t24', 'or', 't23', 'x5'), ('t25', 'orn', 't22', 't24'), ('y2', 'or', 't21', 't25'),
    ('t26', 'andn', 'x4', 'x2'), ('t27', 'and', 'x0', 'x3'), ('t28', 'or', 't26', 't27'),
    ('t29', 'andn', 't28', 'x1'), ('t30', 'and', 'x0', 'x1'), ('t31', 'or', 'x5', 't30'),
    ('t32', 'and', 'x2', 't31'), ('y5', 'or', 't29', 't32'), ('t33', 'or', 'x4', 'x5'),
    ('t34', 'orn', 't12', 't33'), ('t35', 'and', 'x3', 't34'), ('t36', 'and', 'x0', 'x2'),
    ('t37', 'and', 't36', 'x5'), ('t38', 'andn', 'x1', 'x0'), ('t39', 'andn', 't38', 'x3'),
    ('t40', 'or', 't37', 't39'), ('y1', 'or', 't35', 't40'),
)


def search_again(table) -> tuple:
    """Run the search on the S-box table (gen/ciphers/speedy.SBOX) again; tests compare the
    result with GATES."""
    from gen.circuits.sbox_search import search
    return search(list(table), 6, 6, INPUTS, OUTPUTS, slack=1)
