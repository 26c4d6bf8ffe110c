"""The shipped drops: regenerating out/ changes no byte, and each drop keeps SPEC's promises.

For every default preset the header is generated again and must equal the shipped one byte for
byte, and the shipped drop's manifest, banner, includes and symbols are checked. A
representative drop of each kind (FULL_BUILD) is also built afresh (generate, compile, validate,
check constant time, measure) into a temporary folder, and header and manifest must both equal
the shipped ones; `make` rebuilds every drop the same way, and CI checks that it changes no byte
of out/ (.ci/run).
"""
import json
import re
import subprocess

import pytest

from gen import presets
from gen.build import build
from emu.machines import toolchain
from tests.conftest import ROOT

MANIFEST_KEYS = {"name", "prefix", "cipher", "mode", "target", "options", "constant_time",
                 "config_sha256", "generator_version", "validation", "metrics"}


def test_out_holds_exactly_the_default_presets():
    drops = {p.name for p in (ROOT / "out").iterdir() if p.is_dir()}
    assert drops == set(presets.DEFAULTS), "out/ holds exactly the default presets: run make"


#: one drop of each kind, built afresh by `make test` (all of them by `make`)
FULL_BUILD = ["aes128gcm-portable", "aes128gcm-m4-ffs", "aes256gcm-m3-sfs", "aes128gcm-m4-ffs-face-r2",
              "aes192gcm-m4-ffs-face-r1", "aes128gcm-m4-ffs-table8-nct", "rijndael256ctr-portable",
              "speedy5ecb-portable", "aes128gcm-m4-size", "aes128gcm-rv32", "aesgcm-portable"]


@pytest.mark.parametrize("name", [n for n in FULL_BUILD if n in presets.DEFAULTS])
def test_default_drop_rebuilds_byte_identical(name, tmp_path):
    result = build(presets.preset(name), f"slicegen build {name}", tmp_path / "out")
    check_regeneration_is_byte_identical(name, result)
    check_manifest(name, result)


class Shipped:
    """A drop as it is in out/ (the shape of gen.build.BuildResult the checks read)."""

    def __init__(self, name):
        self.path = ROOT / "out" / name
        self.manifest = json.loads((self.path / "manifest.json").read_text())


@pytest.mark.parametrize("name", presets.DEFAULTS)
def test_default_drop(name, tmp_path):
    """Every shipped drop: its header is what the generator writes now, and it keeps SPEC's promises."""
    from gen.drop import render as generate
    shipped = Shipped(name)
    header = generate.header(presets.preset(name), f"slicegen build {name}")[0]
    assert header == (shipped.path / f"{name}.h").read_text(), \
        f"out/{name}/{name}.h differs from a fresh generation: run make and commit out/"
    check_manifest(name, shipped)
    check_banner(name, shipped)
    check_freestanding(name, shipped)
    check_symbols(name, shipped, tmp_path)


def check_regeneration_is_byte_identical(name, result):
    shipped = ROOT / "out" / name
    assert shipped.is_dir(), f"out/{name} is missing: run make"
    for fname in (f"{name}.h", "manifest.json"):
        assert (result.path / fname).read_bytes() == (shipped / fname).read_bytes(), \
            f"out/{name}/{fname} differs from a fresh build: run make and commit out/"


def check_manifest(name, result):
    m = json.loads((result.path / "manifest.json").read_text())
    assert MANIFEST_KEYS <= set(m)
    assert m["name"] == name and m["prefix"] == name.replace("-", "_")
    places = m["validation"]["places"]          # the emulated core, plus the host (portable) or qemu (armv8a)
    assert len(places) == (2 if m["target"] in ("portable", "armv8a") else 1)
    if m["mode"] == "gcm":
        assert set(m["options"]) >= ({"ghash", "unroll", "mul", "eor3"} if m["target"] == "armv8a"
                                     else {"slicing", "face", "ghash"})
        nv = m["validation"]["nist_vectors"]
        keybits = m["options"].get("keybits", [None])       # a multi-key drop: every check per key size
        assert nv["failed"] == 0 and nv["passed"] == 15750 * len(places) * len(keybits)
        assert len(nv["files"]) == 2 * len(keybits)
        assert m["validation"]["differential_cases"] > 0
        if m["cipher"] == "aes":
            check_multikey_manifest(m, places)
    else:                                       # a block cipher: its known answers, 1,000 random cases a place
        from gen import ciphers
        spec = ciphers.get(m["cipher"])
        assert m["validation"]["known_answers"]["passed"] == len(spec.known_answers()) * len(places) > 0
        assert m["validation"]["nist_vectors"]["files"] == []      # SPEC's field: no NIST file exists
        assert m["validation"]["differential_cases"] >= 1000 * len(places)
    ct = m["validation"]["constant_time_check"]
    assert ct == ("verified" if m["constant_time"] else "not-constant-time")
    assert m["constant_time"] == ("-nct" not in name)
    metrics = m["metrics"]
    assert "cycle model" in metrics["model"] or "llvm-mca" in metrics["model"]
    assert metrics["text_bytes"] > 0 and metrics["stack_bytes"] > 0 and metrics["ctx_bytes"] > 0
    if m["mode"] == "ecb":
        assert metrics["ecb_cycles_per_block"]["64"] > 0 and "cycles" not in metrics
        return
    sizes = [int(k) for k in metrics["cycles"]]
    assert sizes == sorted(sizes) and 4096 in sizes
    assert all(metrics["cycles"][str(a)] < metrics["cycles"][str(b)] for a, b in zip(sizes, sizes[1:]))
    if m["mode"] == "gcm":
        assert metrics["key_setup_cycles"] > metrics["key_schedule_cycles"] > 0


