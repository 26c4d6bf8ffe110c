"""portable_c() for Rijndael-256 and SPEEDY: the printed C compiled with gcc and clang
(-std=c99 -Wall -Wextra -Werror -O2) into shared libraries, called through ctypes on 1,000
random (key, block) pairs per cipher against the reference model and on every known answer;
also compiled as C++; the code's shape (straight-line, no calls, deterministic)."""
import ctypes
import functools
import random
import re
import shutil
import subprocess

import pytest

from gen.ciphers import get
from gen.kernels.rijndael256.portable import portable_c as r256_portable_c
from gen.kernels.speedy.portable import portable_c as speedy_portable_c

KERNELS = {"rijndael256": r256_portable_c, "speedy5": speedy_portable_c,
           "speedy6": speedy_portable_c, "speedy7": speedy_portable_c}
COMPILERS = [c for c in ("gcc", "clang") if shutil.which(c)]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]
RANDOM_PAIRS = 1000


def prefix(name):
    return f"t_{name}"


def wrapper(p):
    return (f"void {p}_ks(uint32_t *rk, const uint8_t *key) {{ {p}_keyschedule(rk, key); }}\n"
            f"void {p}_enc(const uint32_t *rk, uint8_t *out, const uint8_t *in)"
            f" {{ {p}_encrypt_blocks(rk, out, in); }}\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("blockc")
    kernels = {name: make(prefix(name), get(name)) for name, make in KERNELS.items()}
    src = "#include <stdint.h>\n#include <stddef.h>\n" + "".join(
        kernels[n].code + wrapper(prefix(n)) for n in KERNELS)
    (d / "k.c").write_text(src)
    jobs = {cc: subprocess.Popen([cc, *FLAGS, "-shared", "-fPIC", "k.c", "-o", f"k_{cc}.so"],
                                 cwd=d, stderr=subprocess.PIPE, text=True) for cc in COMPILERS}
    if shutil.which("g++"):
        jobs["g++"] = subprocess.Popen(["g++", "-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror",
                                        "-O0", "-fsyntax-only", "k.c"],
                                       cwd=d, stderr=subprocess.PIPE, text=True)
    for cc, p in jobs.items():
        _, err = p.communicate()
        assert p.returncode == 0, f"{cc}: {err[:2000]}"
    return kernels, {cc: ctypes.CDLL(str(d / f"k_{cc}.so")) for cc in COMPILERS}


def test_compilers_present():
    assert "gcc" in COMPILERS


@functools.lru_cache(maxsize=None)
def random_cases(name):
    """RANDOM_PAIRS (key, block, reference ciphertext), computed once for both compilers."""
    spec = get(name)
    rng = random.Random(name)
    out = []
    for _ in range(RANDOM_PAIRS):
        key, block = rng.randbytes(spec.key_bytes), rng.randbytes(spec.block_bytes)
        out.append((key, block, spec.encrypt(key, block)))
    return out


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_against_reference(built, cc, name):
    kernels, libs = built
    spec, kernel, p = get(name), kernels[name], prefix(name)
    assert kernel.block_bytes == spec.block_bytes and kernel.blocks_per_call == 1
    ks, enc = getattr(libs[cc], f"{p}_ks"), getattr(libs[cc], f"{p}_enc")
    n = kernel.rk_words
    rk = (ctypes.c_uint32 * (n + 1))()
    bb = spec.block_bytes

    def encrypt(key, block, src_off=0, dst_off=0):
        rk[n] = 0xA5A5A5A5                          # canary: exactly rk_words are written
        ks(rk, key)
        assert rk[n] == 0xA5A5A5A5
        src = ctypes.create_string_buffer(b"\x00" * src_off + block)
        dst = ctypes.create_string_buffer(dst_off + bb + 4)
        enc(rk, ctypes.byref(dst, dst_off), ctypes.byref(src, src_off))
        assert dst.raw[:dst_off] == b"\x00" * dst_off and dst.raw[dst_off + bb:] == b"\x00" * 4
        return dst.raw[dst_off: dst_off + bb]

    for key, pt, ct in spec.known_answers():
        assert encrypt(key, pt) == ct
    for trial, (key, block, expect) in enumerate(random_cases(name)):
        assert encrypt(key, block, trial % 4, (trial // 4) % 4) == expect, trial
    rng = random.Random(cc)
    # in place, unaligned
    key, block = rng.randbytes(spec.key_bytes), rng.randbytes(bb)
    ks(rk, key)
    buf = ctypes.create_string_buffer(b"\x00" * 3 + block)
    enc(rk, ctypes.byref(buf, 3), ctypes.byref(buf, 3))
    assert buf.raw[3: 3 + bb] == spec.encrypt(key, block)


@pytest.mark.parametrize("name", list(KERNELS))
def test_code_shape(built, name):
    kernels, _ = built
    p, code = prefix(name), kernels[name].code
    assert code == KERNELS[name](p, get(name)).code                   # deterministic
    assert "#include" not in code
    assert re.findall(r"^static \w+ (\w+)\(", code, re.M) == [f"{p}_keyschedule", f"{p}_encrypt_blocks"]
    stripped = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    assert not re.search(r"\b(if|for|while|switch|goto|return)\b|\?", stripped)
    assert set(re.findall(r"\[([^\]]*)\]", stripped)) <= {str(i) for i in range(4 * 200)}
    assert not re.search(r"<< (0|32)\b|>> (0|32)\b", stripped)
    assert sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", stripped)) - {"uint32_t", "uint8_t"}) == \
        sorted([f"{p}_keyschedule", f"{p}_encrypt_blocks"])


def test_kernel_sizes_and_stats(built):
    kernels, _ = built
    assert kernels["rijndael256"].rk_words == 8 * 15
    assert [kernels[f"speedy{r}"].rk_words for r in (5, 6, 7)] == [36, 42, 48]
    st = kernels["rijndael256"].stats
    assert st["sbox_gates"] == 115 and st["round"]["shiftrows"] == 104
    assert kernels["speedy5"].stats["sbox_gates"] == 47
    assert kernels["speedy5"].stats["round"]["sbox"] == 47     # lazy rotations: one op per gate
