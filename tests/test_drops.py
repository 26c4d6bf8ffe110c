"""The shipped drops: regenerating out/ changes no byte, and each drop keeps SPEC's promises."""
import json
import re
import subprocess

from gen import presets
from tests.conftest import ROOT

MANIFEST_KEYS = {"name", "prefix", "cipher", "mode", "target", "options", "constant_time",
                 "config_sha256", "generator_version", "validation", "metrics"}


def test_regeneration_is_byte_identical_to_out(built_defaults):
    for name, result in built_defaults.items():
        shipped = ROOT / "out" / name
        assert shipped.is_dir(), f"out/{name} is missing: run make"
        for fname in (f"{name}.h", "manifest.json"):
            assert (result.path / fname).read_bytes() == (shipped / fname).read_bytes(), \
                f"out/{name}/{fname} differs from a fresh build: run make and commit out/"
    drops = {p.name for p in (ROOT / "out").iterdir() if p.is_dir()}
    assert drops == set(presets.DEFAULTS), "out/ holds exactly the default presets"


def test_manifest_has_the_spec_fields(built_defaults):
    for name, result in built_defaults.items():
        m = json.loads((result.path / "manifest.json").read_text())
        assert MANIFEST_KEYS <= set(m)
        assert m["name"] == name and m["prefix"] == name.replace("-", "_")
        assert set(m["options"]) >= {"slicing", "face", "ghash"}
        nv = m["validation"]["nist_vectors"]
        places = m["validation"]["places"]          # the emulated core, plus the host for portable
        assert len(places) == (2 if m["target"] == "portable" else 1)
        assert nv["failed"] == 0 and nv["passed"] == 15750 * len(places)
        assert len(nv["files"]) == 2
        assert m["validation"]["differential_cases"] > 0
        assert m["metrics"]["text_bytes"] > 0 and m["metrics"]["stack_bytes"] > 0


def test_banner_has_command_version_hash_and_options_but_no_time_or_path(built_defaults):
    for name, result in built_defaults.items():
        head = (result.path / f"{name}.h").read_text().split("*/")[0]
        m = result.manifest
        assert "DO NOT EDIT" in head
        assert f"command: slicegen build {name}" in head
        assert m["config_sha256"] in head and m["generator_version"] in head
        for key in ("cipher", "mode", "target", "slicing", "face", "ghash", "seed"):
            assert re.search(rf"^ \* {key}: ", head, re.M), key
        assert "/tmp" not in head and "/work" not in head and not re.search(r"20\d\d-\d\d-\d\d", head)


def test_header_is_freestanding(built_defaults):
    for name, result in built_defaults.items():
        text = (result.path / f"{name}.h").read_text()
        assert sorted(set(re.findall(r"#include\s*<([^>]+)>", text))) == ["stddef.h", "stdint.h"]
        assert not re.search(r"\b(malloc|free|memcpy|memset|printf)\s*\(", text)


def test_every_external_symbol_has_the_prefix_and_nothing_is_imported(built_defaults, tmp_path):
    for name, result in built_defaults.items():
        prefix = result.manifest["prefix"]
        src = tmp_path / f"{name}.c"
        src.write_text(f'#define {prefix.upper()}_IMPLEMENTATION\n#include "{result.path / (name + ".h")}"\n')
        obj = tmp_path / f"{name}.o"
        subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-std=c99", "-Wall", "-Wextra",
                        "-Werror", "-O2", "-c", str(src), "-o", str(obj)], check=True)
        nm = subprocess.run(["arm-none-eabi-nm", str(obj)], check=True, capture_output=True, text=True).stdout
        defined = [l.split()[-1] for l in nm.splitlines() if re.match(r"^[0-9a-f]+ [TDBR] ", l)]
        undefined = [l.split()[-1] for l in nm.splitlines() if re.match(r"^\s+U ", l)]
        assert defined and all(s.startswith(prefix + "_") for s in defined), defined
        assert undefined == [], f"the drop calls out: {undefined}"


def test_readme_performance_table_matches_the_shipped_manifests(tmp_path):
    from gen.report import load_manifests, update_readme
    copy = tmp_path / "README.md"
    copy.write_text((ROOT / "README.md").read_text())
    assert update_readme(copy, load_manifests(ROOT / "out")) is False, \
        "README's performance table is stale: run make"


def test_manifest_metrics_come_from_the_cycle_model(built_defaults):
    for result in built_defaults.values():
        m = result.manifest["metrics"]
        assert "cycle model" in m["model"]
        sizes = [int(k) for k in m["cycles"]]
        assert sizes == sorted(sizes) and 4096 in sizes
        assert all(m["cycles"][str(a)] < m["cycles"][str(b)] for a, b in zip(sizes, sizes[1:]))
        assert m["key_setup_cycles"] > 0 and m["ctx_bytes"] > 0
