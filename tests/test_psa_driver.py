"""The generated PSA transparent driver (gen/integrations/psa_driver.py): the entry points'
signatures are the PSA driver interface's, each key size dispatches to its own drop, what it cannot
serve is refused at generation; and the check's edit of Mbed TLS's driver wrappers
(emu/checks/psa_driver.py) lands before the built-in fallback or stops. The driver runs inside
Mbed TLS 3.6 in `make mbedtls-check` (suites through the wired dispatch, direct calls against the
built-in and pyca, host and Cortex-M4)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emu.checks import psa_driver as check                 # noqa: E402
from gen.errors import ConfigError                        # noqa: E402
from gen.integrations import psa_driver                   # noqa: E402
from gen.presets import preset                            # noqa: E402

# Mbed TLS 3.6, docs/proposed/psa-driver-interface.md and library/psa_crypto_aead.h: the
# transparent driver's aead_encrypt / aead_decrypt, parameter for parameter.
SIGNATURES = {
    "encrypt": ("const psa_key_attributes_t *attributes, const uint8_t *key_buffer, size_t key_buffer_size, "
                "psa_algorithm_t alg, const uint8_t *nonce, size_t nonce_length, const uint8_t *additional_data, "
                "size_t additional_data_length, const uint8_t *plaintext, size_t plaintext_length, "
                "uint8_t *ciphertext, size_t ciphertext_size, size_t *ciphertext_length"),
    "decrypt": ("const psa_key_attributes_t *attributes, const uint8_t *key_buffer, size_t key_buffer_size, "
                "psa_algorithm_t alg, const uint8_t *nonce, size_t nonce_length, const uint8_t *additional_data, "
                "size_t additional_data_length, const uint8_t *ciphertext, size_t ciphertext_length, "
                "uint8_t *plaintext, size_t plaintext_size, size_t *plaintext_length"),
}


def _files(*names, driver="slicegen"):
    return psa_driver.driver_files([preset(n) for n in names], "tests", driver)


def _params(text: str, fn: str) -> str:
    m = re.search(rf"psa_status_t {fn}\((.*?)\)", text, re.S)
    assert m, fn
    return " ".join(m.group(1).split())


def test_signatures_are_the_driver_interfaces():
    files = _files("aes128gcm-portable")
    for op, params in SIGNATURES.items():
        assert _params(files["slicegen_psa_driver.h"], f"slicegen_psa_aead_{op}") == params
        assert _params(files["slicegen_psa_driver.c"], f"slicegen_psa_aead_{op}") == params


def test_every_key_size_dispatches_to_its_own_drop():
    c = _files("aes256gcm-portable", "aes128gcm-portable", "aes192gcm-portable")["slicegen_psa_driver.c"]
    for bits in (128, 192, 256):
        p = f"aes{bits}gcm_portable"
        assert c.count(f"case {bits // 8}u:\n        rc = {p}_init(&k.{p}, key_buffer, key_buffer_size);") == 2
        assert f"rc = {p}_encrypt(&k.{p}, nonce" in c and f"rc = {p}_decrypt(&k.{p}, nonce" in c
        assert c.count(f"{p}_wipe(&k.{p});") == 2                   # the key schedule never outlives a call
        assert f"#define AES{bits}GCM_PORTABLE_IMPLEMENTATION" in c
    assert c.index("aes128gcm-portable.h") < c.index("aes192gcm-portable.h") < c.index("aes256gcm-portable.h")


def test_one_key_size_serves_only_it_and_the_rest_falls_back():
    c = _files("aes128gcm-m4-ffs", driver="acme")["acme_psa_driver.c"]
    assert "case 16u:" in c and "case 24u:" not in c and "case 32u:" not in c
    assert "psa_status_t acme_psa_aead_encrypt(" in c and "ACME_PSA_DRIVER_DROPS_ELSEWHERE" in c
    # a key size without a drop, another key type or algorithm, a tag length the drop refuses:
    # NOT_SUPPORTED (the core's next driver or its built-in), before any buffer is touched
    tag = c.split("static size_t acme_psa_gcm_tag(")[1].split("\n}\n")[0]
    assert "PSA_KEY_TYPE_AES" in tag and "PSA_ALG_AEAD_AT_LEAST_THIS_LENGTH_FLAG" in tag
    assert "(t == 4 || t == 8 || (t >= 12 && t <= 16)) ? t : 0" in tag
    for op in ("encrypt", "decrypt"):
        body = c.split(f"psa_status_t acme_psa_aead_{op}(")[1].split("\n}\n")[0]
        first = body.index("return PSA_ERROR_NOT_SUPPORTED;")
        assert first < body.index("_init(") and body.index("= 0;") < first    # output length 0 first


@pytest.mark.parametrize("names,driver,msg", [
    (("rijndael256ecb-portable",), "slicegen", "AES GCM drops"),
    (("aes128gcm-portable", "aes128gcm-m4-ffs"), "slicegen", "two drops for AES-128"),
    (("aes128gcm-portable",), "Bad-Name", "lower-case C identifier"),
])
def test_refuses_what_it_cannot_serve(names, driver, msg):
    with pytest.raises(ConfigError, match=msg):
        _files(*names, driver=driver)


def test_the_command_line_writes_drops_and_driver(tmp_path, capsys):
    assert psa_driver.main(["aes128gcm-portable", "aes256gcm-portable", "-o", str(tmp_path), "--driver", "acme"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "acme_psa_driver.c", "acme_psa_driver.h", "aes128gcm-portable.h", "aes256gcm-portable.h"]
    assert "command: python -m gen.integrations.psa_driver aes128gcm-portable aes256gcm-portable --driver acme" \
        in (tmp_path / "acme_psa_driver.c").read_text()
    assert psa_driver.main(["nope", "-o", str(tmp_path / "x")]) == 2
    assert "unknown preset" in capsys.readouterr().err and not (tmp_path / "x").exists()


WRAPPERS = """/* BEGIN-driver headers */
/* END-driver headers */
static inline psa_status_t psa_driver_wrapper_aead_encrypt(void)
{
            /* Fell through, meaning no accelerator supports this operation */
            return( mbedtls_psa_aead_encrypt(
}
static inline psa_status_t psa_driver_wrapper_aead_decrypt(void)
{
            /* Fell through, meaning no accelerator supports this operation */
            return( mbedtls_psa_aead_decrypt(
}
"""


def test_the_wiring_goes_before_the_builtin_fallback():
    text = check.wired(WRAPPERS, "acme", count=False)
    assert text.index('#include "acme_psa_driver.h"') > text.index("/* END-driver headers */")
    for op in ("encrypt", "decrypt"):
        fn = text.split(f"psa_driver_wrapper_aead_{op}(void)")[1].split("\n}\n")[0]
        assert fn.index(f"status = acme_psa_aead_{op}(") < fn.index("if( status != PSA_ERROR_NOT_SUPPORTED )") \
            < fn.index(f"return( mbedtls_psa_aead_{op}(")
    assert "sg_psa_driver_hit" not in text
    assert text.count("sg_psa_driver_hit(") == 0 and check.wired(WRAPPERS, "acme").count("sg_psa_driver_hit(") == 3


@pytest.mark.parametrize("cut", ["/* END-driver headers */\n", "return( mbedtls_psa_aead_decrypt("])
def test_the_wiring_stops_on_another_layout(cut):
    with pytest.raises(SystemExit, match="not Mbed TLS 3.6's layout"):
        check.wired(WRAPPERS.replace(cut, ""), "acme")


def test_the_direct_check_cases_cover_every_key_size_tag_and_iv_length():
    lines = [x.split() for x in check.cases([128, 192, 256])]
    assert {(int(b), int(t)) for b, t, *_ in lines} == {(b, t) for b in (128, 192, 256) for t in (4, 8, 12, 13, 14, 15, 16)}
    assert {len(iv) // 2 for *_, iv, _, _, _ in [x[:7] for x in lines]} == {1, 7, 8, 12, 13, 16, 60, 128}
    assert all((want == "?") == (len(iv) < 16) for _, _, _, iv, _, _, want in lines)   # pyca: IVs of 8+ bytes
    assert all(len(want) // 2 == len(pt.strip("-")) // 2 + int(t) for _, t, _, _, _, pt, want in lines if want != "?")


def test_the_docs_show_the_wiring_the_check_makes():
    """docs/mbedtls.md tells a user the lines to add; they are the check's, line for line."""
    docs = {x.strip() for x in (Path(__file__).resolve().parent.parent / "docs" / "mbedtls.md").read_text().splitlines()}
    lines = check.WIRING.format(driver="slicegen", op="encrypt", args=check.ARGS["encrypt"], count="").splitlines()
    assert [x for x in lines if x.strip() and x.strip() not in docs] == []
    assert f"`{check.ARGS['decrypt']}`." in " ".join(docs) and check.HEADERS_END.strip() in " ".join(docs)
