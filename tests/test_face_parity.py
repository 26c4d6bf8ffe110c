"""FACE r2 fills its tables only for pairs that start at an odd counter (issue 33: the
even-parity branch of the old face_splanes was never reached, and is gone). The argument: a fill
happens only with a 96-bit IV (face_on; with another IV the counter comes from GHASH, may be
even, and face_next returns to the plain path before any fill); start and start_cached then set
ctr = 1, and E(J0) with the first keystream block takes it to 3; every later change of ctr adds 2
per pair (keystream2, plain_pairs, face_next, face_pairs, the cached twins); the one step of 1
(update's "start the pairs one counter back") is compiled only for ctr_ghash kernel sets, which
only the ARMv8-A target has, and ARMv8-A has no FACE. Odd plus even stays odd modulo 2^32. The
tests check each premise on the generator's output, then drive every kind of call and split
(tests/face_parity/parity.c) with a probe before each fill that depends on the counter: no even
counter ever arrives there."""
import inspect
import re
from pathlib import Path

from gen import config as gconfig
from gen.targets import armv8a, cortex_m, portable, rv32imac
from tests import hostbuild

PARITY = Path(__file__).resolve().parent / "face_parity" / "parity.c"
#: every statement that writes a stream's counter may only set it to 1 or add 2 per pair, or (an IV
#: other than 96 bits, FACE off) take J0's low word
ALLOWED = re.compile(r"^(= 1u|\+= 2u|\+= 2u \* \(uint32_t\)\w+|= \w+_get32\(s->y \+ 12\))$")


def test_face_only_where_ctr_ghash_is_not():
    face_targets = {t for (_, mode, t), opts in gconfig.SUPPORTED.items() if mode == "gcm" and "face" in opts}
    assert face_targets == {"portable", "cortex-m4", "cortex-m3", "rv32imac"}
    assert "ctr_ghash=True" in inspect.getsource(armv8a)          # the premise's one exception ...
    for module in (portable, cortex_m, rv32imac):                          # ... is not a FACE target
        assert "ctr_ghash" not in inspect.getsource(module)


def test_every_counter_write_keeps_it_odd(tmp_path):
    """The rendered FACE r2 glue writes ctr only as `= 1u` or `+= 2u [* n]`, or from J0 where FACE is
    off (the same template text for every target; the targets differ in kernels, not in this glue)."""
    text = hostbuild.render("aes128gcm-portable-face-r2", tmp_path).path.read_text()
    writes = re.findall(r"->ctr\s*([-+]?=\s*[^;]+);", text)
    assert len(writes) >= 8
    assert [w for w in writes if not ALLOWED.match(re.sub(r"\s+", " ", w))] == []
    start = text[re.search(r"\nint \w+_start\(.*\)\n\{", text).end():]   # start's definition
    assert re.search(r"s->face_on = ivlen == 12;.*if \(ivlen == 12\) \{.*s->ctr = 1u;.*\} else \{.*_get32\(s->y \+ 12\)",
                     start[:start.index("return 0;")], re.S)
    assert "face_splanes" not in text


def test_every_call_and_split_meets_odd_counters_only(tmp_path):
    hdr = hostbuild.render("aes128gcm-portable-face-r2", tmp_path)
    text = hdr.path.read_text()
    fill = re.compile(rf"(\n *)({hdr.prefix}_face_fill\([^;]*s->ctx->face_sv)")
    text, probes = fill.subn(r"\1sg_parity(s->ctr);\1\2", text)
    assert probes == 2                     # face_next's fill and face_next_cached's
    hdr.path.write_text(text)
    proc = hostbuild.run(hostbuild.compile_host([PARITY], hdr, tmp_path / "parity"), timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    odd, even = map(int, re.fullmatch(r"odd (\d+) even (\d+)\n", proc.stdout).groups())
    assert even == 0 and odd >= 200       # a fill per table group a stream uses
