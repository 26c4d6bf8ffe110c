"""The ecb/ctr mode layer (gen/modes/block.py, templates/block_*.j2) and the block-cipher checks
(emu/checks/blockcipher.py, emu/ct/block.py), end to end on AES-128 in portable C: the fixsliced
kernel takes two blocks per call, so the glue's padded last ECB call and its two-counter
refill are exercised; AES also has pyca/cryptography as a second oracle. Mutations prove that
the checks can fail: a counter step of 3, a key-dependent branch in init."""
from __future__ import annotations

import pytest

from emu.checks import blockcipher

from emu.checks import scenarios
from emu.ct.block import check_block_drop
from emu.checks.validate import ValidationError
from gen.drop import render as generate
from gen.build import build
from gen.config import from_dict

CONFIG = {"name": "aes128ctr-test", "cipher": "aes128", "mode": "ctr", "target": "portable"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    config = from_dict(CONFIG)
    return config, build(config, "tests/test_block_modes.py", tmp_path_factory.mktemp("out"))


def test_manifest_records_every_check(built):
    config, res = built
    v = res.manifest["validation"]
    kats = len(config.spec.known_answers())
    assert v["known_answers"]["passed"] == 2 * kats and v["places"] == ["emulated cortex-m4", "host"]
    # SPEC section 4's field is present and says no NIST file covers the cipher (none exists)
    assert v["nist_vectors"]["files"] == [] and v["nist_vectors"]["passed"] == 0
    assert "no vectors" in v["nist_vectors"]["note"]
    assert v["differential_cases"] == 2 * blockcipher.RANDOM_CASES
    assert v["constant_time_check"] == "verified"
    met = res.manifest["metrics"]
    assert set(met["cycles"]) == {str(n) for n in blockcipher.CTR_SIZES}
    assert met["ctx_bytes"] == met["round_key_bytes"] == 4 * 88
    assert res.manifest["options"] == {"slicing": "ffs", "seed": 0}


def test_cases_cover_wrap_stream_and_bad_arguments():
    spec = from_dict(CONFIG).spec
    groups = blockcipher.cases(spec, "ctr", seed=1, count=60)
    ops = {c.op for c in groups["random"]}
    assert ops == {blockcipher.OP_ECB, blockcipher.OP_CTR, blockcipher.OP_CTR_STREAM}
    assert any(c.iv[-4:] >= b"\xff\xff\xff\xfd" and len(c.data) > 48 for c in groups["random"])
    assert all(c.expect_rc == -2 and c.expect_rc2 == -2 for c in groups["bad arguments"])
    # the counter is the last 4 bytes, big-endian, mod 2^32: bytes 0..11 never carry
    iv = bytes(12) + b"\xff\xff\xff\xff"
    ks = blockcipher.ctr_reference(spec, bytes(16), iv, bytes(32))
    assert ks[16:] == spec.encrypt(bytes(16), bytes(16))


def _mutated(tmp_path, old: str, new: str):
    config = from_dict(CONFIG)
    text = generate.header(config, "test")[0]
    assert text.count(old) == 1
    h = tmp_path / "m.h"
    h.write_text(text.replace(old, new))
    return config, h


def test_validation_catches_a_wrong_counter_step(tmp_path):
    config, h = _mutated(tmp_path, "s->ctr += 2u;", "s->ctr += 3u;")
    with pytest.raises(ValidationError, match="random ctr"):
        blockcipher.validate(h, config.prefix, "portable", config.spec, "ctr", 5, tmp_path)


def test_constant_time_catches_a_key_dependent_branch(tmp_path):
    p = "aes128ctr_test"
    config, h = _mutated(tmp_path, f"    {p}_keyschedule(ctx->rk, key);\n",
                         f"    if (key[3] & 1) ctx->rk[0] = 1;\n    {p}_keyschedule(ctx->rk, key);\n")
    drop = scenarios.Drop(h, p, "portable", config.spec, "ctr", config.sha256())
    fw = scenarios.Block.firmware(drop, tmp_path)
    rep = check_block_drop(fw, p, config.spec, "ctr")
    assert rep.status == "not-constant-time" and rep.checks[0][0] == "init+wipe"
