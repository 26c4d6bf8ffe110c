"""block_portable.portable_c() for every cipher (Rijndael-256, SPEEDY-5/6/7 and AES through the
same interface): the printed C compiled with gcc and clang (-std=c99 -Wall -Wextra -Werror -O2)
into shared libraries, called through ctypes on 1,000 random (key, block) pairs per cipher
against the reference model (AES: 200; tests/test_aes_portable_c.py covers it further) and on
every known answer; also compiled as C++ and freestanding (no undefined symbol);
the code's shape (straight-line, no calls, deterministic)."""
import ctypes
import functools
import random
import re
import shutil
import subprocess

import pytest

from gen.ciphers import CIPHERS, get
from gen.kernels.block_portable import portable_c

NAMES = list(CIPHERS)
COMPILERS = [c for c in ("gcc", "clang") if shutil.which(c)]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]


def random_pairs(name):
    return 200 if get(name).family == "aes" else 1000


def prefix(name):
    return f"t_{name}"


def wrapper(p):
    return (f"void {p}_ks(uint32_t *rk, const uint8_t *key) {{ {p}_keyschedule(rk, key); }}\n"
            f"void {p}_enc(const uint32_t *rk, uint8_t *out, const uint8_t *in)"
            f" {{ {p}_encrypt_blocks(rk, out, in); }}\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("blockc")
    kernels = {name: portable_c(prefix(name), get(name)) for name in NAMES}
    src = "#include <stdint.h>\n#include <stddef.h>\n" + "".join(
        kernels[n].code + wrapper(prefix(n)) for n in NAMES)
    (d / "k.c").write_text(src)
    # each compiler: one freestanding object (checked for undefined symbols), linked into a library
    jobs = {cc: subprocess.Popen([cc, *FLAGS, "-fPIC", "-ffreestanding", "-c", "k.c", "-o", f"k_{cc}.o"],
                                 cwd=d, stderr=subprocess.PIPE, text=True) for cc in COMPILERS}
    if shutil.which("g++"):
        jobs["g++"] = subprocess.Popen(["g++", "-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror",
                                        "-O0", "-fsyntax-only", "k.c"],
                                       cwd=d, stderr=subprocess.PIPE, text=True)
    for cc, p in jobs.items():
        _, err = p.communicate()
        assert p.returncode == 0, f"{cc}: {err[:2000]}"
    for cc in COMPILERS:
        undefined = subprocess.run(["nm", "-u", f"k_{cc}.o"], cwd=d, capture_output=True, text=True, check=True)
        assert undefined.stdout.split() == [], cc    # no libc call (memset/memcpy/...) anywhere
        subprocess.run([cc, "-shared", f"k_{cc}.o", "-o", f"k_{cc}.so"], cwd=d, check=True)
    return kernels, {cc: ctypes.CDLL(str(d / f"k_{cc}.so")) for cc in COMPILERS}


def test_compilers_present():
    assert "gcc" in COMPILERS


@functools.lru_cache(maxsize=None)
def random_cases(name, blocks_per_call):
    """(key, input of one call, reference output) triples, computed once for both compilers:
    each call encrypts ``blocks_per_call`` random blocks under one random key."""
    spec = get(name)
    rng = random.Random(name)
    out = []
    for _ in range(random_pairs(name) // blocks_per_call):
        key = rng.randbytes(spec.key_bytes)
        blocks = [rng.randbytes(spec.block_bytes) for _ in range(blocks_per_call)]
        out.append((key, b"".join(blocks), b"".join(spec.encrypt(key, blk) for blk in blocks)))
    return out


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("name", NAMES)
def test_against_reference(built, cc, name):
    kernels, libs = built
    spec, kernel, p = get(name), kernels[name], prefix(name)
    assert kernel.block_bytes == spec.block_bytes and kernel.cipher == name
    ks, enc = getattr(libs[cc], f"{p}_ks"), getattr(libs[cc], f"{p}_enc")
    n = kernel.rk_words
    rk = (ctypes.c_uint32 * (n + 1))()
    nbytes = spec.block_bytes * kernel.blocks_per_call      # bytes one call encrypts

    def encrypt(key, data, src_off=0, dst_off=0):
        rk[n] = 0xA5A5A5A5                          # canary: exactly rk_words are written
        ks(rk, key)
        assert rk[n] == 0xA5A5A5A5
        src = ctypes.create_string_buffer(b"\x00" * src_off + data)
        dst = ctypes.create_string_buffer(dst_off + nbytes + 4)
        enc(rk, ctypes.byref(dst, dst_off), ctypes.byref(src, src_off))
        assert dst.raw[:dst_off] == b"\x00" * dst_off and dst.raw[dst_off + nbytes:] == b"\x00" * 4
        return dst.raw[dst_off: dst_off + nbytes]

    for key, pt, ct in spec.known_answers():
        assert encrypt(key, pt * kernel.blocks_per_call) == ct * kernel.blocks_per_call
    cases = random_cases(name, kernel.blocks_per_call)
    assert len(cases) * kernel.blocks_per_call == random_pairs(name)
    for trial, (key, data, expect) in enumerate(cases):
        assert encrypt(key, data, trial % 4, (trial // 4) % 4) == expect, trial
    # in place, unaligned
    key, data, expect = cases[0]
    ks(rk, key)
    buf = ctypes.create_string_buffer(b"\x00" * 3 + data)
    enc(rk, ctypes.byref(buf, 3), ctypes.byref(buf, 3))
    assert buf.raw[3: 3 + nbytes] == expect


@pytest.mark.parametrize("name", NAMES)
def test_code_shape(built, name):
    kernels, _ = built
    p, code = prefix(name), kernels[name].code
    assert code == portable_c(p, get(name)).code                   # deterministic
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
    assert [kernels[f"aes{k}"].rk_words for k in (128, 192, 256)] == [88, 104, 120]
    assert [kernels[f"aes{k}"].blocks_per_call for k in (128, 192, 256)] == [2, 2, 2]
    assert kernels["rijndael256"].rk_words == 8 * 15 and kernels["rijndael256"].blocks_per_call == 1
    assert [kernels[f"speedy{r}"].rk_words for r in (5, 6, 7)] == [36, 42, 48]
    st = kernels["rijndael256"].stats
    # 12 packed ShiftRows of 104 ops, the first and last folded into (un)packing, 56 ops each
    assert st["sbox_gates"] == 115 and st["parts"]["shiftrows"] == 12 * 104 + 2 * 56
    assert kernels["speedy5"].stats["sbox_gates"] == 47
    sp = kernels["speedy5"].stats["round"]
    assert sp["sbox"] == 47                                      # lazy rotations: one op per gate
    assert sp["round"] == 12 + 2 * 47 + 30 and sp["pack"] <= 104 and sp["unpack"] <= 104
