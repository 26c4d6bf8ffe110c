"""Multi-key AES-GCM drops (issue 32): a config names cipher = "aes" and keybits; the header holds
the AES kernels of each key size and one GHASH, and init takes any of the key lengths.

Bad configs are refused with one clear line; a two-size portable drop runs on the host against
pyca/cryptography per key size and refuses the others (-2, ctx untouched); the shipped M4 drop's
machine code does the same in the emulator; the header shares GHASH and glue (one copy each)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen import presets                               # noqa: E402
from gen.config import Config, from_dict
from gen.drop import render
from gen.errors import ConfigError
from tests.conftest import ROOT
from tests.test_stream_entry import Emulated, Host

BASE = {"name": "mk", "cipher": "aes", "mode": "gcm", "target": "portable"}
MULTIKEY = ["aesgcm-portable", "aesgcm-m4-ffs", "aesgcm-m4-ffs-face-r2", "aesgcm-m4f-ffs", "aesgcm-m3-ffs",
            "aesgcm-armv8a"]


@pytest.mark.parametrize("extra,message", [
    ({}, "needs keybits"),
    ({"keybits": []}, "non-empty list"),
    ({"keybits": 128}, "non-empty list"),
    ({"keybits": [128, 128]}, "names a key size twice"),
    ({"keybits": [128, 512]}, "each key size is one of: 128, 192, 256"),
    ({"keybits": [True]}, "each key size is one of"),
    ({"keybits": [128], "cipher": "aes128"}, "keybits is for multi-key drops"),
    ({"keybits": [128], "cipher": "speedy5", "mode": "ecb"}, "keybits is for multi-key drops"),
    ({"keybits": [128], "mode": "ctr"}, "aes/ctr/portable is not built"),
    ({"keybits": [128], "target": "rv32imac"}, "aes/gcm/rv32imac is not built"),
])
def test_bad_multikey_configs_are_refused(extra, message):
    with pytest.raises(ConfigError, match=message):
        from_dict({**BASE, **extra})


def test_bad_multikey_toml_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "mk"\ncipher = "aes"\nkeybits = [128, 128]\nmode = "gcm"\ntarget = "portable"\n')
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "gen", "build", str(bad), "-o", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2 and "names a key size twice" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_keybits_are_sorted_and_hashed_only_for_multikey_drops():
    a = from_dict({**BASE, "keybits": [256, 128]})
    b = from_dict({**BASE, "keybits": [128, 256]})
    assert a.keybits == (128, 256) and a.sha256() == b.sha256() and a.ciphers == ("aes128", "aes256")
    assert from_dict({**BASE, "keybits": [128]}).sha256() != a.sha256()
    single = presets.preset("aes128gcm-portable")
    assert "keybits" not in single.canonical() and single.keybits == ()
    assert from_dict(__import__("tomllib").loads(a.toml())) == a          # the TOML form loads back


@pytest.fixture(scope="module")
def two_size_portable(tmp_path_factory):
    cfg = from_dict({**BASE, "name": "mk-two", "keybits": [128, 256]})
    text, _ = render.header(cfg, "test")
    h = tmp_path_factory.mktemp("mk") / "mk-two.h"
    h.write_text(text)
    return Host(h, cfg.prefix), text


def _roundtrip(drop, ctx, key: bytes, seed: int) -> None:
    """encrypt and decrypt under `key` against pyca (96-bit IV, and a 60-byte IV through GHASH)."""
    for ivlen, n in ((12, 77), (60, 33)):
        iv = bytes((seed * 13 + 7 * i) & 0xFF for i in range(ivlen))
        aad = bytes(range(seed, seed + 20))
        msg = bytes((i * 29 + seed) & 0xFF for i in range(n))
        want = AESGCM(key).encrypt(iv, msg, aad)
        a_iv, a_aad, a_in, a_out, a_tag = (drop.alloc(x) for x in (ivlen, 20, n, n, 16))
        drop.write(a_iv, iv); drop.write(a_aad, aad); drop.write(a_in, msg)
        assert drop.call("encrypt", ctx, a_iv, ivlen, a_aad, 20, a_in, n, a_out, a_tag, 16) == 0
        assert drop.read(a_out, n) + drop.read(a_tag, 16) == want, (len(key), ivlen)
        assert drop.call("decrypt", ctx, a_iv, ivlen, a_aad, 20, a_out, n, a_tag, 16, a_in) == 0
        assert drop.read(a_in, n) == msg


def test_two_size_drop_serves_each_key_and_refuses_the_others(two_size_portable):
    drop, text = two_size_portable
    ctx = drop.alloc(4096)
    for keylen in (16, 32, 16):                     # re-keying one ctx across sizes
        key = bytes((3 * i + keylen) & 0xFF for i in range(keylen))
        drop.write(ctx + 0, bytes(4096))
        key_at = drop.alloc(keylen)
        drop.write(key_at, key)
        assert drop.call("init", ctx, key_at, keylen) == 0
        _roundtrip(drop, ctx, key, keylen)
        before = drop.read(ctx, 4096)
        for bad in (0, 15, 17, 24, 31, 33, 64):     # 24: AES-192 is not one of this drop's sizes
            big = drop.alloc(64)
            drop.write(big, bytes(range(64)))
            assert drop.call("init", ctx, big, bad) == -2, bad
            assert drop.read(ctx, 4096) == before, f"init with keylen {bad} wrote to ctx"
    assert "#define MK_TWO_KEYLEN_OK(n) ((n) == 16u || (n) == 32u)" in text
    assert "#define MK_TWO_KEYBYTES 32" in text


def test_one_ghash_and_one_glue_per_header(two_size_portable):
    _, text = two_size_portable
    assert len(re.findall(r"^static void mk_two_ghash_blocks\(", text, re.M)) <= 1
    assert len(re.findall(r"\bmk_two_ghash_blocks\(const uint32_t \*hk", text)) >= 1
    assert not re.search(r"mk_two_k(128|256)_ghash", text)          # GHASH is never per key size
    assert len(re.findall(r"^int mk_two_encrypt\(", text, re.M)) == 1
    for bits in (128, 256):                                         # the AES kernels are
        assert re.search(rf"mk_two_k{bits}_aes_encrypt2\(", text)
    assert not re.search(r"mk_two_k192_", text)


@pytest.fixture(scope="module")
def shipped_m4(tmp_path_factory):
    name = "aesgcm-m4-ffs"
    work = tmp_path_factory.mktemp("m4")
    h = work / f"{name}.h"
    h.write_text((ROOT / "out" / name / f"{name}.h").read_text())
    return Emulated(h, name.replace("-", "_", ), "cortex-m4")


def test_shipped_m4_drop_on_its_machine_code(shipped_m4):
    drop = shipped_m4
    ctx = drop.alloc(2048)
    for keylen in (16, 24, 32):
        key = bytes((5 * i + keylen) & 0xFF for i in range(keylen))
        key_at = drop.alloc(keylen)
        drop.write(key_at, key)
        assert drop.call("init", ctx, key_at, keylen) == 0
        _roundtrip(drop, ctx, key, keylen)
        before = drop.read(ctx, 2048)
        assert drop.call("init", ctx, key_at, 20) == -2
        assert drop.read(ctx, 2048) == before


@pytest.mark.parametrize("name", MULTIKEY)
def test_multikey_presets_ship_with_figures_per_key_size(name):
    assert name in presets.DEFAULTS
    m = json.loads((ROOT / "out" / name / "manifest.json").read_text())
    assert m["cipher"] == "aes" and m["options"]["keybits"] == [128, 192, 256]
    per = m["metrics"]["keybits"]
    assert [per[b]["cycles"]["4096"] for b in ("128", "192", "256")] == \
        sorted(per[b]["cycles"]["4096"] for b in ("128", "192", "256"))
    # one header for three key sizes: less flash than the three single-key drops it replaces, and each
    # size within 1 % of its single-key drop's cycles at 4 KiB (a dispatch per kernel call)
    singles = {b: ROOT / "out" / name.replace("aesgcm", f"aes{b}gcm") / "manifest.json" for b in ("128", "192", "256")}
    shipped = {b: json.loads(s.read_text())["metrics"] for b, s in singles.items() if s.is_file()}
    assert len(shipped) >= 2            # aes{128,256}gcm-m4f-ffs; every other preset has all three
    if len(shipped) == 3:
        assert m["metrics"]["text_bytes"] < sum(s["text_bytes"] for s in shipped.values())
    # ARMv8-A too: each size's whole-call gcm96_seal behind the dispatch (tests/test_armv8_multikey.py)
    slack = 1.01
    for b, single in shipped.items():
        c = single["cycles"]["4096"]
        assert c <= per[b]["cycles"]["4096"] <= slack * c, (b, c, per[b]["cycles"]["4096"])


def test_a_multikey_config_keeps_single_key_kernels_apart():
    """The per-size kernels carry the inner prefix; Config.spec is the largest size's (ctx sizing)."""
    cfg = presets.preset("aesgcm-portable")
    assert isinstance(cfg, Config) and cfg.spec.name == "aes256" and cfg.multikey


@pytest.mark.parametrize("name,cmd,message", [
    ("aesgcm-m4-ffs", ["gcc", "-std=c99"], "generated for cortex-m4"),
    ("aesgcm-m4-ffs", ["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-std=c99"], "generated for cortex-m4"),
    ("aesgcm-m3-ffs", ["arm-none-eabi-gcc", "-mcpu=cortex-m0", "-mthumb", "-std=c99"], "generated for cortex-m3"),
    ("aesgcm-m4f-ffs", ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-std=c99"], "FPU registers"),
    ("aesgcm-armv8a", ["aarch64-linux-gnu-gcc", "-march=armv8-a", "-std=c99"], "generated for armv8a"),
])
def test_wrong_target_hits_the_error(name, cmd, message, tmp_path):
    """A multi-key drop keeps its target's #error (the first key size's guard serves all)."""
    src = tmp_path / "use.c"
    src.write_text(f'#define {name.replace("-", "_").upper()}_IMPLEMENTATION\n'
                   f'#include "{ROOT / "out" / name / (name + ".h")}"\n')
    p = subprocess.run([*cmd, "-fsyntax-only", str(src)], capture_output=True, text=True)
    assert p.returncode != 0 and message in p.stderr, p.stderr[-600:]
