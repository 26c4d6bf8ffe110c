"""Rijndael-256 and SPEEDY kernels as IR: the programs run through gen.ir.run against the
reference models; the layout pieces (packing, ShiftRows, bit gathers, MixColumns plan) against
their definitions."""
import random

import pytest

from gen.ciphers import get, rijndael_model
from gen.ir import Builder, run
from gen.kernels import bitperm
from gen.kernels.rijndael256 import encrypt as r256
from gen.kernels.rijndael256.portable import encrypt_program as r256_encrypt
from gen.kernels.rijndael256.portable import keyschedule_program as r256_keyschedule
from gen.kernels.speedy import layout, rounds
from gen.kernels.speedy.keyschedule import source_rows
from gen.kernels.speedy.portable import encrypt_program as sp_encrypt
from gen.kernels.speedy.portable import keyschedule_program as sp_keyschedule

PROGRAMS = {"rijndael256": (r256_keyschedule, r256_encrypt),
            "speedy5": (sp_keyschedule, sp_encrypt), "speedy6": (sp_keyschedule, sp_encrypt),
            "speedy7": (sp_keyschedule, sp_encrypt)}


def ir_encrypt(progs, key: bytes, block: bytes) -> bytes:
    ks, enc = progs
    rk = run(ks, {"key": layout.le_words(key)})["rk"]
    return layout.le_bytes(run(enc, {"in": layout.le_words(block), "rk": rk})["out"])


@pytest.fixture(scope="module")
def programs():
    return {name: tuple(f(get(name)) for f in fs) for name, fs in PROGRAMS.items()}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_ir_against_reference(programs, name):
    spec = get(name)
    for key, pt, ct in spec.known_answers():
        assert ir_encrypt(programs[name], key, pt) == ct
    rng = random.Random(name)
    for _ in range(12 if name == "rijndael256" else 25):
        key, pt = rng.randbytes(spec.key_bytes), rng.randbytes(spec.block_bytes)
        assert ir_encrypt(programs[name], key, pt) == spec.encrypt(key, pt)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_ir_is_deterministic_and_straight(programs, name):
    ks, enc = programs[name]
    again = tuple(f(get(name)) for f in PROGRAMS[name])
    assert (str(ks), str(enc)) == (str(again[0]), str(again[1]))
    assert {op.kind for op in enc.ops} <= {"eor", "and", "orr", "bic", "orn", "mvn", "ror", "lsl",
                                            "lsr", "ld", "st", "movc", "mov"}


def test_rijndael256_round_keys_are_the_reference_ones(programs):
    """Round key j in the kernel = reference round key j, permuted by SR^-a_j (its alignment),
    packed, with NOT planes for j >= 1."""
    from gen.kernels.rijndael256 import linear
    spec = get("rijndael256")
    key = bytes(range(32))
    rk = run(programs["rijndael256"][0], {"key": layout.le_words(key)})["rk"]
    al = r256.alignments(spec.rounds, "explicit")
    for j, ref in enumerate(spec.key_schedule(key)):
        planes = r256.pack_columns(linear.natural_shiftrows(layout.le_words(ref), -al[j]))
        if j:
            planes = [p ^ (0xFFFFFFFF if i in r256.FOLDED_PLANES else 0) for i, p in enumerate(planes)]
        assert rk[8 * j: 8 * j + 8] == planes


