"""[schedule] objective (issue 19): "speed" leaves every configuration and drop as it was; "size"
and "balanced" build drops with less .text that pass the same checks (NIST, pyca, constant time,
on the M4 and on the M3 CPU model); the compact key schedule writes the reference round keys;
the size-speed table and plot are deterministic."""
import ctypes
import dataclasses
import json
import random
import subprocess
import tomllib
import xml.etree.ElementTree as ET

import pytest

from emu.machines import toolchain
from gen import config as C, presets
from gen.drop import render as generate
from gen.report import tables as report
from gen.report import size as report_size
from gen.build import build
from gen.errors import ConfigError
from gen.ir import run
from gen.kernels.aes import keyschedule_compact
from gen.kernels.aes.keyschedule import keyschedule_ir
from tests.conftest import ROOT

COMPACT = [n for n in presets.PRESETS if n.endswith(("-size", "-balanced"))]


# --------------------------------------------------------------------------- the option

@pytest.mark.parametrize("name", [n for n in presets.DEFAULTS if n not in COMPACT])
def test_speed_is_the_old_configuration(name):
    """Every existing default: its hash is the one in its shipped manifest, and saying
    objective = "speed" out loud changes neither the hash nor the options."""
    c = presets.preset(name)
    shipped = json.loads((ROOT / "out" / name / "manifest.json").read_text())
    assert c.sha256() == shipped["config_sha256"] and c.options() == shipped["options"]
    if (c.cipher, c.mode, c.target) in C.SUPPORTED and "objective" in C.SUPPORTED[(c.cipher, c.mode, c.target)]:
        data = dict(presets.PRESETS[name], schedule={**presets.PRESETS[name].get("schedule", {}), "objective": "speed"})
        said = C.from_dict(data)
        assert said == c and said.sha256() == c.sha256() and "objective" not in said.canonical()


def test_speed_header_is_byte_identical_to_the_default():
    c = presets.preset("aes128gcm-m4-ffs")
    said = C.from_dict(dict(presets.PRESETS["aes128gcm-m4-ffs"], schedule={"seed": 0, "objective": "speed"}))
    assert generate.header(said, "x")[0] == generate.header(c, "x")[0]


@pytest.mark.parametrize("objective", ["balanced", "size"])
def test_other_objectives_are_hashed_and_round_trip(objective):
    c = dataclasses.replace(presets.preset("aes128gcm-m4-ffs"), objective=objective)
    assert c.sha256() != presets.preset("aes128gcm-m4-ffs").sha256()
    assert json.loads(c.canonical())["objective"] == objective and c.options()["objective"] == objective
    assert C.from_dict(tomllib.loads(c.toml())) == c


def test_bad_objective_is_refused_with_the_choices():
    with pytest.raises(ConfigError, match=r"schedule.objective = 'tiny' is not allowed; choose one of: "
                                          r"speed, balanced, size"):
        C.from_dict(dict(presets.PRESETS["aes128gcm-m4-ffs"], schedule={"objective": "tiny"}))
    with pytest.raises(ConfigError, match="must be a string"):
        C.from_dict(dict(presets.PRESETS["aes128gcm-m4-ffs"], schedule={"objective": 3}))


@pytest.mark.parametrize("name", ["aes128gcm-portable", "speedy5ctr-m4", "aes128gcm-armv8a"])
def test_objective_is_refused_where_it_does_not_apply(name):
    with pytest.raises(ConfigError, match="objective is not an option of"):
        C.from_dict(dict(presets.PRESETS[name], schedule={"objective": "size"}))


def test_compact_presets_are_built_by_make():
    assert {"aes128gcm-m4-size", "aes256gcm-m4-size", "aes128gcm-m3-size", "aes256gcm-m3-size",
            "aes128gcm-m4-balanced"} <= set(presets.DEFAULTS)
    for name in COMPACT:
        c = presets.preset(name)
        assert c.objective == name.rsplit("-", 1)[1] and c.constant_time and c.ghash == "ctmul"


# --------------------------------------------------------------------------- .text

@pytest.mark.parametrize("base", ["aes128gcm-m4-ffs", "aes256gcm-m3-ffs"])
def test_size_objective_shrinks_text(base, tmp_path):
    """The drop compiled alone as a user would (toolchain.drop_sizes): size < balanced < speed,
    and size under half of speed."""
    text = {}
    for objective in ("speed", "balanced", "size"):
        c = dataclasses.replace(presets.preset(base), objective=objective)
        h = tmp_path / f"{objective}.h"
        h.write_text(generate.header(c, "x")[0])
        text[objective] = toolchain.drop_sizes(h, c.prefix, c.target, tmp_path)["text_bytes"]
    assert text["size"] < text["balanced"] < text["speed"]
    assert 2 * text["size"] < text["speed"], text
    if base == "aes128gcm-m4-ffs":                # issue 19's .text targets: 10 KB and 20 KB
        assert text["size"] <= 10 * 1024 and text["balanced"] <= 20 * 1024, text


