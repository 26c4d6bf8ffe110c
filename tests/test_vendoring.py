"""The shipped drops built as firmware trees build them (emu/vendoring/flagsets.py, emu/vendoring/matrix.py):
outside the build's own flags, two translation units (one defines the IMPLEMENTATION macro),
linked with -nostdlib and libgcc only, so a call into libc fails the link.

* every flag set of ``flagsets.cross_sets`` (gcc -O0/-Os/-Oz/-O2/-O3/LTO and clang -O0..-O3 for
  thumbv7em/thumbv7m, or aarch64-linux-gnu-gcc and clang --target=aarch64-linux-gnu for the
  ARMv8-A drops, each with and without -ffreestanding; C11; the implementation as C++11), for
  every drop, portable ones included (on a Cortex-M4);
* a C++ caller linked against the implementation compiled as C; the implementation as C++ with
  exceptions imports nothing but the unwinder's personality routines;
* the Cortex-M and ARMv8-A drops refuse -mbig-endian with their #error;
* the NIST, spec and differential cases in the emulator with the drop and the driver compiled
  by ``flagsets.NIST_SETS`` (gcc -Os without -ffreestanding, clang -O2);
* portable drops on the host: gcc and clang, C99 and C++11, and a round trip with known answers
  under AddressSanitizer + UndefinedBehaviorSanitizer;
* each manifest names the exact compiler and flags its figures are for.

`make test` runs REPRESENTATIVE, the whole cross matrix on FULL_MATRIX and ``flagsets.key_sets``
on the others; `make vendor-check` (pytest --vendor-all) everything on every default drop.
"""
import json

import pytest

from emu.vendoring import flagsets

from emu.machines import toolchain

from emu.vendoring import matrix as vendoring
from gen import ciphers, presets
from tests.conftest import ROOT

#: one of each kind: M4 ctmul, M3 (sfs, AES-256), FACE r2 and r1, table GHASH (-nct), portable,
#: the size objective (per-round subroutines, C counter loop, looped key schedule; issue 19), and
#: ARMv8-A (key sets only: its NIST run in Unicorn takes a few seconds) and its single-pass decrypt;
#: on RV32 each generated assembly block function: AES, SPEEDY, Rijndael-256 (issue 36); the
#: multi-key drops (issue 32)
REPRESENTATIVE = ["aes128gcm-m4-ffs", "aes256gcm-m3-sfs", "aes128gcm-m4-ffs-face-r2",
                  "aes192gcm-m4-ffs-face-r1", "aes128gcm-m4-ffs-table4-nct", "aes128gcm-portable",
                  "rijndael256ecb-portable", "speedy5ctr-portable", "aes128gcm-m4-size", "aes128gcm-armv8a",
                  "aes128gcm-armv8a-1pass", "aes128gcm-rv32", "speedy5ctr-rv32", "rijndael256ecb-rv32",
                  "aesgcm-m4-ffs", "aesgcm-portable"]
FULL_MATRIX = ["aes128gcm-m4-ffs", "aes128gcm-portable", "aes128gcm-rv32"]


def _ids(sets):
    return [s.label.replace(" ", "_") for s in sets]


#: targets whose drops the matrix does not cover: none since the AArch64 flag sets (issue 17).
#: test_every_default_drop_is_covered keeps this list honest.
NOT_COVERED: tuple[str, ...] = ()


def pytest_generate_tests(metafunc):
    every = metafunc.config.getoption("--vendor-all")
    names = [n for n in (presets.DEFAULTS if every else REPRESENTATIVE)
             if presets.preset(n).target not in NOT_COVERED]
    if "cross" in metafunc.fixturenames:        # (drop, flag set) pairs
        pairs = [(n, s) for n in names
                 for s in (flagsets.cross_sets() if every or n in FULL_MATRIX else flagsets.key_sets())]
        metafunc.parametrize("drop,cross", pairs, ids=[f"{n}-{i}" for (n, _), i in
                                                       zip(pairs, _ids(s for _, s in pairs))])
        return
    # Arm drops (their #error refuses -mbig-endian); RV32 has no big-endian toolchain to refuse
    cortex = [n for n in names if presets.preset(n).target not in ("portable", "rv32imac")]
    portable = [n for n in names if presets.preset(n).target == "portable"]
    for arg, values in (("drop", names), ("cortex_drop", cortex), ("portable_drop", portable)):
        if arg in metafunc.fixturenames:
            metafunc.parametrize(arg, values)
    for arg, sets in (("nist_flags", flagsets.NIST_SETS), ("cxx_eh", flagsets.CXX_EXCEPTION_SETS),
                      ("host", flagsets.host_sets()), ("sanitizer", flagsets.SANITIZER_SETS)):
        if arg in metafunc.fixturenames:
            metafunc.parametrize(arg, sets, ids=_ids(sets))


class Drop:
    def __init__(self, name):
        self.name = name
        self.manifest = json.loads((ROOT / "out" / name / "manifest.json").read_text())
        self.header = ROOT / "out" / name / f"{name}.h"
        self.prefix = self.manifest["prefix"]
        self.target = self.manifest["target"]
        #: the emulated core: the EOR3 drop needs one with SHA-3
        self.core = "armv8a-max" if self.manifest["options"].get("eor3") == "on" else toolchain.core_of(self.target)
        #: a multi-key drop (cipher "aes"): every key size it takes; the largest sizes the callers' buffers
        self.all_keybits = self.manifest["options"].get("keybits") or []
        self.spec = ciphers.get(f"aes{self.all_keybits[-1]}" if self.all_keybits else self.manifest["cipher"])
        self.keybits = 8 * self.spec.key_bytes
        self.mode = self.manifest["mode"]
        #: (spec, mode) of a block-cipher drop, None for GCM (emu/vendoring/matrix.py's ``block``)
        self.block = None if self.mode == "gcm" else (self.spec, self.mode)


