"""The CI slice of the fuzzing (issue 33; `make fuzz` is the long form): the plain references of
tests/fuzz/ on the designers' known answers, each libFuzzer target replaying its committed corpus
and then fuzzing a few seeded seconds without a divergence or a sanitizer report, planted bugs (a
GCM drop accepting a 17-byte tag, a FACE cache wipe that lets a cached stream go on) that the
targets must find, the GCM corpus replayed on the
ARMv8-A drops under qemu-aarch64 and on Cortex-M drops in Unicorn, the FACE corpus's call
sequences on Cortex-M FACE r2 drops in Unicorn, and a few seeded seconds of the bounded live mode
(tests/fuzz/live.py: each input as libFuzzer makes it on emulated M4 and M3 drops), which must
also find a bug planted in an emulated drop only."""
import json
import subprocess

import pytest

from emu.bench.face_cache import CachedDrop
from emu.checks.runner import EmuRunner, HostRunner
from emu.machines import toolchain
from gen.ciphers import base
from tests import hostbuild
from tests.fuzz import emu_face_replay, emu_replay, live, run, targets

SECONDS = 5


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            work = tmp_path_factory.mktemp(name)
            cache[name] = (targets.build(targets.TARGETS[name], work), work)
        return cache[name]
    return get


def test_references_match_known_answers(tmp_path):
    exe = tmp_path / "ref_kat"
    toolchain.run([toolchain.tool("clang"), *hostbuild.STRICT, "-O1", *hostbuild.SANITIZE,
                   str(targets.HERE / "ref_kat.c"), "-lm", "-o", str(exe)], tmp_path)
    lines, want = [], []
    for cipher in ("rijndael256", "speedy"):
        data = json.loads((base.DATA_DIR / f"{cipher}.json").read_text())
        for v in data["vectors"]:
            name = f"speedy{v['rounds']}" if cipher == "speedy" else cipher
            lines.append(f"{name} {v['key']} {v['plaintext']}")
            want.append(v["ciphertext"].upper())
    assert len(want) >= 15
    proc = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == want


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
def test_corpus_replays_and_seeded_run_is_clean(built, name):
    exe, work = built(name)
    target = targets.TARGETS[name]
    inputs = len(list(target.corpus.iterdir()))
    assert inputs >= 20, "the committed corpus is missing"
    figs = run.replay(exe, target, work)
    assert figs.ok, figs.log.read_text()[-3000:]
    assert figs.execs >= inputs and figs.edges > 100
    figs = run.fuzz(exe, target, SECONDS, seed=1, work=work, keep=False)
    assert figs.ok, figs.log.read_text()[-3000:]
    # The run loads the corpus first, then mutates: it must get past the corpus (a bound on work
    # done, not on speed: FACE's inputs are up to 16 messages and a loaded machine runs ~100/s).
    assert figs.execs > inputs


#: (target, text in its drops, the bug): a tag length one too lax; a cache wipe that does not
#: stop a cached stream running on it
PLANTED = [("gcm_portable", "(taglen >= 12 && taglen <= 16)", "(taglen >= 12 && taglen <= 17)"),
           ("face_portable", "gen = cache->gen + 1u;", "gen = cache->gen;")]


