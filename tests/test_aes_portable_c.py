"""portable_c(): the generated C compiled with host gcc (-Werror), called through ctypes, against
`cryptography`; also cross-compiled for Cortex-M4 and checked for constant-time shape."""
import ctypes
import random
import re
import shutil
import subprocess

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from gen.kernels.aes.portable import portable_c

COMBOS = [(kb, sl) for kb in (128, 192, 256) for sl in ("ffs", "sfs")]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]


def prefix(kb, sl):
    return f"t{kb}{sl}"


def wrapper(p):
    return (f"void {p}_ks(uint32_t *rk, const uint8_t *key) {{ {p}_aes_keyschedule(rk, key); }}\n"
            f"void {p}_enc(const uint32_t *rk, uint8_t *out, const uint8_t *in)"
            f" {{ {p}_aes_encrypt2(rk, out, in); }}\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("aesc")
    codes = {c: portable_c(prefix(*c), *c) for c in COMBOS}
    src = "#include <stdint.h>\n#include <stddef.h>\n" + "".join(
        codes[c].code + wrapper(prefix(*c)) for c in COMBOS)
    (d / "aes.c").write_text(src)
    procs = [subprocess.Popen(["gcc", *FLAGS, "-shared", "-fPIC", "aes.c", "-o", "aes.so"],
                              cwd=d, stderr=subprocess.PIPE, text=True)]
    if shutil.which("arm-none-eabi-gcc"):
        procs.append(subprocess.Popen(["arm-none-eabi-gcc", *FLAGS, "-mcpu=cortex-m4", "-mthumb",
                                       "-c", "aes.c", "-o", "aes_m4.o"],
                                      cwd=d, stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err[:2000]
    return codes, ctypes.CDLL(str(d / "aes.so"))


def ecb(key, data):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(data) + e.finalize()


@pytest.mark.parametrize("kb,sl", COMBOS)
def test_against_cryptography(built, kb, sl):
    codes, lib = built
    code, p = codes[(kb, sl)], prefix(kb, sl)
    assert code.nr == {128: 10, 192: 12, 256: 14}[kb] and code.rk_words == 8 * (code.nr + 1)
    ks, enc = getattr(lib, f"{p}_ks"), getattr(lib, f"{p}_enc")
    rng = random.Random(kb + len(sl))
    for trial in range(12):
        key, data = rng.randbytes(kb // 8), rng.randbytes(32)
        rk = (ctypes.c_uint32 * (code.rk_words + 1))()
        rk[code.rk_words] = 0xA5A5A5A5          # canary: exactly rk_words are written
        ks(rk, key)
        assert rk[code.rk_words] == 0xA5A5A5A5
        expect = ecb(key, data)
        # unaligned input and output (offsets 1 and 3 into larger buffers)
        src = ctypes.create_string_buffer(b"\x00" + data + b"\x00" * 3)
        dst = ctypes.create_string_buffer(40)
        enc(rk, ctypes.byref(dst, 3), ctypes.byref(src, 1))
        assert dst.raw[3:35] == expect and dst.raw[:3] == b"\x00" * 3 and dst.raw[35:] == b"\x00" * 5
        # in place, unaligned
        buf = ctypes.create_string_buffer(b"\x00" * (trial % 4) + data)
        enc(rk, ctypes.byref(buf, trial % 4), ctypes.byref(buf, trial % 4))
        assert buf.raw[trial % 4: trial % 4 + 32] == expect


@pytest.mark.parametrize("kb,sl", COMBOS)
def test_code_shape(kb, sl):
    p = prefix(kb, sl)
    code = portable_c(p, kb, sl).code
    assert code == portable_c(p, kb, sl).code                         # deterministic
    assert "#include" not in code
    assert re.findall(r"^static \w+ (\w+)\(", code, re.M) == [f"{p}_aes_keyschedule", f"{p}_aes_encrypt2"]
    stripped = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    # straight-line: no control flow, no data-dependent index, no shift by 0 or 32
    assert not re.search(r"\b(if|for|while|switch|goto|return)\b|\?", stripped)
    assert set(re.findall(r"\[([^\]]*)\]", stripped)) <= {str(i) for i in range(4 * 64)}
    assert not re.search(r"<< (0|32)\b|>> (0|32)\b", stripped)
    # no calls: the only identifiers followed by '(' are the two definitions
    assert sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", stripped)) - {"uint32_t", "uint8_t"}) == \
        sorted([f"{p}_aes_keyschedule", f"{p}_aes_encrypt2"])


def test_bad_args():
    with pytest.raises(ValueError):
        portable_c("x", 128, "fast")
