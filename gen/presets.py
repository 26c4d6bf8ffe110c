"""Named configurations. `default=True` presets are what `make` builds into out/."""
from __future__ import annotations

from gen.config import Config, from_dict
from gen.errors import ConfigError


def _aes(name, bits, target, slicing="ffs", face="off", ghash="ctmul", default=True, objective=None, spill=None):
    """bits: one key size, or a list of them for a multi-key drop (cipher "aes", issue 32)."""
    schedule = {**({"objective": objective} if objective else {}), **({"spill": spill} if spill else {})}
    cipher = {"cipher": "aes", "keybits": list(bits)} if isinstance(bits, list) else {"cipher": f"aes{bits}"}
    return name, default, {
        "name": name, **cipher, "mode": "gcm", "target": target,
        "aes": {"slicing": slicing}, "ctr": {"face": face}, "ghash": {"impl": ghash},
        **({"schedule": schedule} if schedule else {}),
    }


_PRESETS = [
    _aes("aes128gcm-portable", 128, "portable"),
    _aes("aes192gcm-portable", 192, "portable"),
    _aes("aes256gcm-portable", 256, "portable"),
    _aes("aes128gcm-portable-sfs", 128, "portable", slicing="sfs", default=False),
    _aes("aes128gcm-portable-face-r1", 128, "portable", face="r1", default=False),
    _aes("aes128gcm-portable-face-r2", 128, "portable", face="r2", default=False),
    _aes("aes128gcm-m4-ffs", 128, "cortex-m4"),
    _aes("aes192gcm-m4-ffs", 192, "cortex-m4"),
    _aes("aes256gcm-m4-ffs", 256, "cortex-m4"),
    _aes("aes128gcm-m4f-ffs", 128, "cortex-m4", spill="fpu"),     # Cortex-M4F: spills in FPU registers
    _aes("aes256gcm-m4f-ffs", 256, "cortex-m4", spill="fpu"),
    _aes("aes128gcm-m4-sfs", 128, "cortex-m4", slicing="sfs"),
    _aes("aes192gcm-m4-sfs", 192, "cortex-m4", slicing="sfs"),
    _aes("aes256gcm-m4-sfs", 256, "cortex-m4", slicing="sfs"),
    _aes("aes128gcm-m3-ffs", 128, "cortex-m3"),
    _aes("aes192gcm-m3-ffs", 192, "cortex-m3"),
    _aes("aes256gcm-m3-ffs", 256, "cortex-m3"),
    _aes("aes128gcm-m3-sfs", 128, "cortex-m3", slicing="sfs"),
    _aes("aes192gcm-m3-sfs", 192, "cortex-m3", slicing="sfs"),
    _aes("aes256gcm-m3-sfs", 256, "cortex-m3", slicing="sfs"),
    # table GHASH: faster, NOT constant-time (the name says so: -nct)
    _aes("aes128gcm-m4-ffs-table4-nct", 128, "cortex-m4", ghash="table4"),
    _aes("aes192gcm-m4-ffs-table4-nct", 192, "cortex-m4", ghash="table4"),
    _aes("aes256gcm-m4-ffs-table4-nct", 256, "cortex-m4", ghash="table4"),
    _aes("aes128gcm-m4-ffs-table8-nct", 128, "cortex-m4", ghash="table8"),
    _aes("aes128gcm-m3-ffs-table4-nct", 128, "cortex-m3", ghash="table4", default=False),
    # FACE: counter-mode caching (96-bit IVs), r1 or r2 rounds cached per counter run
    _aes("aes128gcm-m4-ffs-face-r1", 128, "cortex-m4", face="r1"),
    _aes("aes128gcm-m4-ffs-face-r2", 128, "cortex-m4", face="r2"),
    _aes("aes192gcm-m4-ffs-face-r1", 192, "cortex-m4", face="r1"),
    _aes("aes192gcm-m4-ffs-face-r2", 192, "cortex-m4", face="r2"),
    _aes("aes256gcm-m4-ffs-face-r1", 256, "cortex-m4", face="r1"),
    _aes("aes256gcm-m4-ffs-face-r2", 256, "cortex-m4", face="r2"),
    _aes("aes128gcm-m3-ffs-face-r2", 128, "cortex-m3", face="r2"),
    # FACE r2 on the Cortex-M4F: its kernels and the plain ones spill to s0-s15 (issue 34)
    _aes("aes128gcm-m4f-ffs-face-r2", 128, "cortex-m4", face="r2", spill="fpu"),
    _aes("aes256gcm-m4f-ffs-face-r2", 256, "cortex-m4", face="r2", spill="fpu"),
    # code size first (issue 19): [schedule] objective = "size" / "balanced"
    _aes("aes128gcm-m4-size", 128, "cortex-m4", objective="size"),
    _aes("aes256gcm-m4-size", 256, "cortex-m4", objective="size"),
    _aes("aes128gcm-m3-size", 128, "cortex-m3", objective="size"),
    _aes("aes256gcm-m3-size", 256, "cortex-m3", objective="size"),
    _aes("aes128gcm-m4-balanced", 128, "cortex-m4", objective="balanced"),
    _aes("aes256gcm-m4-balanced", 256, "cortex-m4", objective="balanced"),
    _aes("aes128gcm-m3-balanced", 128, "cortex-m3", objective="balanced"),
    _aes("aes256gcm-m3-balanced", 256, "cortex-m3", objective="balanced"),
]

