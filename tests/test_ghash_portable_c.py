"""Generated portable-C GHASH (ctmul64 and ctmul32): compiled with the host gcc, called via
ctypes, compared with the Python model; plus strictness and namespace checks on the text."""
import ctypes
import random
import re
import subprocess

import pytest

from gen.kernels.ghash import model as m
from gen.kernels.ghash.ctmul import GhashCode, portable_c

PREFIX = "tstgh"
WRAPPER = """\
#include <stdint.h>
#include <stddef.h>
{code}
unsigned wrap_hk_words(void) {{ return {hk_words}u; }}
void wrap_init(uint32_t *hk, const uint8_t *h) {{ {p}_ghash_init(hk, h); }}
void wrap_blocks(const uint32_t *hk, uint8_t *y, const uint8_t *in, size_t n)
{{ {p}_ghash_blocks(hk, y, in, n); }}
"""
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]


@pytest.fixture(scope="module", params=m.VARIANTS)
def lib(request, tmp_path_factory):
    variant = request.param
    gc = portable_c(PREFIX, variant)
    d = tmp_path_factory.mktemp(f"ghash_{variant}")
    src = d / "w.c"
    src.write_text(WRAPPER.format(code=gc.code, hk_words=gc.hk_words, p=PREFIX))
    so = d / "w.so"
    subprocess.run(["gcc", *CFLAGS, "-shared", "-fPIC", str(src), "-o", str(so)],
                   check=True, capture_output=True, text=True)
    dll = ctypes.CDLL(str(so))
    dll.wrap_blocks.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    dll.wrap_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return variant, gc, dll


def _c_init(dll, nhk, h):
    hk = (ctypes.c_uint32 * (nhk + 1))()
    hk[nhk] = 0xDEADBEEF                              # canary: init writes exactly hk_words
    dll.wrap_init(hk, ctypes.create_string_buffer(h, 16))
    assert hk[nhk] == 0xDEADBEEF
    return hk


def _c_blocks(dll, hk, y, data, offset):
    buf = ctypes.create_string_buffer(b"\xa5" * offset + data + b"\x5a" * 3)
    yb = ctypes.create_string_buffer(y, 16)
    dll.wrap_blocks(hk, yb, ctypes.addressof(buf) + offset, len(data) // 16)
    return yb.raw[:16]


def test_hk_words_and_layout(lib):
    variant, gc, dll = lib
    assert isinstance(gc, GhashCode)
    assert gc.hk_words == dll.wrap_hk_words() == {"ctmul64": 9, "ctmul32": 18}[variant]
    rng = random.Random(1)
    for _ in range(5):
        h = rng.randbytes(16)
        assert list(_c_init(dll, gc.hk_words, h))[:gc.hk_words] == m.hk_words(h, variant)


def test_against_model_random(lib):
    variant, gc, dll = lib
    rng = random.Random(f"ghash-{variant}")
    for trial in range(60):
        h, y = rng.randbytes(16), rng.randbytes(16)
        nb = trial % 10                               # 0..9 blocks
        data = rng.randbytes(16 * nb)
        off = rng.randrange(8)                        # unaligned input most of the time
        hk = _c_init(dll, gc.hk_words, h)
        got = _c_blocks(dll, hk, y, data, off)
        assert got == m.ghash_blocks(h, y, data), (variant, trial)
        if trial < 10:                                # the constant-time model agrees too
            assert got == m.ghash_blocks(h, y, data, variant)


def test_edge_values(lib):
    _, gc, dll = lib
    ones, zero = b"\xff" * 16, bytes(16)
    one = b"\x80" + bytes(15)                         # the field's 1
    cases = [(ones, ones, ones * 3), (one, ones, zero), (zero, ones, ones), (ones, zero, one * 2)]
    for h, y, data in cases:
        hk = _c_init(dll, gc.hk_words, h)
        assert _c_blocks(dll, hk, y, data, 1) == m.ghash_blocks(h, y, data)


def test_gcm_test_case_2(lib):
    _, gc, dll = lib
    h = bytes.fromhex("66e94bd4ef8a2c3b884cfa59ca342b2e")
    c = bytes.fromhex("0388dace60b6a392f328c2b971b2fe78")
    lens = (0).to_bytes(8, "big") + (128).to_bytes(8, "big")
    hk = _c_init(dll, gc.hk_words, h)
    assert _c_blocks(dll, hk, bytes(16), c + lens, 3).hex() == "f38cbb1ad69223dcc3457ae5b6b0f885"


@pytest.mark.parametrize("variant", m.VARIANTS)
def test_text_rules(variant):
    code = portable_c("pfx", variant).code
    assert "#include" not in code
    funcs = re.findall(r"^static\s+\w+\s+(\w+)\s*\(", code, re.M)
    assert funcs == ["pfx_ghash_init", "pfx_ghash_blocks"]
    assert "holes" in code and "Karatsuba" in code
    if variant == "ctmul32":
        assert "uint64_t" not in code                 # M3-safe: no 32x32->64 products
        assert "rev32" in code and "Cortex-M3" in code
    else:
        assert code.count("(uint64_t)") == 16          # one hole-masked 32x32->64 product, 16 muls
    assert portable_c("pfx", variant).code == code     # deterministic


@pytest.mark.parametrize("variant", m.VARIANTS)
def test_cross_compiles_for_cortex_m(variant, tmp_path):
    cpu = "cortex-m3" if variant == "ctmul32" else "cortex-m4"
    src = tmp_path / "g.c"
    src.write_text(WRAPPER.format(code=portable_c("xg", variant).code, hk_words=0, p="xg"))
    obj = tmp_path / "g.o"
    subprocess.run(["arm-none-eabi-gcc", *CFLAGS, f"-mcpu={cpu}", "-mthumb", "-c", str(src),
                    "-o", str(obj)], check=True, capture_output=True, text=True)
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(obj)], check=True,
                         capture_output=True, text=True).stdout
    long_mul = re.findall(r"\b(?:umull|umlal|smull|smlal)\b", dis)
    if variant == "ctmul32":
        assert long_mul == []                         # nothing with early termination on M3
        assert re.search(r"\bmuls?\b", dis)
    else:
        assert long_mul


def test_bad_arguments():
    with pytest.raises(ValueError):
        portable_c("p", "table4")
    with pytest.raises(ValueError):
        portable_c("9bad")