def test_compact_drops_have_one_aes_kernel():
    """balanced: the asm ctr_pairs (rounds unrolled) and no asm encrypt2; size: the asm ctr_pairs
    with the rounds looped (one round-kind dispatch); both: the glue's encrypt2 wrapper over
    ctr_pairs and one SubWord circuit."""
    for name in ("aes128gcm-m4-balanced", "aes128gcm-m4-size"):
        h = generate.header(presets.preset(name), "x")[0]
        p = presets.preset(name).prefix

        def label(sym):
            return f'"{sym}:\\n"' in h
        assert not label(f"{p}_aes_encrypt2") and f"static void {p}_aes_encrypt2(" in h
        assert h.count(f"static void {p}_ks_subword(") == 1
        if name.endswith("balanced"):
            assert label(f"{p}_ctr_pairs") and "round kind: j mod" not in h
        else:
            assert label(f"{p}_ctr_pairs") and h.count("@ round kind: j mod 4") == 1


@pytest.mark.parametrize("kb,sl", [(128, "ffs"), (192, "sfs"), (256, "ffs")])
def test_round_functions_compose_to_the_cipher(kb, sl):
    """The size kernel's segments as IR, chained as its round loop runs them (round j: ARK with
    round key j - 1 and the S-box, then the linear layer of j's kind; the last round: the final
    ARK and unpacking), against encrypt2_ir."""
    from gen.kernels.aes import compact_thumb2 as CT, fixsliced as AF, thumb2 as A
    nr = AF.check_args(kb, sl)
    rng = random.Random(kb)
    rk = [rng.getrandbits(32) for _ in range(8 * (nr + 1))]
    block, msg = [rng.getrandbits(32) for _ in range(8)], [rng.getrandbits(32) for _ in range(8)]
    kinds = A.segment_kinds(kb, sl)
    st = run(CT.first_program()[0], {"cb": block})["so"]
    for j in range(1, nr + 1):
        st = run(CT.arksbox_program()[0], {"si": st, "rk": rk[8 * (j - 1):8 * j]})["so"]
        if j < nr:
            st = run(CT.linear_program(kinds[j - 1])[0], {"si": st})["so"]
    out = run(CT.last_program(nr, sl)[0], {"si": st, "rk": rk[8 * nr:], "msg": msg})["out"]
    ref = run(AF.encrypt2_ir(kb, sl), {"in": block, "rk": rk})["out"]
    assert out == [r ^ m for r, m in zip(ref, msg)]


# --------------------------------------------------------------------------- whole drops

@pytest.mark.parametrize("base,objective", [("aes128gcm-m3-ffs", "size"), ("aes256gcm-m4-ffs", "balanced"),
                                             ("aes192gcm-m4-sfs", "size")])
def test_compact_drop_builds_and_passes_every_check(base, objective, tmp_path):
    """build() writes a drop only when NIST, the pyca differential cases and the constant-time
    trace check all pass (on the M3 CPU model for the M3 drop; sfs: the 2-kind round dispatch);
    its .text is under the shipped speed drop's, and its cycles at 4 KiB within issue 19's
    budget of them (size 1.2x, balanced 1.05x)."""
    config = dataclasses.replace(presets.preset(base), objective=objective, name=f"{base}-{objective}")
    m = build(config, f"slicegen build {config.name}", tmp_path).manifest
    v = m["validation"]
    assert v["nist_vectors"]["passed"] > 0 and v["nist_vectors"]["failed"] == 0
    assert v["differential_cases"] > 0 and v["constant_time_check"] == "verified"
    assert v["places"] == [f"emulated {m['target']}"]
    met = m["metrics"]
    base_met = json.loads((ROOT / "out" / base / "manifest.json").read_text())["metrics"]
    assert met["text_bytes"] < base_met["text_bytes"] and met["ctx_bytes"] < base_met["ctx_bytes"]
    assert met["cycles"]["4096"] <= {"size": 1.2, "balanced": 1.05}[objective] * base_met["cycles"]["4096"]


# --------------------------------------------------------------------------- the report

def _manifest(name, cipher, core, objective, face, text, c4096, c64):
    opts = {"slicing": "ffs", "face": face, "ghash": "ctmul", "seed": 0}
    if objective != "speed":
        opts["objective"] = objective
    return {"name": name, "cipher": cipher, "mode": "gcm", "target": core, "constant_time": True, "options": opts,
            "metrics": {"text_bytes": text, "ctx_bytes": 500, "cache_bytes": 0, "stack_bytes": 600,
                        "cycles": {"16": c64 * 40, "64": c64 * 64, "256": c64 * 200, "4096": c4096 * 4096},
                        "cycles_per_byte": {"16": c64 * 2.5, "64": c64, "256": c64 * 200 / 256, "4096": c4096}}}


