"""The generated Mbed TLS adapter (gen/integrations/mbedtls.py): which drops it takes, that each
key size dispatches to its own drop, and that the context holds no pointer of its own. Mbed TLS's
own suites run over it in `make mbedtls-check` (emu/checks/mbedtls_suites.py)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen.errors import ConfigError                        # noqa: E402
from gen.integrations import mbedtls                     # noqa: E402
from gen.presets import preset                            # noqa: E402

NINE = ("init", "setkey", "starts", "update_ad", "update", "finish", "crypt_and_tag", "auth_decrypt", "free")


def _adapter(*names):
    return mbedtls.adapter([preset(n) for n in names], "tests")


def test_every_key_size_dispatches_to_its_own_drop():
    files = _adapter("aes256gcm-portable", "aes128gcm-portable", "aes192gcm-portable")
    c, h = files["gcm_alt.c"], files["gcm_alt.h"]
    for fn in NINE:
        assert len(re.findall(rf"^(?:int|void) mbedtls_gcm_{fn}\(", c, re.M)) == 1, fn
    for bits in (128, 192, 256):
        p = f"aes{bits}gcm_portable"
        assert f"case {bits}u: rc = {p}_init(&ctx->u.k{bits}.key, key, keybits / 8u);" in c
        assert f"case {bits}u: rc = {p}_finish_tag(&ctx->u.k{bits}.s, full, 16);" in c
        assert f'#include "aes{bits}gcm-portable.h"' in h and f"{p}_stream s;" in h
    assert h.index("aes128gcm-portable.h") < h.index("aes192gcm-portable.h") < h.index("aes256gcm-portable.h")


def test_one_key_size_serves_only_it():
    c = _adapter("aes128gcm-m4-ffs")["gcm_alt.c"]
    assert "case 128u:" in c and "case 192u:" not in c and "case 256u:" not in c
    assert "AES_IMPLEMENTATION" not in c and "#define AES128GCM_M4_FFS_IMPLEMENTATION" in c


def test_the_context_is_plain_data():
    """A byte copy of mbedtls_gcm_context must work: its own fields are no pointers, and every
    call that uses the stream re-attaches it to the ctx beside it first."""
    files = _adapter("aes128gcm-portable")
    struct = files["gcm_alt.h"].split("typedef struct mbedtls_gcm_context {")[1].split("} mbedtls_gcm_context;")[0]
    assert "*" not in re.sub(r"/\*.*?\*/", "", struct, flags=re.S)
    c = files["gcm_alt.c"]
    for fn in ("update_ad", "update", "finish"):
        body = c.split(f"mbedtls_gcm_{fn}(mbedtls_gcm_context *ctx")[1].split("\n}\n")[0]
        assert "sg_gcm_attach(ctx)" in body, fn


def test_one_multikey_drop_serves_every_size_from_one_member():
    """A multi-key drop (issue 32): every key size calls the one drop, the context has one member."""
    files = _adapter("aesgcm-portable")
    c, h = files["gcm_alt.c"], files["gcm_alt.h"]
    for bits in (128, 192, 256):
        assert f"case {bits}u: rc = aesgcm_portable_init(&ctx->u.k128_192_256.key, key, keybits / 8u);" in c
    assert c.count("#define AESGCM_PORTABLE_IMPLEMENTATION") == 1 and h.count('#include "aesgcm-portable.h"') == 1
    assert h.count("aesgcm_portable_stream s;") == 1


def test_a_multikey_drop_mixes_with_a_single_key_drop_for_another_size():
    from gen.config import from_dict
    two = from_dict({"name": "aes-two", "cipher": "aes", "keybits": [128, 256], "mode": "gcm", "target": "portable"})
    c = mbedtls.adapter([two, preset("aes192gcm-portable")], "tests")["gcm_alt.c"]
    assert "case 128u: rc = aes_two_init(&ctx->u.k128_256.key" in c and "case 256u: rc = aes_two_init(&ctx->u.k128_256.key" in c
    assert "case 192u: rc = aes192gcm_portable_init(&ctx->u.k192.key" in c


@pytest.mark.parametrize("names,msg", [
    (("rijndael256ecb-portable",), "AES GCM drops"),
    (("aes128gcm-portable", "aes128gcm-m4-ffs"), "two drops for AES-128"),
    (("aesgcm-portable", "aes256gcm-portable"), "two drops for AES-256"),
])
def test_refuses_what_it_cannot_serve(names, msg):
    with pytest.raises(ConfigError, match=msg):
        _adapter(*names)


def test_the_command_line_writes_drops_and_adapter(tmp_path, capsys):
    assert mbedtls.main(["aes128gcm-portable", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aes128gcm-portable.h", "gcm_alt.c", "gcm_alt.h"]
    shipped = Path(__file__).resolve().parent.parent / "out" / "aes128gcm-portable" / "aes128gcm-portable.h"
    head = lambda t: t.split("#ifndef")[0]                           # noqa: E731  (banner: same command, config)
    assert head((tmp_path / "aes128gcm-portable.h").read_text()) == head(shipped.read_text())
    assert mbedtls.main(["nope", "-o", str(tmp_path / "x")]) == 2
    assert "unknown preset" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_a_cortex_m_drops_declarations_compile_anywhere_its_implementation_only_for_its_core(tmp_path):
    """gcm_alt.h includes the drops' declarations in every Mbed TLS file, built for another core
    (the host; armhf Linux in mbedtls-check): those are plain C; the implementation keeps the
    target's #error."""
    import subprocess
    from gen.drop import render
    cfg = preset("aes128gcm-m4-ffs")
    (tmp_path / "d.h").write_text(render.header(cfg, "x")[0])
    (tmp_path / "d.c").write_text('#include "d.h"\nsize_t sg_n(void);\n'
                                  f"size_t sg_n(void) {{ return sizeof({cfg.prefix}_ctx) + sizeof({cfg.prefix}_stream); }}\n")
    cc = ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", "d.c", "-o", "/dev/null"]
    ok = subprocess.run(cc, cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([*cc, f"-D{cfg.prefix.upper()}_IMPLEMENTATION"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode != 0 and "this drop is generated for cortex-m4" in bad.stderr
