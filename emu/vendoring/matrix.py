"""A drop built as a firmware team builds it, under the flag sets of emu/vendoring/flagsets.py rather than
the build's own: the checks behind tests/test_vendoring.py and `make vendor-check`.

* ``link``: two translation units, the implementation (the IMPLEMENTATION macro defined) and a
  caller of every API function (emu/vendoring/vendor_caller.c, header only), each compiled with its flag
  set, linked by the core's gcc (arm-none-eabi-gcc, aarch64-linux-gnu-gcc) with -nostdlib
  -nostartfiles and libgcc only (libgcc is the compiler's runtime, not libc), so any libc call
  (memset, memcpy, ...) fails the link. The host form (portable drops) links a static
  executable the same way.
* ``validate_under``: the batch driver and the drop compiled with a user's flag set, run in the
  emulator on the NIST, spec and differential cases (emu/checks/validate.py), so a miscompile under
  those flags is caught, not only a link error.
* ``sanitized_roundtrip``: a portable drop in a host program (emu/vendoring/vendor_roundtrip.c) under
  AddressSanitizer and UndefinedBehaviorSanitizer, with known answers from pyca/cryptography.
"""
from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from emu.machines import toolchain
from emu.vendoring.flagsets import FlagSet
from emu.checks.runner import EmuRunner
from emu.checks.validate import Report, ValidationError, run_checks

HERE = Path(__file__).resolve().parent
CALLER = HERE / "vendor_caller.c"
ROUNDTRIP = HERE / "vendor_roundtrip.c"
#: the same for block-cipher drops (ecb, ctr)
CALLER_BLOCK = HERE / "vendor_caller_block.c"
ROUNDTRIP_BLOCK = HERE / "vendor_roundtrip_block.c"


def block_defines(spec, mode: str) -> list[str]:
    """What the block-cipher sources need to know of the drop (None: a GCM drop)."""
    return [f"-DSG_BLOCK={spec.block_bytes}"] + (["-DSG_CTR"] if mode == "ctr" else [])


def _impl_source(header: Path, prefix: str, workdir: Path) -> Path:
    src = workdir / "drop_impl.c"
    src.write_text(f'#define {prefix.upper()}_IMPLEMENTATION\n#include "{header}"\n')
    return src


def _caller_defines(header: Path, prefix: str, keybytes: int) -> list[str]:
    face = ["-DSG_FACE_CACHE"] if f"{prefix}_face_cache_init(" in Path(header).read_text() else []
    return [f"-DSG_PREFIX={prefix}", f'-DSG_HEADER="{header}"', f"-DSG_KEYBYTES={keybytes}", *face]


def link(header: Path, prefix: str, core: str | None, keybytes: int, impl: FlagSet, workdir: Path,
         caller: FlagSet | None = None, block: tuple | None = None) -> Path:
    """Compile the implementation with ``impl`` and the caller with ``caller`` (default: the
    same), for ``core`` (None: the host), and link them without libc. Returns the ELF; a
    compile error, warning or undefined symbol raises toolchain.BuildError with the log.
    ``block``: (spec, mode) of a block-cipher drop, whose caller is vendor_caller_block.c."""
    caller = caller or impl
    source, extra = (CALLER, []) if block is None else (CALLER_BLOCK, block_defines(*block))
    workdir.mkdir(parents=True, exist_ok=True)
    impl_obj, caller_obj, elf = workdir / "impl.o", workdir / "caller.o", workdir / "fw.elf"
    need = toolchain.header_cflags(header)     # spill = fpu: the FPU's flags (none for the others)
    toolchain.run([*impl.command(core), *need, "-c", str(_impl_source(header, prefix, workdir)),
                   "-o", str(impl_obj)], workdir)
    toolchain.run([*caller.command(core), *need, *_caller_defines(header, prefix, keybytes), *extra, "-c",
                   str(source), "-o", str(caller_obj)], workdir)
    if core is None:
        linker = [toolchain.tool(impl.compiler), "-static"]
    else:
        plat = toolchain.platform_of_core(core)
        linker = [toolchain.tool(plat.cc), *plat.core_flags[core], *need, "-static"]   # -flto compiles here too
    toolchain.run([*linker, *impl.link_flags(), "-nostdlib", "-nostartfiles", "-e", "sg_start",
                   str(impl_obj), str(caller_obj), *([] if core is None else ["-lgcc"]),
                   "-o", str(elf)], workdir)
    return elf


