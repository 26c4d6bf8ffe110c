"""The generator's own cycle figures of its asm kernels (``KernelSet.kernel_cycles``, written to
the manifest as ``metrics.kernel_cycles`` and shown in docs/performance.md's FACE kernel table) agree with
the emulated cycle model (emu/bench/cycles.py) running the same code on Unicorn.

A loop step is measured as (cycles with n = 3 pairs - cycles with n = 1) / 2, so the call, the
prologue and the epilogue cancel; a whole call (aes_encrypt2, face_setup, face_fill) is measured
from its first instruction to its return. The kernels are straight-line and data-independent, so
any buffer contents do.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from gen.drop import render as generate
from gen.config import from_dict
from tests.test_face import GCTR_HARNESS, HarnessMachine

LOOPS = r'''
uint32_t sg_ctr_n(uint8_t *out, const uint8_t *in, uint32_t n)
{
    F(ctr_pairs)(ctx.rk, out, st.cb, in, n);
    return 0;
}
uint32_t sg_aes(uint8_t *out, const uint8_t *in) { F(aes_encrypt2)(ctx.rk, out, in); return 0; }
uint32_t sg_ecb_n(uint8_t *out, const uint8_t *in, uint32_t n)
{
    F(aes_encrypt_pairs)(ctx.rk, out, in, n);
    return 0;
}
#ifdef FACE
uint32_t sg_fenc_n(uint8_t *out, const uint8_t *in, uint32_t n)
{
    F(face_encrypt2)(ctx.rk, st.face_fs, out, in, FACE_TAB, n);
    return 0;
}
uint32_t sg_fill_call(uint32_t *vb) { F(face_fill)(FACE_TAB, st.face_fs, vb); return 0; }
uint32_t sg_setup_call(void) { F(face_setup)(st.face_fs, ctx.rk, st.cb); return 0; }
#endif
#ifdef FACE_R2
uint32_t sg_fencc_n(uint8_t *out, const uint8_t *in, uint32_t n)
{
    F(face_encrypt2c)(ctx.rk, st.face_fs + 32, out, in, FACE_TAB, n);
    return 0;
}
uint32_t sg_c2_call(void) { F(face_c2)(st.face_fs + 32, ctx.rk, st.cb); return 0; }
#endif
'''

CASES = [("cortex-m4", 128, "r2"), ("cortex-m3", 256, "r1")]


class Harness(HarnessMachine):
    """The drop with LOOPS (its FACE callers only with FACE); ``cflags``: the drop's REQUIRED_CFLAGS."""

    def __init__(self, hp: Path, prefix: str, face: str, core: str, keybits: int, cflags: tuple = ()):
        super().__init__(hp, prefix, face, core, GCTR_HARNESS + LOOPS, "kc", keybits, cflags)
        self.prefix = prefix
        self.cc.attribute(self.symbols)

    def cycles_in(self, fn: str, caller: str, *args: int) -> int:
        """Cycles spent inside the drop's function ``fn`` during one call of ``caller``
        (aes_encrypt2: with aes_encrypt_pairs, the loop it falls through into)."""
        names = {f"{self.prefix}_{f}" for f in ((fn, "aes_encrypt_pairs") if fn == "aes_encrypt2" else (fn,))}
        self.call(caller, *args)
        by_fn = self.cc.by_function()
        return sum(c for name, c in by_fn.items() if name and name.split(".")[0] in names)


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}-aes{c[1]}-{c[2]}")
def built(request):
    core, keybits, face = request.param
    cfg = from_dict({"name": f"kc{keybits}{face}{core[-2:]}", "cipher": f"aes{keybits}", "mode": "gcm",
                     "target": core, "aes": {"slicing": "ffs"}, "ctr": {"face": face}})
    header, ks = generate.header(cfg, "tests/test_kernel_cycles.py")
    work = Path(tempfile.mkdtemp(prefix="kcycles-"))
    hp = work / f"{cfg.name}.h"
    hp.write_text(header)
    h = Harness(hp, cfg.prefix, face, core, keybits)
    return h, ks.kernel_cycles


def test_figures_present(built):
    _, k = built
    cached = {"face_encrypt2c_per_pair", "face_c2"} if "face_c2" in k else set()   # r2: the cache's kernels
    assert set(k) == {"aes_encrypt2_call", "aes_encrypt_pairs_per_pair", "ctr_pairs_per_pair", "face_setup", "face_fill_group",
                      "face_encrypt2_per_pair"} | cached
    assert all(isinstance(v, int) and v > 0 for v in k.values())
    assert k["face_encrypt2_per_pair"] < k["ctr_pairs_per_pair"]     # FACE pays per pair
    assert k["aes_encrypt_pairs_per_pair"] < k["aes_encrypt2_call"]  # the loop pays no frame per pair


def _step(h: Harness, fn: str, caller: str) -> int:
    m = h.m
    m.reset_buffers()
    buf_in, buf_out = m.alloc(96), m.alloc(96)
    one = h.cycles_in(fn, caller, buf_out, buf_in, 1)
    three = h.cycles_in(fn, caller, buf_out, buf_in, 3)
    assert (three - one) % 2 == 0
    return (three - one) // 2


def test_loop_steps_match_emulation(built):
    h, k = built
    assert _step(h, "ctr_pairs", "sg_ctr_n") == k["ctr_pairs_per_pair"]
    assert _step(h, "aes_encrypt_pairs", "sg_ecb_n") == k["aes_encrypt_pairs_per_pair"]
    assert _step(h, "face_encrypt2", "sg_fenc_n") == k["face_encrypt2_per_pair"]
    if "face_c2" in k:
        assert _step(h, "face_encrypt2c", "sg_fencc_n") == k["face_encrypt2c_per_pair"]


def test_whole_calls_match_emulation(built):
    h, k = built
    m = h.m
    m.reset_buffers()
    assert h.cycles_in("aes_encrypt2", "sg_aes", m.alloc(32), m.alloc(32)) == k["aes_encrypt2_call"]
    assert h.cycles_in("face_setup", "sg_setup_call") == k["face_setup"]
    assert h.cycles_in("face_fill", "sg_fill_call", m.alloc(32)) == k["face_fill_group"]
    if "face_c2" in k:
        assert h.cycles_in("face_c2", "sg_c2_call") == k["face_c2"]
