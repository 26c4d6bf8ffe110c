"""The command line: list, bad input (one line, exit 2, nothing written), validate."""
import subprocess
import sys

from gen import presets
from gen.cli.commands import main
from tests.conftest import ROOT


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gen", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT)


def test_list_shows_every_preset_with_its_constant_time_claim():
    proc = run_cli("list")
    assert proc.returncode == 0
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == len(presets.PRESETS)
    for line, name in zip(lines, presets.PRESETS):
        assert line.startswith(name)
        assert ("NOT constant-time" in line) == (not presets.preset(name).constant_time)


def test_list_into_a_closed_pipe_exits_quietly():
    """`slicegen list | head`: the reader has gone; no traceback, 141 (128 + SIGPIPE)."""
    import os
    r, w = os.pipe()
    os.close(r)                               # every write to w now fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "gen", "list"], stdout=w, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT)
    finally:
        os.close(w)
    assert proc.stderr == ""
    assert proc.returncode == 141


def test_unknown_preset_is_one_line_exit_2_nothing_written(tmp_path):
    proc = run_cli("build", "aes1024gcm-portable", "-o", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unknown preset 'aes1024gcm-portable'" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_bad_toml_value_lists_allowed_values(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "c"\ncipher = "aes128"\nmode = "gcm"\ntarget = "portable"\n'
                   '[ghash]\nimpl = "table16"\n')
    proc = run_cli("build", str(cfg), "-o", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert "ghash.impl = 'table16'" in proc.stderr and "ctmul, table4, table8" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_a_bad_config_among_good_ones_builds_nothing(tmp_path):
    """All input is checked first: nothing is built or written when any argument is bad."""
    assert main(["build", presets.DEFAULTS[0], "no-such-preset", "-o", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()


def test_validate_rejects_a_folder_that_is_not_a_drop(tmp_path):
    proc = run_cli("validate", str(tmp_path))
    assert proc.returncode == 2 and "not a drop" in proc.stderr


def test_validate_passes_on_a_shipped_drop():
    name = "aes128gcm-portable"
    proc = run_cli("validate", str(ROOT / "out" / name))
    assert proc.returncode == 0, proc.stderr
    assert "NIST 31500 passed, 0 failed" in proc.stdout


def test_validate_runs_every_key_size_of_a_multikey_drop():
    proc = run_cli("validate", str(ROOT / "out" / "aesgcm-portable"))
    assert proc.returncode == 0, proc.stderr
    for bits in (128, 192, 256):
        assert f"aesgcm-portable (aes{bits}): NIST 31500 passed, 0 failed" in proc.stdout, proc.stdout


def test_validate_fails_on_a_tampered_drop(tmp_path):
    """Break the counter increment in a copy of a drop: validation must say FAILED."""
    import shutil
    name = "aes128gcm-portable"
    drop = tmp_path / name
    shutil.copytree(ROOT / "out" / name, drop)
    header = drop / f"{name}.h"
    text = header.read_text()
    assert text.count("s->ctr += 2u;") == 1
    header.write_text(text.replace("s->ctr += 2u;", "s->ctr += 3u;"))
    proc = run_cli("validate", str(drop))
    assert proc.returncode == 1 and "FAILED" in proc.stderr


def test_a_drop_that_fails_the_constant_time_check_is_not_written(tmp_path, monkeypatch):
    """An early-exit tag compare slipped into the glue: the build refuses to write the drop."""
    import pytest
    from gen import build as build_mod
    from gen.drop import render as generate
    real = generate.header
    loop = "for (i = 0; i + 4 <= taglen; i += 4) {"       # tag_diff's word loop

    def leaky(config, command):
        text, ks = real(config, command)
        assert text.count(loop) == 1
        return text.replace(loop, "for (i = 0; i + 4 <= taglen && diff == 0; i += 4) {"), ks

    monkeypatch.setattr(build_mod.generate, "header", leaky)
    with pytest.raises(build_mod.ConstantTimeError, match="decrypt"):
        build_mod.build(presets.preset("aes128gcm-portable"), "slicegen build x", tmp_path / "o")
    assert not (tmp_path / "o" / "aes128gcm-portable").exists()


def test_build_jobs_must_be_positive(tmp_path):
    proc = run_cli("build", "speedy5ecb-portable", "-j", "0", "-o", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--jobs 0" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_parallel_build_writes_the_same_drops(tmp_path):
    """`build -j 2` (what make runs) writes byte for byte what one process writes."""
    names = ["speedy5ecb-portable", "speedy6ecb-portable"]
    one, two = tmp_path / "one", tmp_path / "two"
    assert run_cli("build", *names, "-o", str(one)).returncode == 0
    proc = run_cli("build", *names, "-j", "2", "-o", str(two))
    assert proc.returncode == 0, proc.stderr
    for n in names:
        for f in (f"{n}.h", "manifest.json"):
            assert (one / n / f).read_bytes() == (two / n / f).read_bytes()


def test_version_prints_the_generator_version():
    from gen.version import GENERATOR_VERSION
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"slicegen {GENERATOR_VERSION}"
    assert "AES-GCM, Rijndael-256, SPEEDY" in " ".join(run_cli("--help").stdout.split())