def implementation_imports(header: Path, prefix: str, core: str | None, flags: FlagSet,
                           workdir: Path) -> list[str]:
    """The undefined symbols of the implementation unit alone, compiled with ``flags``."""
    workdir.mkdir(parents=True, exist_ok=True)
    obj = workdir / "impl.o"
    need = toolchain.header_cflags(header)
    toolchain.run([*flags.command(core), *need, "-c", str(_impl_source(header, prefix, workdir)), "-o", str(obj)],
                  workdir)
    nm = toolchain.tool(toolchain.platform_of_core(core).tool("nm") if core else "nm")
    out = toolchain.run([nm, "-u", str(obj)], workdir)
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def validate_under(header: Path, prefix: str, target: str, keybits: int, flags: FlagSet,
                   workdir: Path, core: str = "") -> Report:
    """The drop's checks (NIST, spec, differential) in the emulator, with the driver and the
    drop compiled by ``flags``; raises ValidationError on a wrong answer. ``core``: the
    emulated core when not the target's usual one (armv8a with EOR3)."""
    workdir.mkdir(parents=True, exist_ok=True)
    core = core or toolchain.core_of(target)
    plat = toolchain.platform_of_core(core)
    if plat.name != "aarch64":
        fw = toolchain.build_firmware(header, prefix, target, workdir, compiler=flags.command(core))
    else:
        fw = toolchain.build_platform_firmware(plat, header, prefix, core, workdir, compiler=flags.command(core))
    report = Report()
    seed = int(hashlib.sha256(f"{prefix} {flags.label}".encode()).hexdigest()[:8], 16)
    run_checks(EmuRunner(fw), f"emulated {core}, {flags.label}", keybits, seed, report)
    if report.failures:
        raise ValidationError(f"{len(report.failures)} failing cases under {flags.label}: "
                              + "; ".join(report.failures[:5]))
    return report


def validate_block_under(header: Path, prefix: str, target: str, spec, mode: str, flags: FlagSet,
                         workdir: Path) -> Report:
    """A block-cipher drop's checks (known answers, random cases against the reference model,
    bad arguments) in the emulator, with its batch driver and the drop compiled by ``flags``."""
    from emu.checks import blockcipher
    workdir.mkdir(parents=True, exist_ok=True)
    core = toolchain.core_of(target)
    fw = toolchain.build_firmware(header, prefix, target, workdir, compiler=flags.command(core),
                                  driver=blockcipher.DRIVER, defines=blockcipher.defines(spec, mode))
    seed = int(hashlib.sha256(f"{prefix} {flags.label}".encode()).hexdigest()[:8], 16)
    report = Report()
    blockcipher.run_groups(EmuRunner(fw, codec=blockcipher.Codec), blockcipher.cases(spec, mode, seed, count=300),
                           report, f"emulated {core}, {flags.label}")
    if report.failures:
        raise ValidationError(f"{len(report.failures)} failing cases under {flags.label}: "
                              + "; ".join(report.failures[:5]))
    return report