def test_rijndael256_shiftrows_in_planes():
    """Explicit ShiftRows on packed planes = the reference ShiftRows on the state."""
    rng = random.Random(1)
    b = Builder("sr")
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    for i, x in enumerate(r256.emit_shiftrows(b, [b.ld("in", i) for i in range(8)], 1)):
        b.st("out", i, x)
    prog = b.finish()
    assert prog.stats()["ops"] - 16 == 8 * 13
    for _ in range(20):
        block = rng.randbytes(32)
        st = [[block[r + 4 * c] for c in range(8)] for r in range(4)]
        shifted = bytes(rijndael_model.shift_rows(st)[k % 4][k // 4] for k in range(32))
        got = run(prog, {"in": r256.pack_columns(layout.le_words(block))})["out"]
        assert got == r256.pack_columns(layout.le_words(shifted))


def test_rijndael256_packing_puts_row_r_column_c_at_bit_8r_plus_c():
    block = bytes(range(32))
    planes = r256.pack_columns(layout.le_words(block))
    for r in range(4):
        for c in range(8):
            byte = block[r + 4 * c]
            assert all(((planes[b] >> (8 * r + c)) & 1) == ((byte >> b) & 1) for b in range(8))


def test_speedy_packing_and_sliced_layer_facts():
    rng = random.Random(2)
    b = Builder("pack")
    b.declare("in", 6, "r")
    b.declare("cols", 6, "w")
    b.declare("back", 6, "w")
    cols = layout.emit_pack(b, [b.ld("in", i) for i in range(6)])
    for j, x in enumerate(cols):
        b.st("cols", j, x)
    for k, x in enumerate(layout.emit_unpack(b, cols)):
        b.st("back", k, x)
    prog = b.finish()
    for _ in range(50):
        block = rng.randbytes(24)
        m = run(prog, {"in": layout.le_words(block)})
        assert m["cols"] == layout.columns_of(block) and layout.le_bytes(m["back"]) == block
        assert layout.block_of(layout.columns_of(block)) == block
    # column word j, row i at bit 31 - i  <->  state bit 6 i + j (bit 0 = MSB of byte 0)
    one = layout.columns_of(bytes([0x80]) + bytes(23))
    assert one == [1 << 31, 0, 0, 0, 0, 0]
    one = layout.columns_of(bytes(23) + b"\x01")       # bit 191: row 31, column 5
    assert one == [0, 0, 0, 0, 0, 1]


def test_speedy_mixcolumns_plan():
    d, bases, singles = rounds.mix_plan((0, 1, 5, 9, 15, 21, 26))
    assert (d, bases, singles) == (5, (0, 21), (1, 9, 15))
    assert rounds.mix_plan((0, 1)) == (0, (), (0, 1))


def test_speedy_key_columns_come_from_one_key_column():
    for r in range(8):
        for j in range(6):
            m, rows = source_rows(r, j)
            assert m == (j + r) % 6 and sorted(rows) == list(range(32))
            assert {(rows[i] - pow(7, r, 32) * i) % 32 for i in range(32)} == {rows[0]}


def test_gather_against_model():
    rng = random.Random(3)
    src_bits = [(w, bit) for w in range(3) for bit in range(32)]
    rng.shuffle(src_bits)
    perm = {(w, bit): src_bits[32 * w + bit] for w in range(2) for bit in range(32) if rng.random() < .8}
    b = Builder("g")
    b.declare("in", 3, "r")
    b.declare("out", 2, "w")
    for i, x in enumerate(bitperm.emit_gather(b, [b.ld("in", i) for i in range(3)], perm, 2)):
        b.st("out", i, x)
    prog = b.finish()
    assert len(prog.ops) - 5 <= bitperm.cost(perm) + 64       # + movc'd masks at most
    for _ in range(10):
        words = [rng.getrandbits(32) for _ in range(3)]
        assert run(prog, {"in": words})["out"] == bitperm.apply(words, perm, 2)


def test_block_portable_dispatch():
    import dataclasses

    from gen.ciphers import CIPHERS
    from gen.errors import ConfigError
    from gen.kernels import block_portable
    for name, spec in CIPHERS.items():
        ks, enc = block_portable.programs(spec)
        assert ks.mems["key"] == (spec.key_bytes // 4, "r") and enc.mems["rk"][0] == ks.mems["rk"][0]
    ks, enc = block_portable.programs(get("aes128"), slicing="sfs")
    assert enc.name == "aes128_sfs_encrypt2"
    with pytest.raises(ConfigError, match="allowed: aes, rijndael256, speedy"):
        block_portable.portable_c("x", dataclasses.replace(get("speedy5"), family="present"))