MANIFESTS = [_manifest("a-speed", "aes128", "cortex-m4", "speed", "off", 48000, 113.0, 190.0),
             _manifest("a-r2", "aes128", "cortex-m4", "speed", "r2", 68000, 102.0, 197.0),
             _manifest("a-size", "aes128", "cortex-m4", "size", "off", 15000, 120.0, 203.0),
             _manifest("b-speed", "aes256", "cortex-m3", "speed", "off", 58000, 164.0, 256.0)]


def test_size_table_rows_and_ratio():
    t = report_size.table(MANIFESTS, report._markdown)
    rows = [r for r in t.splitlines() if r.startswith("| `")]
    assert [r.split("|")[1].strip() for r in rows] == ["`a-speed`", "`a-r2`", "`a-size`"]  # b: no trade
    assert "| size | 15,000 | 120.00 | 203.00 | 1.062× |" in t
    assert report_size.table(MANIFESTS[3:], report._markdown) is None


def test_size_plot_is_deterministic_svg(tmp_path):
    a, b = report_size.svg(MANIFESTS), report_size.svg(list(reversed(MANIFESTS)))
    assert a == b
    root = ET.fromstring(a)
    assert root.tag.endswith("svg")
    assert len(root.findall("{http://www.w3.org/2000/svg}polygon")) == 2      # one size point per panel
    assert report_size.write_svg(tmp_path / "p.svg", MANIFESTS) is True
    assert report_size.write_svg(tmp_path / "p.svg", MANIFESTS) is False
    assert report_size.svg(MANIFESTS[3:]) is None


def test_compact_drops_do_not_displace_the_speed_rows():
    """The AES table and the FACE table's twins pick speed drops even when a compact drop of the
    same cipher and core sorts first."""
    face = report.face_table(MANIFESTS)
    assert "`a-speed`" in face and "`a-size`" not in face
    aes = report.aes_table(MANIFESTS)
    assert "48000" in aes.replace(",", "") and "15000" not in aes.replace(",", "")


def test_explore_scores_the_kernel_the_size_drop_ships():
    """explore's candidates for a size configuration are the looped kernel's segments (the seed
    reaches them), not the unrolled encrypt2 the drop does not contain."""
    from gen.explore import search as explore
    from gen.kernels.aes import compact_thumb2 as CT
    c = presets.preset("aes128gcm-m4-size")
    line = explore.score(c, 0)
    k = CT.thumb2(c.prefix, 128, "ffs", "cortex-m4", 0)
    assert line["cycles"] == k.pair_segment_cycles == k.segments["first"] + 10 * k.segments["ark+sbox"] + \
        sum(k.segments[f"lin:0:{j % 4}"] for j in range(1, 10)) + k.segments["last"]
    assert line["cycles"] != explore.score(presets.preset("aes128gcm-m4-ffs"), 0)["cycles"]


ECB_HARNESS = r'''
#include <stdint.h>
#include <stddef.h>
#include HDR
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define F(x) CAT(PFX, x)
static CAT(PFX, ctx) ctx;
uint32_t sg_ecb(const uint8_t *key, uint32_t keylen, uint8_t *out, const uint8_t *in, uint32_t n)
{
    if (F(init)(&ctx, key, keylen)) return 1u;
    F(ecb_encrypt)(&ctx, out, in, n);
    return 0u;
}
'''


@pytest.mark.parametrize("name", ["aes128gcm-m4-size", "aes256gcm-m3-size"])
def test_ecb_of_the_one_kernel_matches_pyca(name, tmp_path):
    """ecb_encrypt goes through the glue's aes_encrypt2 over ctr_pairs (a zero message, a copy
    of the input as counter blocks): against pyca, odd and even block counts, unaligned, in place;
    in emulation on the drop's core."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from emu.machines.machine import Machine
    c = presets.preset(name)
    hp = tmp_path / f"{name}.h"
    hp.write_text(generate.header(c, "x")[0])
    src = tmp_path / "ecb_harness.c"
    src.write_text(ECB_HARNESS)
    fw = toolchain.link_firmware([src], c.target, tmp_path, stem="ecb", defines=[
        f'-DHDR="{hp}"', f"-DPFX={c.prefix}", f"-D{c.prefix.upper()}_IMPLEMENTATION"], compiler=[
        toolchain.tool(toolchain.ARM_GCC), *toolchain.CORE_FLAGS[c.target], *toolchain.STRICT, "-ffreestanding"])
    m = Machine(c.target, fw.image)
    rng = random.Random(name)
    for n, off in ((1, 0), (2, 1), (3, 3), (5, 2)):
        key, data = rng.randbytes(c.spec.key_bytes), rng.randbytes(16 * n)
        e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        want = e.update(data) + e.finalize()
        m.reset_buffers()
        kp, src_p, out_p = m.alloc(len(key), key), m.alloc(16 * n, data, offset=off), m.alloc(16 * n, offset=3)
        assert m.call(fw.addr("sg_ecb"), kp, len(key), out_p, src_p, n) == 0
        assert m.read(out_p, 16 * n) == want
        assert m.call(fw.addr("sg_ecb"), kp, len(key), src_p, src_p, n) == 0     # in place
        assert m.read(src_p, 16 * n) == want