def kat_block_header(spec, mode: str) -> str:
    """Known answers for vendor_roundtrip_block.c: the cipher's first published known answer,
    and from its reference model ECB of three blocks and (ctr) the keystream of a 100-byte
    message whose counter wraps at 2^32."""
    from emu.checks import blockcipher
    b = spec.block_bytes
    kk, kp, kc = spec.known_answers()[0]
    key = bytes((7 * i + 1) & 0xFF for i in range(spec.key_bytes))
    msg = bytes((i * 29 + 5) & 0xFF for i in range(max(100, 3 * b)))
    iv = bytes(range(0xA0, 0xA0 + b - 4)) + b"\xff\xff\xff\xfe"
    arrays = {"kat_kat_key": kk, "kat_kat_pt": kp, "kat_kat_ct": kc, "kat_key": key, "kat_msg": msg,
              "kat_ecb": blockcipher.ecb_reference(spec, key, msg[:3 * b])}
    if mode == "ctr":
        arrays.update(kat_iv=iv, kat_ctr=blockcipher.ctr_reference(spec, key, iv, msg))
    return f"#include <stdint.h>\n#define SG_BLOCK {b}\n" + "".join(_c_array(k, v) for k, v in arrays.items())


def _c_array(name: str, data: bytes) -> str:
    body = ", ".join(f"0x{b:02x}" for b in data) or "0"
    return f"static const uint8_t {name}[{max(len(data), 1)}] = {{{body}}};\n"


def kat_header(keybytes: int) -> str:
    """Known answers for vendor_roundtrip.c, from pyca/cryptography: a 100-byte message with 20
    bytes of AAD under a 12-byte and a 60-byte IV, and E(K, 0^128)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    key = bytes((7 * i + 1) & 0xFF for i in range(keybytes))
    iv, iv2 = bytes(range(0xA0, 0xAC)), bytes((3 * i) & 0xFF for i in range(60))
    aad, pt = bytes(range(20)), bytes((i * 29 + 5) & 0xFF for i in range(100))
    sealed, sealed2 = AESGCM(key).encrypt(iv, pt, aad), AESGCM(key).encrypt(iv2, pt, aad)
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    e0 = enc.update(bytes(16)) + enc.finalize()
    arrays = {"kat_key": key, "kat_iv": iv, "kat_iv2": iv2, "kat_aad": aad, "kat_pt": pt,
              "kat_ct": sealed[:-16], "kat_tag": sealed[-16:], "kat_ct2": sealed2[:-16],
              "kat_tag2": sealed2[-16:], "kat_zero": bytes(16), "kat_e0": e0}
    return "#include <stdint.h>\n" + "".join(_c_array(k, v) for k, v in arrays.items())


def sanitized_roundtrip(header: Path, prefix: str, keybytes: int, flags: FlagSet, workdir: Path,
                        block: tuple | None = None) -> str:
    """Build vendor_roundtrip.c (vendor_roundtrip_block.c for ``block`` = (spec, mode)) and the
    drop (two units) on the host with ``flags`` (sanitizers on) and run it; returns its stdout,
    raises toolchain.BuildError on a failure."""
    workdir.mkdir(parents=True, exist_ok=True)
    kat = workdir / "kat.h"
    kat.write_text(kat_header(keybytes) if block is None else kat_block_header(*block))
    source, extra = (ROUNDTRIP, []) if block is None else (ROUNDTRIP_BLOCK, block_defines(*block)[1:])
    exe = workdir / "roundtrip"
    impl_obj, main_obj = workdir / "impl.o", workdir / "main.o"
    cc = flags.command(None)
    toolchain.run([*cc, "-c", str(_impl_source(header, prefix, workdir)), "-o", str(impl_obj)], workdir)
    toolchain.run([*cc, f"-DSG_PREFIX={prefix}", f'-DSG_HEADER="{header}"', f'-DSG_KAT="{kat}"', *extra,
                   "-c", str(source), "-o", str(main_obj)], workdir)
    sanitize = [f for f in flags.flags if f.startswith("-fsanitize")]
    toolchain.run([toolchain.tool(flags.compiler), *sanitize, str(impl_obj), str(main_obj), "-o", str(exe)],
                  workdir)
    proc = subprocess.run([str(exe)], cwd=workdir, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise toolchain.BuildError(f"{exe.name} ({flags.label}) exited {proc.returncode}:\n"
                                   f"{proc.stdout}{proc.stderr}")
    return proc.stdout