ALL_KEYS = [128, 192, 256]
_PRESETS += [  # multi-key drops (issue 32): every AES key size in one header, one GHASH; init takes the key length
    _aes("aesgcm-portable", ALL_KEYS, "portable"),
    _aes("aesgcm-m4-ffs", ALL_KEYS, "cortex-m4"),
    _aes("aesgcm-m4-ffs-face-r2", ALL_KEYS, "cortex-m4", face="r2"),
    _aes("aesgcm-m4f-ffs", ALL_KEYS, "cortex-m4", spill="fpu"),
    _aes("aesgcm-m3-ffs", ALL_KEYS, "cortex-m3"),
]


def _block(cipher, mode, target="portable", default=True, tag=None, **tables):
    name = f"{cipher}{mode}-{tag or target}"
    return name, default, {"name": name, "cipher": cipher, "mode": mode, "target": target, **tables}


_PRESETS += [
    # bitsliced block ciphers (issue 14): encryption in ecb and ctr
    _block("rijndael256", "ecb"), _block("rijndael256", "ctr"),
    _block("speedy5", "ecb"), _block("speedy5", "ctr"),
    _block("speedy6", "ecb"), _block("speedy6", "ctr"),
    _block("speedy7", "ecb"), _block("speedy7", "ctr"),
    # Rijndael-256 in generated Thumb-2 (issue 15): explicit ShiftRows, the faster strategy
    _block("rijndael256", "ecb", "cortex-m4", tag="m4"), _block("rijndael256", "ctr", "cortex-m4", tag="m4"),
    _block("rijndael256", "ecb", "cortex-m3", tag="m3"), _block("rijndael256", "ctr", "cortex-m3", tag="m3"),
    # the fixsliced strategy (eight MixColumns variants), for comparison
    _block("rijndael256", "ecb", "cortex-m4", default=False, tag="m4-fixsliced",
           rijndael256={"shiftrows": "fixsliced"}),
]

def _armv8(name, bits, eor3="off", default=True, core=None, decrypt=None):
    cipher = {"cipher": "aes", "keybits": list(bits)} if isinstance(bits, list) else {"cipher": f"aes{bits}"}
    return name, default, {"name": name, **cipher, "mode": "gcm", "target": "armv8a",
                           "ghash": {"impl": "pmull"}, "armv8": {"eor3": eor3, **({"core": core} if core else {}),
                                                                 **({"decrypt": decrypt} if decrypt else {})}}


_PRESETS += [
    # AESE/AESMC + PMULL on ARMv8-A (issue 17); -eor3: the SHA-3 extension's EOR3 as well
    _armv8("aes128gcm-armv8a", 128), _armv8("aes192gcm-armv8a", 192), _armv8("aes256gcm-armv8a", 256),
    _armv8("aes128gcm-armv8a-eor3", 128, eor3="on"),
    # -a55: the loops llvm-mca costs cheaper on the in-order Cortex-A55 list-scheduled for it (issue 35)
    _armv8("aes128gcm-armv8a-a55", 128, core="cortex-a55"),
    # -1pass: decrypt and GHASH in one stitched pass, the output zeroed on a bad tag (issue 35)
    _armv8("aes128gcm-armv8a-1pass", 128, decrypt="single-pass"),
    _armv8("aesgcm-armv8a", ALL_KEYS),                     # multi-key (issue 32)
]

_PRESETS += [  # SPEEDY-r-192 in generated Thumb-2 (issue 16): speedy5ecb-m3 ... speedy7ctr-m4
    (f"{c}{m}-{t[-2:]}", True, {"name": f"{c}{m}-{t[-2:]}", "cipher": c, "mode": m, "target": t})
    for c in ("speedy5", "speedy6", "speedy7") for m in ("ecb", "ctr") for t in ("cortex-m3", "cortex-m4")]

_PRESETS += [  # RV32IMAC (issue 36): the generated C kernels on the SiFive E31 model
    *(_aes(f"aes{b}gcm-rv32", b, "rv32imac") for b in (128, 192, 256)),
    *(_block(c, m, "rv32imac", tag="rv32") for c in ("speedy5", "speedy6", "speedy7", "rijndael256")
      for m in ("ecb", "ctr"))]

PRESETS: dict[str, dict] = {name: data for name, _, data in _PRESETS}
DEFAULTS: list[str] = [name for name, default, _ in _PRESETS if default]


def preset(name: str) -> Config:
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)} "
                          "(or give a FILE.toml)")
    return from_dict(PRESETS[name], f"preset {name}")


def all_presets() -> list[Config]:
    return [preset(name) for name in PRESETS]