def check_multikey_manifest(m, places):
    """A multi-key drop's manifest: validation and figures per key size (gen/build.multikey_manifest)."""
    keybits = m["options"]["keybits"]
    assert keybits == sorted(set(keybits)) and set(keybits) <= {128, 192, 256}
    per_val, per_met = m["validation"]["keybits"], m["metrics"]["keybits"]
    assert list(per_val) == list(per_met) == [str(b) for b in keybits]
    for bits in keybits:
        v = per_val[str(bits)]
        assert v["nist_vectors"]["passed"] == 15750 * len(places) and v["nist_vectors"]["failed"] == 0
        assert v["nist_vectors"]["files"] == [f"gcmEncryptExtIV{bits}.rsp", f"gcmDecrypt{bits}.rsp"]
        assert v["differential_cases"] > 0 and v["constant_time_check"] == "verified"
    cycles = [per_met[str(b)]["cycles"]["4096"] for b in keybits]
    assert cycles == sorted(cycles) and len(set(cycles)) == len(cycles)    # more rounds, more cycles
    assert m["metrics"]["cycles"] == per_met[str(keybits[0])]["cycles"]
    assert m["metrics"]["figures_key_bits"] == keybits[0]


def check_banner(name, result):
    head = (result.path / f"{name}.h").read_text().split("*/")[0]
    m = result.manifest
    assert "DO NOT EDIT" in head
    assert f"command: slicegen build {name}" in head
    assert m["config_sha256"] in head and m["generator_version"] in head
    for key in ("cipher", "mode", "target", *m["options"]):
        assert re.search(rf"^ \* {key}: ", head, re.M), key
    assert "/tmp" not in head and "/work" not in head and not re.search(r"20\d\d-\d\d-\d\d", head)
    assert ("constant time: NO (" in head) == (not m["constant_time"])
    assert ("constant time: yes" in head) == m["constant_time"]


def check_freestanding(name, result):
    text = (result.path / f"{name}.h").read_text()
    assert sorted(set(re.findall(r"#include\s*<([^>]+)>", text))) == ["stddef.h", "stdint.h"]
    assert not re.search(r"\b(malloc|free|memcpy|memset|printf)\s*\(", text)


def check_symbols(name, result, tmp_path):
    """Every external symbol has the prefix; nothing is imported (no libc, no libgcc)."""
    prefix = result.manifest["prefix"]
    cpu = "cortex-m3" if result.manifest["target"] == "cortex-m3" else "cortex-m4"
    src = tmp_path / f"{name}.c"
    src.write_text(f'#define {prefix.upper()}_IMPLEMENTATION\n#include "{result.path / (name + ".h")}"\n')
    obj = tmp_path / f"{name}.o"
    if result.manifest["target"] == "rv32imac":
        cc, flags, nm_tool = "riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32", "-ffreestanding"], \
            "riscv64-unknown-elf-nm"
    elif result.manifest["target"] == "armv8a":
        march = "armv8.2-a+crypto+sha3" if result.manifest["options"]["eor3"] == "on" else "armv8-a+crypto"
        cc, flags, nm_tool = "aarch64-linux-gnu-gcc", [f"-march={march}"], "aarch64-linux-gnu-nm"
    else:
        cc, flags, nm_tool = "arm-none-eabi-gcc", [f"-mcpu={cpu}", "-mthumb"], "arm-none-eabi-nm"
        flags += toolchain.header_cflags(result.path / f"{name}.h")      # spill = fpu: the FPU's flags
    subprocess.run([cc, *flags, "-std=c99", "-Wall", "-Wextra",
                    "-Werror", "-O2", "-c", str(src), "-o", str(obj)], check=True)
    nm = subprocess.run([nm_tool, str(obj)], check=True, capture_output=True, text=True).stdout
    defined = [l.split()[-1] for l in nm.splitlines() if re.match(r"^[0-9a-f]+ [TDBR] ", l)]
    undefined = [l.split()[-1] for l in nm.splitlines() if re.match(r"^\s+U ", l)]
    assert defined and all(s.startswith(prefix + "_") for s in defined), defined
    assert undefined == [], f"the drop calls out: {undefined}"


def test_readme_and_docs_tables_match_the_shipped_manifests(tmp_path):
    """README.md's drop table, every generated docs/ page (gen/report/tables.py DOCS_PAGES) and the
    size-speed plot beside docs/performance.md are what `python -m gen.report` writes from out/."""
    import shutil
    from gen.report.tables import DOCS_PAGES, load_manifests, update_pages
    (tmp_path / "README.md").write_text((ROOT / "README.md").read_text())
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    assert set(DOCS_PAGES) <= {p.name for p in (ROOT / "docs").glob("*.md")}
    changed = update_pages(tmp_path / "README.md", tmp_path / "docs", load_manifests(ROOT / "out"))
    assert changed == [], f"generated tables are stale ({[str(p.relative_to(tmp_path)) for p in changed]}): run make"
