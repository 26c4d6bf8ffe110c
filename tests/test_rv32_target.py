"""The rv32imac target builds on the portable kernel set and swaps parts of it
(gen/targets/rv32imac.py replace_sections): a part is found by the C function it defines, so a
reorder of portable.aes_gcm_kernels changes nothing, and a part that is not there (renamed,
dropped) stops the generator with the function's name instead of replacing another part."""
from __future__ import annotations

import pytest

from gen.config import from_dict
from gen.targets import portable, rv32imac


def _portable_sections(face="off"):
    config = from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "rv32imac", "ctr": {"face": face}})
    return portable.kernels(config).sections


def _defining(sections, name):
    return [i for i, s in enumerate(sections) if f"static void t_{name}(" in s]


@pytest.mark.parametrize("face", ["off", "r1"])
def test_the_aes_part_is_replaced_and_xor32_dropped_wherever_they_are(face):
    sections = _portable_sections(face)
    assert len(_defining(sections, "aes_encrypt2")) == len(_defining(sections, "xor32")) == 1
    for order in (sections, sections[::-1]):
        got = rv32imac.replace_sections(order, "t", {"aes_encrypt2": "/* rv32 AES */", "xor32": None})
        keep = [s for s in order if "static void t_aes_encrypt2(" not in s and "static void t_xor32(" not in s]
        assert [s for s in got if s != "/* rv32 AES */"] == keep
        assert got.count("/* rv32 AES */") == 1 and len(got) == len(order) - 1
        assert got.index("/* rv32 AES */") == [i for i, s in enumerate(order) if "t_xor32(" not in s].index(
            _defining(order, "aes_encrypt2")[0])                   # in the AES part's place
        assert _defining(got, "ghash_blocks")                      # GHASH is kept


def test_a_missing_or_doubled_part_is_an_error_naming_it():
    sections = _portable_sections()
    no_xor = [s for s in sections if "static void t_xor32(" not in s]
    with pytest.raises(ValueError, match=r"0 sections .* define t_xor32"):
        rv32imac.replace_sections(no_xor, "t", {"aes_encrypt2": "x", "xor32": None})
    aes = sections[_defining(sections, "aes_encrypt2")[0]]
    with pytest.raises(ValueError, match=r"2 sections .* define t_aes_encrypt2"):
        rv32imac.replace_sections(sections + [aes], "t", {"aes_encrypt2": "x"})
    # a prototype or a call is not a definition; the name must match whole
    with pytest.raises(ValueError, match="t_aes_encrypt"):
        rv32imac.replace_sections(sections, "t", {"aes_encrypt": "x"})
