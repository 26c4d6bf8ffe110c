"""SPEC §5 length limits on the 64-bit targets (issue 33): every entry point refuses an IV or AAD
of 2^61 bytes or more, a message over 2^36 - 32 bytes (stream totals that would cross them) and
the other bad lengths with -2, before it touches a buffer. tests/limits/limits.c hands every call
buffers on a PROT_NONE page; it runs on the host under ASan + UBSan (portable drops) and as a
static AArch64 program under qemu-aarch64 (armv8a). The probe shows the guard page catches an
access, so a passing run means no buffer was read or written."""
from pathlib import Path

import pytest

from tests import hostbuild

LIMITS = Path(__file__).resolve().parent / "limits" / "limits.c"
#: (preset, mode defines): GCM in two key sizes, FACE r2 and r1 (the *_cached calls), both
#: block-cipher modes, a multi-key drop
PORTABLE = [("aes128gcm-portable", "-DSG_GCM"), ("aes256gcm-portable", "-DSG_GCM"),
            ("aes128gcm-portable-face-r2", "-DSG_GCM -DSG_FACE"), ("aes128gcm-portable-face-r1", "-DSG_GCM -DSG_FACE"),
            ("speedy5ctr-portable", "-DSG_CTR"), ("rijndael256ecb-portable", "-DSG_ECB"),
            ("aesgcm-portable", "-DSG_GCM")]     # multi-key (issue 32): KEYBYTES is its largest key


def _host(tmp_path, name, mode):
    hdr = hostbuild.render(name, tmp_path)
    return hostbuild.compile_host([LIMITS], hdr, tmp_path / "limits", mode.split())


def _ok(proc):
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert proc.stdout.startswith("ok "), proc.stdout
    return int(proc.stdout.split()[1])


@pytest.mark.parametrize("name,mode", PORTABLE, ids=[n for n, _ in PORTABLE])
def test_portable_refuses_before_touching_buffers(tmp_path, name, mode):
    checks = _ok(hostbuild.run(_host(tmp_path, name, mode)))
    assert checks >= (80 if "-DSG_GCM" in mode else 3)


@pytest.mark.parametrize("name", ["aes128gcm-armv8a", "aes128gcm-armv8a-1pass"])
def test_armv8a_refuses_before_touching_buffers(tmp_path, name):
    hdr = hostbuild.render(name, tmp_path)
    exe = hostbuild.compile_aarch64([LIMITS], hdr, tmp_path / "limits", ["-DSG_GCM"])
    assert _ok(hostbuild.run(exe, qemu=True)) >= 80
    probe = hostbuild.run(exe, ["probe"], qemu=True)
    assert probe.returncode != 0 and "probe returned" not in probe.stdout


@pytest.mark.parametrize("name,mode", [PORTABLE[0], PORTABLE[2]], ids=["gcm", "ctr"])
def test_guard_page_catches_an_access(tmp_path, name, mode):
    """The same program, one call with a valid length on the guard page: it must die under ASan."""
    proc = hostbuild.run(_host(tmp_path, name, mode), ["probe"])
    assert proc.returncode != 0 and "probe returned" not in proc.stdout
    assert "AddressSanitizer: SEGV" in proc.stderr