@pytest.mark.parametrize("name,text,bug", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_bug_is_found(tmp_path, name, text, bug):
    target = targets.TARGETS[name]
    defines = []
    for define, preset in target.drops:
        hdr = hostbuild.render(preset, tmp_path)
        source = hdr.path.read_text()
        assert text in source
        hdr.path.write_text(source.replace(text, bug))
        defines.append(f'-D{define}="{hdr.path}"')
    exe = hostbuild.compile_fuzzer(target.source, tmp_path / "mutant", [f"-I{targets.HERE}", *defines],
                                   list(target.libs))
    figs = run.fuzz(exe, target, 30, seed=1, work=tmp_path, keep=False)
    assert not figs.ok
    assert "DIVERGENCE" in figs.log.read_text() or "AddressSanitizer" in figs.log.read_text()


def test_armv8a_replays_the_gcm_corpus(tmp_path):
    """The ARMv8-A drops on every input of the GCM corpus under qemu-aarch64, checked against the
    portable drops (which the host fuzzes against OpenSSL)."""
    exe = targets.build_armv8a_replay(tmp_path)
    corpus = targets.TARGETS["gcm_portable"].corpus
    proc = hostbuild.run(exe, [str(corpus)], qemu=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["replayed", str(len(list(corpus.iterdir())))]


#: (emulated drop, the portable drop of its key size): FACE r2 and r1 on the M4, sfs on the M3
EMULATED = [("aes128gcm-m4-ffs-face-r2", "aes128gcm-portable"), ("aes192gcm-m4-ffs-face-r1", "aes192gcm-portable"),
            ("aes256gcm-m3-sfs", "aes256gcm-portable")]


@pytest.mark.parametrize("drop,oracle", EMULATED, ids=[d for d, _ in EMULATED])
def test_cortex_m_replays_the_gcm_corpus(tmp_path, drop, oracle):
    """Every GCM corpus input of the drop's key size that the batch driver can express, in
    Unicorn on the drop's core, against the portable drop on the host (tests/fuzz/emu_replay.py)."""
    mine, ref = hostbuild.render(drop, tmp_path), hostbuild.render(oracle, tmp_path)
    host = HostRunner(toolchain.build_host_library(ref.path, ref.prefix, tmp_path))
    inputs = emu_replay.corpus_inputs(targets.TARGETS["gcm_portable"].corpus, ref.config.spec.key_bytes)
    assert len(inputs) >= 30
    cases = emu_replay.cases(inputs, host)
    emu = EmuRunner(toolchain.build_firmware(mine.path, mine.prefix, mine.config.target, tmp_path))
    assert emu_replay.mismatches(cases, host.run(cases), emu.run(cases)) == []


@pytest.mark.parametrize("drop", ["aes128gcm-m4-ffs-face-r2", "aes128gcm-m3-ffs-face-r2"])
def test_cortex_m_replays_the_face_corpus(tmp_path, drop):
    """The FACE corpus's call sequences (cached calls, streams stopped by a rebuild or a wipe,
    re-keyed ctx) on an emulated FACE r2 drop, one cache across the steps, as face_portable.c makes
    them (tests/fuzz/emu_face_replay.py); ciphertexts and tags from the portable drop on the host."""
    mine, ref = hostbuild.render(drop, tmp_path), hostbuild.render("aes128gcm-portable", tmp_path)
    host = HostRunner(toolchain.build_host_library(ref.path, ref.prefix, tmp_path))
    replay = emu_face_replay.FaceReplay(CachedDrop(mine.path, mine.prefix, mine.config.target, tmp_path / "fw"), host)
    inputs = sorted(targets.TARGETS["face_portable"].corpus.iterdir())
    assert len(inputs) >= 100
    errors = [f"{p.name}: {e}" for p in inputs for e in replay.run(p.read_bytes())]
    assert errors == []


#: the CI slice's live workers: AES-128 only (M4 speed drop with the lean path, M3 FACE r2; the
#: long form, `make fuzz-live`, has every key size), FACE r2 on the M4 only
LIVE_GCM = {16: live.GCM_EMULATED[16]}
LIVE_FACE = live.FACE_EMULATED[:1]


@pytest.mark.parametrize("name,drops", [("gcm_portable", LIVE_GCM), ("face_portable", LIVE_FACE)], ids=["gcm", "face"])
def test_live_mode_is_clean(tmp_path, built, name, drops):
    """A few seeded seconds of the live mode from a few corpus inputs: every input the fuzzer makes
    runs on the emulated drops too, and they agree with the oracle. The program is the plain
    target's (the live mode is switched on by the runner)."""
    worker = live.WORKERS[name](tmp_path, drops=drops)
    figs = live.run_live(built(name)[0], targets.TARGETS[name], worker, 5, seed=1, work=tmp_path, seeds=5)
    assert figs.ok, figs.failure or figs.log.read_text()[-3000:]
    assert figs.emulated >= (20 if name == "gcm_portable" else 5)


def test_live_mode_finds_a_bug_in_an_emulated_drop(tmp_path, built):
    """The portable drop is right, the Cortex-M4 drop accepts a 17-byte tag: only the live worker
    can see it, and the run must fail with its message."""
    def plant(preset, text):
        assert "(taglen >= 12 && taglen <= 16)" in text
        return text.replace("(taglen >= 12 && taglen <= 16)", "(taglen >= 12 && taglen <= 17)")
    worker = live.GcmWorker(tmp_path, mutate=plant, drops={16: live.GCM_EMULATED[16][:1]})
    figs = live.run_live(built("gcm_portable")[0], targets.TARGETS["gcm_portable"], worker, 30, seed=1, work=tmp_path,
                         seeds=5)
    assert not figs.ok
    assert "aes128gcm-m4-ffs (cortex-m4)" in figs.failure and "rc -2" not in figs.failure.split("(oracle")[0]
    assert "DIVERGENCE (emulated drop, live)" in figs.log.read_text()
