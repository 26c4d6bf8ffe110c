"""gen/kernels/wipe.py: ``{p}_zero32`` clears exactly n words, on the emulated Cortex-M3 and M4
(the STMIA loop, the single-word tail, n = 0), and the glue wipes its structs with it on
Thumb-2 targets, byte by byte in portable C."""
from __future__ import annotations

import pytest

from emu.machines import layout

from emu.machines import toolchain
from emu.machines.machine import Machine
from gen.drop import render as generate
from gen.config import from_dict
from gen.kernels import wipe


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_zero32_clears_exactly_n_words(core, tmp_path):
    code = toolchain.assemble("\n".join(wipe.ZERO32_BODY), core, tmp_path)
    m = Machine(core, code)
    for n in (0, 1, 7, 15, 16, 17, 31, 32, 33, 100):
        before = bytes((i * 37 + 11) & 0xFF or 1 for i in range(4 * (n + 4)))
        buf = m.alloc(len(before), before)
        assert m.call(layout.FLASH_BASE, buf + 8, n) is not None
        after = m.read(buf, len(before))
        assert after[:8] == before[:8], n                         # nothing before p
        assert after[8:8 + 4 * n] == bytes(4 * n), n               # n words cleared
        assert after[8 + 4 * n:] == before[8 + 4 * n:], n          # nothing after them


def _header(target: str, face: str = "off") -> str:
    cfg = from_dict({"name": f"w{'pc' if target == 'portable' else target[-2:]}{face}", "cipher": "aes128", "mode": "gcm", "target": target,
                     "aes": {"slicing": "ffs"}, "ctr": {"face": face}})
    return generate.header(cfg, "tests/test_wipe.py")[0]


def test_glue_wipes_structs_by_words_on_thumb2_and_bytes_in_portable():
    m4 = _header("cortex-m4")
    assert "void wm4off_zero32(void *p, size_t n);" in m4
    assert "wm4off_zero32(p, n / 4u);" in m4                   # zero_struct goes through the asm
    pc = _header("portable")
    assert "zero32" not in pc                                  # portable, FACE off: no word wipe at all
    assert "static void wpcoff_zero_struct(void *p, size_t n)\n{\n    wpcoff_zero(p, n);" in pc