def test_links_without_libc(drop, cross, tmp_path):
    d = Drop(drop)
    elf = vendoring.link(d.header, d.prefix, d.core, d.keybits // 8, cross, tmp_path, block=d.block)
    symbols = toolchain.elf_symbols(elf, tmp_path)
    # the drop's code is in (with LTO the API functions may all be inlined into sg_start)
    assert "sg_start" in symbols and sum(size for _, size in symbols.values()) > min(8192, d.manifest["metrics"]["text_bytes"] // 2)


def test_cxx_caller_links_against_the_c_implementation(drop, tmp_path):
    d = Drop(drop)
    vendoring.link(d.header, d.prefix, d.core, d.keybits // 8, flagsets.CROSS_C_IMPL, tmp_path,
                   caller=flagsets.CXX_CALLER, block=d.block)


def test_cxx_with_exceptions_imports_only_the_unwinder(drop, cxx_eh, tmp_path):
    d = Drop(drop)
    imports = vendoring.implementation_imports(d.header, d.prefix, d.core, cxx_eh, tmp_path)
    assert set(imports) <= set(flagsets.UNWINDER), imports
    if d.target == "armv8a":        # AArch64 unwinds from .eh_frame: no personality routine at all
        assert imports == [], imports


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_big_endian_is_refused(cortex_drop, compiler, tmp_path):
    d = Drop(cortex_drop)
    # -ffreestanding: AArch64 gcc has no big-endian C library headers, so its hosted <stdint.h>
    # would stop the compile before the drop's own #error
    be = flagsets.FlagSet(compiler, (*flagsets.C99, "-O2", "-mbig-endian", *flagsets.FREESTANDING))
    with pytest.raises(toolchain.BuildError, match="little-endian only"):
        vendoring.implementation_imports(d.header, d.prefix, d.core, be, tmp_path)


def test_nist_cases_pass_under_users_flags(drop, nist_flags, tmp_path):
    d = Drop(drop)
    if d.block:                 # a block cipher: its known answers and random cases instead of NIST's
        report = vendoring.validate_block_under(d.header, d.prefix, d.target, d.spec, d.mode, nist_flags,
                                                tmp_path)
        assert report.kat_passed == len(d.spec.known_answers()) and report.differential_cases == 300
        return
    for bits in d.all_keybits or [d.keybits]:        # a multi-key drop: each key size
        report = vendoring.validate_under(d.header, d.prefix, d.target, bits, nist_flags, tmp_path / str(bits),
                                          core=d.core)
        assert report.nist_failed == 0 and report.nist_passed == 15750
        assert report.spec_cases > 0 and report.differential_cases > 0


def test_portable_on_the_host(portable_drop, host, tmp_path):
    d = Drop(portable_drop)
    vendoring.link(d.header, d.prefix, None, d.keybits // 8, host, tmp_path, block=d.block)


def test_portable_round_trip_under_sanitizers(portable_drop, sanitizer, tmp_path):
    d = Drop(portable_drop)
    assert vendoring.sanitized_roundtrip(d.header, d.prefix, d.keybits // 8, sanitizer, tmp_path,
                                        block=d.block) == "ok\n"


def test_manifest_names_the_exact_compiler_and_flags(drop):
    d = Drop(drop)
    compiler = d.manifest["metrics"]["compiler"]
    need = toolchain.header_cflags(d.header)                  # spill = fpu drops: the FPU's flags
    assert compiler == toolchain.compiler_description(d.core, need)
    assert compiler.endswith(" ".join([*toolchain.build_cflags(d.core), *need])) and "-ffreestanding" in compiler


def test_a_loop_that_becomes_memset_fails_the_link(tmp_path):
    """The check can fail: put a zeroing loop back into a drop's ghash_init (as before issue 13)
    and gcc -Os without -ffreestanding turns it into a memset call the link cannot resolve."""
    d = Drop("aes128gcm-m4-ffs")
    text = d.header.read_text()
    straight = "    zero[0] = 0u; zero[1] = 0u; zero[2] = 0u; zero[3] = 0u;"
    assert text.count(straight) == 1
    header = tmp_path / d.header.name
    header.write_text(text.replace(straight, "    for (i = 0; i < 16; i++) ((uint8_t *)zero)[i] = 0;"))
    os_ = flagsets.FlagSet("gcc", (*flagsets.C99, "-Os"))
    with pytest.raises(toolchain.BuildError, match="undefined reference to `memset'"):
        vendoring.link(header, d.prefix, d.core, 16, os_, tmp_path / "w")


def test_every_default_drop_is_covered():
    """The vendoring matrix leaves no default drop out (NOT_COVERED is empty), and each drop's
    core has a gcc and a clang flag set, the ARMv8-A ones (EOR3 too) among them."""
    left_out = {n for n in presets.DEFAULTS if presets.preset(n).target in NOT_COVERED}
    assert left_out == set() and NOT_COVERED == ()
    cores = {"armv8a-max" if c.target == "armv8a" and c.eor3 == "on" else toolchain.core_of(c.target)
             for c in map(presets.preset, presets.DEFAULTS)}
    assert {"cortex-a72", "armv8a-max"} <= cores
    for core in cores:
        for compiler in ("gcc", "clang"):
            assert flagsets.FlagSet(compiler, flagsets.C99).command(core)[1:] != list(flagsets.C99)
