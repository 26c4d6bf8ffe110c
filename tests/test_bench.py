"""emu/bench/drop.py, `slicegen bench` (gen/cli/bench.py) and the generated tables (gen/report/tables.py).

The drop is generated from the aes128gcm-portable preset and written as a drop folder without
running the full validation (that is tests/test_drops.py's job); benchmarking it takes a few
seconds.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from emu.bench import drop as bench
from emu.bench.drop import bench_drop
from gen import presets
from gen.drop import render as generate
from gen.report import tables as report
from gen.cli.bench import cmd_bench, format_table
from gen.drop.write import write_drop
from gen.errors import ConfigError

PRESET = "aes128gcm-portable"
KEYS = {"model", "core", "compiler", "key_setup_cycles", "ecb_cycles_per_block", "ghash_cycles_per_byte",
        "cycles", "cycles_per_byte", "gctr_cycles", "gctr_cycles_per_byte", "text_bytes", "rodata_bytes", "ctx_bytes", "table_bytes",
        "cache_bytes", "stack_bytes", "key_schedule_cycles", "ghash_init_cycles", "decrypt_cycles",
        "decrypt_cycles_per_byte"}


@pytest.fixture(scope="module")
def drop(tmp_path_factory):
    """(drop folder, config, kernel set) for the aes128 portable preset."""
    config = presets.preset(PRESET)
    header, ks = generate.header(config, f"slicegen build {PRESET}")
    out = tmp_path_factory.mktemp("out")
    manifest = {"name": config.name, "prefix": config.prefix, "cipher": config.cipher, "mode": config.mode,
                "target": config.target, "options": config.options(), "constant_time": config.constant_time,
                "metrics": {}}
    path = write_drop(out, config.name, header, manifest)
    return path, config, ks


@pytest.fixture(scope="module")
def metrics(drop, tmp_path_factory):
    path, config, _ = drop
    return bench_drop(path / f"{config.name}.h", config.prefix, config.target, 8 * config.spec.key_bytes,
                      tmp_path_factory.mktemp("bench1"))


def test_all_metrics_present(metrics):
    assert set(metrics) == KEYS
    assert set(metrics["cycles"]) == {"16", "64", "256", "1024", "4096", "8192"}
    assert set(metrics["cycles_per_byte"]) == set(metrics["cycles"])
    assert set(metrics["gctr_cycles"]) == set(metrics["gctr_cycles_per_byte"]) == set(metrics["cycles"])
    assert set(metrics["ecb_cycles_per_block"]) == {"2", "64"}
    assert "Cortex-M4" in metrics["model"] and metrics["core"] == "cortex-m4"
    for k in ("key_setup_cycles", "key_schedule_cycles", "ghash_init_cycles", "text_bytes", "ctx_bytes",
              "stack_bytes"):
        assert isinstance(metrics[k], int) and metrics[k] > 0, k
    assert metrics["key_setup_cycles"] > metrics["key_schedule_cycles"] + metrics["ghash_init_cycles"]
    assert metrics["table_bytes"] == 0 and metrics["cache_bytes"] == 0
    json.dumps(metrics)                       # manifest-ready


def test_decrypt_metrics(metrics):
    """Decrypt is measured on the sizes of DECRYPT_SIZES. It authenticates, then runs counter mode
    on the stream start() left (no second E(J0)), so it costs about what encrypt costs: within 3 %
    plus 200 cycles (the tag comparison against the tag copy-out)."""
    assert set(metrics["decrypt_cycles"]) == {str(n) for n in bench.DECRYPT_SIZES}
    for n, c in metrics["decrypt_cycles"].items():
        assert metrics["decrypt_cycles_per_byte"][n] == round(c / int(n), 2)
        enc = metrics["cycles"][n]
        assert abs(c - enc) <= 0.03 * enc + 200, (n, c, enc)


def test_ctx_and_stack_sizes(drop, metrics):
    _, _, ks = drop
    assert metrics["ctx_bytes"] == 4 * (ks.rk_words + ks.ghash.words)
    assert 64 <= metrics["stack_bytes"] < 16 * 1024


def test_cycles_grow_with_message_size(metrics):
    sizes = sorted(int(n) for n in metrics["cycles"])
    cyc = [metrics["cycles"][str(n)] for n in sizes]
    cpb = [metrics["cycles_per_byte"][str(n)] for n in sizes]
    assert all(a < b for a, b in zip(cyc, cyc[1:])), cyc
    assert all(a > b for a, b in zip(cpb, cpb[1:])), cpb        # fixed costs amortised
    for n in sizes:
        assert metrics["cycles_per_byte"][str(n)] == round(metrics["cycles"][str(n)] / n, 2)


def test_cycles_per_byte_plausible(metrics):
    cpb = metrics["cycles_per_byte"]
    # constant-time AES-GCM in C on a Cortex-M4: well above 50, well below 1000 c/B
    assert 50 < cpb["4096"] < 1000
    assert cpb["4096"] < cpb["16"]
    aes = metrics["ecb_cycles_per_block"]["64"] / 16
    ghash = metrics["ghash_cycles_per_byte"]
    assert 20 < aes < 500 and 5 < ghash < 500
    # GCM over 4096 bytes does at least the AES and GHASH work of 4096 bytes
    assert metrics["cycles"]["4096"] > 0.95 * (aes + ghash) * 4096
    assert metrics["cycles"]["4096"] < 1.5 * (aes + ghash) * 4096 + 4 * metrics["key_setup_cycles"]


def test_deterministic(drop, metrics, tmp_path):
    path, config, _ = drop
    again = bench_drop(path / f"{config.name}.h", config.prefix, config.target, 8 * config.spec.key_bytes, tmp_path,
                       sizes=(16, 64, 256, 1024, 4096, 8192))
    assert again == metrics


def test_bench_rejects_a_missing_function(drop, tmp_path):
    path, config, _ = drop
    with pytest.raises(bench.BenchError, match="no function"):
        bench_drop(path / f"{config.name}.h", config.prefix, config.target, 8 * config.spec.key_bytes, tmp_path,
                   firmware=_renamed_firmware(path, config, tmp_path))


def _renamed_firmware(path, config, tmp_path):
    from emu.machines import toolchain
    fw = toolchain.build_firmware(path / f"{config.name}.h", config.prefix, config.target, tmp_path)
    fw.symbols = {k: v for k, v in fw.symbols.items() if k != f"{config.prefix}_ghash"}
    return fw


def test_cli_bench_table_and_plot(drop, tmp_path, capsys):
    path, config, _ = drop
    png = tmp_path / "cpb.png"
    assert cmd_bench(argparse.Namespace(drops=[str(path)], plot=str(png))) == 0
    out = capsys.readouterr()
    assert config.name in out.out and "cycles/byte" in out.out and "key setup" in out.out
    assert "4096" in out.out and "stack" in out.out
    assert out.err == ""                      # progress only on a terminal
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000


def test_cli_bench_bad_input(drop, tmp_path):
    path, _, _ = drop
    with pytest.raises(ConfigError, match="not a drop"):
        cmd_bench(argparse.Namespace(drops=[str(tmp_path)], plot=None))
    with pytest.raises(ConfigError, match="PNG"):
        cmd_bench(argparse.Namespace(drops=[str(path)], plot=str(tmp_path / "x.svg")))
    assert not (tmp_path / "x.svg").exists()


def test_format_table(drop, metrics):
    path, config, _ = drop
    manifest = json.loads((path / "manifest.json").read_text())
    text = format_table(manifest, metrics)
    assert f"{metrics['cycles']['8192']}" in text and f"{metrics['cycles_per_byte']['8192']:.2f}" in text
    row16 = next(line for line in text.splitlines() if line.split()[:1] == ["16"])
    assert row16.split()[-1] == f"{metrics['decrypt_cycles_per_byte']['16']:.2f}"


def _manifests(drop, metrics):
    path, config, _ = drop
    m = json.loads((path / "manifest.json").read_text())
    m["metrics"] = metrics
    other = json.loads(json.dumps(m))
    other["name"], other["cipher"] = "aes256gcm-example", "aes256"
    return [other, m]


def test_report_table(drop, metrics):
    ms = _manifests(drop, metrics)
    table = report.perf_table(ms)
    for m in ms:
        assert f"`{m['name']}`" in table
    for fig in ("84.3", "87.1", "115.6", "~75", "~102", "~179", "~53", "~66", "~27"):
        assert fig in table, fig
    for src in ("aadomn/aes README", "issue 4"):
        assert src in table
    assert f"{metrics['cycles_per_byte']['4096']:.2f}" in table
    assert f"{metrics['ghash_cycles_per_byte']:.2f}" in table
    assert report.perf_table(list(reversed(ms))) == table       # order of input does not matter
    assert report.perf_table([]).count("|") > 10                  # peers even without drops


def test_update_readme_idempotent(drop, metrics, tmp_path):
    ms = _manifests(drop, metrics)
    readme = tmp_path / "README.md"
    before, after = "# title\n\nintro\n\n", "\n\n## next section\ntext\n"
    readme.write_text(f"{before}{report.PRESETS_START}\n{report.PRESETS_END}\n"
                      f"{report.START}\nold table\n{report.END}{after}")
    assert report.update_readme(readme, ms) is True
    first = readme.read_text()
    assert first.startswith(before + report.PRESETS_START) and first.endswith(report.END + after)
    assert "`aes128gcm-portable`" in first.split(report.PRESETS_END)[0]
    assert "old table" not in first and ms[1]["name"] in first
    assert report.update_readme(readme, ms) is False
    assert readme.read_text() == first
    bad = tmp_path / "NOMARKERS.md"
    bad.write_text("# no markers\n")
    with pytest.raises(ValueError, match="markers"):
        report.update_readme(bad, ms)
    assert bad.read_text() == "# no markers\n"


def test_load_manifests(drop):
    path, config, _ = drop
    loaded = report.load_manifests(path.parent)
    assert [m["name"] for m in loaded] == [config.name]


# ---- GCTR: the keystream part of encrypt (cycles attributed per function symbol) ----

FACE_PRESET = "aes128gcm-portable-face-r2"


def _firmware(path, config, tmp_path):
    from emu.machines import toolchain
    return toolchain.build_firmware(path / f"{config.name}.h", config.prefix, config.target, tmp_path)


def _split_encrypt(fw, config, n=4096):
    """(total, by_function) of one `encrypt` of n bytes, as bench_drop measures it."""
    b = bench._Bench(fw, config.prefix)
    m = b.machine
    kl = config.spec.key_bytes
    ctx = m.alloc(8192)
    key = m.alloc(kl, bench._pattern(kl, 1), readonly=True)
    b.measure("init", ctx, key, kl)
    iv = m.alloc(12, bench._pattern(12, 5), readonly=True)
    msg = m.alloc(n, bench._pattern(n, 6), readonly=True)
    out, tag = m.alloc(n), m.alloc(16)
    return b.measure_split("encrypt", ctx, iv, 12, 0, 0, msg, n, out, tag, 16)


def test_gctr_metric_consistent(metrics):
    for n, c in metrics["cycles"].items():
        g = metrics["gctr_cycles"][n]
        assert 0 < g < c, n
        assert metrics["gctr_cycles_per_byte"][n] == round(g / int(n), 2)
    # at 4 KiB: GHASH (the rest) costs about what `ghash` over 4096 bytes costs, GCTR at least the AES
    ghash_part = metrics["cycles"]["4096"] - metrics["gctr_cycles"]["4096"]
    assert abs(ghash_part / 4096 - metrics["ghash_cycles_per_byte"]) < 0.05 * metrics["ghash_cycles_per_byte"]
    assert metrics["gctr_cycles"]["4096"] > 4096 * metrics["ecb_cycles_per_block"]["64"] / 16


def test_gctr_plus_ghash_is_the_total(drop, metrics, tmp_path):
    path, config, _ = drop
    fw = _firmware(path, config, tmp_path)
    total, by_fn = _split_encrypt(fw, config)
    assert total == metrics["cycles"]["4096"]                       # attribution changes no total
    assert sum(by_fn.values()) == total
    ghash = bench.ghash_part(config.prefix, by_fn)
    assert by_fn[f"{config.prefix}_ghash_blocks"] > 0 and 0 < ghash < total
    assert total - ghash == metrics["gctr_cycles"]["4096"]
    # the AES kernel is GCTR, GHASH's own functions are not
    assert bench.ghash_part(config.prefix, {f"{config.prefix}_aes_encrypt2": 5, None: 7}) == 0
    assert bench.ghash_part(config.prefix, {f"{config.prefix}_ghash_blocks.part.0": 5,
                                            f"{config.prefix}_final_tag": 2}) == 7


def test_cycle_counter_attribution_matches_plain_counter(drop, tmp_path):
    """The same call, counted with and without per-function attribution: the same total."""
    from emu.machines import layout
    from emu.bench.cycles import CycleCounter
    path, config, _ = drop
    fw = _firmware(path, config, tmp_path)
    b = bench._Bench(fw, config.prefix)
    b.counter.detach()
    b.counter = CycleCounter(b.machine.uc, fw.core, layout.FLASH_BASE, layout.FLASH_BASE + len(fw.image))
    m = b.machine
    ctx = m.alloc(8192)
    key = m.alloc(16, bench._pattern(16, 1), readonly=True)
    plain = b.measure("init", ctx, key, 16)
    with pytest.raises(RuntimeError):
        b.counter.by_function()
    b.counter.attribute(fw.symbols)
    again, by_fn = b.measure_split("init", ctx, key, 16)
    assert again == plain and sum(by_fn.values()) == plain
    assert by_fn[f"{config.prefix}_aes_keyschedule"] > 0 and by_fn[f"{config.prefix}_ghash_init"] > 0


@pytest.fixture(scope="module")
def face_metrics(tmp_path_factory):
    config = presets.preset(FACE_PRESET)
    header, _ = generate.header(config, f"slicegen build {FACE_PRESET}")
    out = tmp_path_factory.mktemp("face")
    path = write_drop(out, config.name, header, {"name": config.name, "metrics": {}})
    met = bench_drop(path / f"{config.name}.h", config.prefix, config.target, 8 * config.spec.key_bytes,
                     tmp_path_factory.mktemp("benchface"), sizes=(16, 256, 4096))
    return path, config, met


def test_gctr_of_a_face_drop(metrics, face_metrics, tmp_path):
    path, config, met = face_metrics
    # FACE makes the keystream cheaper; its GHASH part (same ctmul code, data-independent) is
    # exactly the face=off drop's
    assert met["gctr_cycles"]["4096"] < metrics["gctr_cycles"]["4096"] < metrics["cycles"]["4096"]
    assert met["gctr_cycles"]["4096"] < met["cycles"]["4096"]
    assert (met["cycles"]["4096"] - met["gctr_cycles"]["4096"]
            == metrics["cycles"]["4096"] - metrics["gctr_cycles"]["4096"])
    total, by_fn = _split_encrypt(_firmware(path, config, tmp_path), config)
    assert total == met["cycles"]["4096"] and sum(by_fn.values()) == total
    face = sum(c for fn, c in by_fn.items() if fn and fn.startswith(f"{config.prefix}_face_"))
    assert 0 < face <= met["gctr_cycles"]["4096"]                   # FACE's work is keystream work


def test_report_face_table_shows_gctr(drop, metrics, face_metrics):
    path, config, _ = drop
    off = json.loads((path / "manifest.json").read_text())
    off["metrics"] = metrics
    _, fconfig, fmet = face_metrics
    face = json.loads(json.dumps(off))
    face["name"], face["options"] = fconfig.name, dict(off["options"], face="r2")
    face["metrics"] = fmet
    table = report.face_table([off, face])
    g_off, g_face = metrics["gctr_cycles"]["4096"], fmet["gctr_cycles"]["4096"]
    assert f"{metrics['gctr_cycles_per_byte']['4096']:.2f} → {fmet['gctr_cycles_per_byte']['4096']:.2f}" in table
    assert f"{100 * (1 - g_face / g_off):.1f}%" in table
    assert "GCTR" in report.perf_table([off, face])
    # manifests from before the GCTR metric still make a table
    for m in (off, face):
        del m["metrics"]["gctr_cycles"], m["metrics"]["gctr_cycles_per_byte"]
    assert "—" in report.face_table([off, face])


def test_face_cache_bytes_counts_stream_and_ctx():
    """FACE RAM comes from the kernels' layout (no header read-back): the stream's FACE words
    (state, per-run constants, r2 table) and the key-only parts in the ctx (the r1 table, the r2
    round-1 S-box planes); the structs the GCM API declares have exactly those arrays."""
    from gen.kernels.face import aes_face
    from gen.modes import gcm
    assert aes_face.cache_bytes("r2") == 4 * (64 + 5 + 40 + 1024)
    assert aes_face.cache_bytes("r1") == 4 * (5 + 16 + 256)
    assert aes_face.cache_bytes("off") == 0
    for name, arrays in (("aes128gcm-m4-ffs-face-r2", ("face_sv[64]", "face_fs[40]", "face_tab[1024]")),
                         ("aes128gcm-m4-ffs-face-r1", ("face_tab[256]", "face_fs[16]"))):
        config = presets.preset(name)
        api = gcm.api(config, generate.kernel_set(config))
        for arr in arrays:
            assert f"uint32_t {arr};" in api, (name, arr)
