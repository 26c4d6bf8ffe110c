"""One validated build configuration, its canonical form and its hash.

A configuration comes from a preset (gen/presets.py) or a TOML file shaped as in SPEC §3.
Everything is checked here, once: unknown keys, unknown values and unsupported combinations
raise ConfigError with one line that names the problem and the allowed values.
"""
from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, asdict
from pathlib import Path

from gen import ciphers
from gen.errors import ConfigError

CIPHERS = ("aes128", "aes192", "aes256", "rijndael256", "speedy5", "speedy6", "speedy7", "aes")
#: a multi-key drop (issue 32): cipher = "aes" names the family, keybits the key sizes its init takes
AES_KEYBITS = (128, 192, 256)
MODES = ("gcm", "ctr", "ecb")
TARGETS = ("cortex-m4", "cortex-m3", "armv8a", "portable", "rv32imac")
SLICINGS = ("ffs", "sfs")
FACES = ("off", "r1", "r2")
GHASHES = ("ctmul", "table4", "table8", "pmull")
SHIFTROWS = ("explicit", "fixsliced")   # Rijndael-256: gen/kernels/rijndael256/encrypt.py
ARMV8_UNROLLS = (4, 8)                     # [armv8]: blocks per loop step of CTR and GHASH
ARMV8_UNROLL_CHOICES = ("auto", *ARMV8_UNROLLS)   # auto: llvm-mca's cheapest (gen/kernels/armv8/choose.py)
ARMV8_MULS = ("karatsuba", "schoolbook")   # [armv8]: PMULLs per 128-bit product, 3 or 4
ARMV8_EOR3 = ("off", "on")                 # [armv8]: EOR3 (SHA-3 extension) in the kernels
ARMV8_CORES = ("generic", "cortex-a55")     # [armv8]: the core the kernels are scheduled for (cortex-a55: in order)
#: [armv8] decrypt (issue 35): the one-shot decrypt hashes the ciphertext, checks the tag, then runs
#: counter mode ("verify-first", the default: no plaintext reaches `out` unless the tag matched),
#: or hashes and decrypts in one stitched pass and zeroes `out` on a bad tag ("single-pass":
#: faster; plaintext sits in the caller's buffer until the tag is checked)
ARMV8_DECRYPTS = ("verify-first", "single-pass")
#: [schedule] objective (issue 19), Cortex-M AES-GCM: "speed" (every kernel unrolled, the default),
#: "balanced" (a smaller GHASH group, one AES kernel, a looped key schedule) or "size" (the
#: smallest .text: one-block GHASH as well); gen/targets/cortex_m.py maps it to kernel choices
OBJECTIVES = ("speed", "balanced", "size")
#: [schedule] spill (issues 18, 34), Cortex-M4 AES-GCM with objective "speed" (FACE or not): where
#: the AES and FACE kernels keep spilled values, "stack" (any Cortex-M4) or "fpu" (s0-s15 of a Cortex-M4F's
#: FPU: a VMOV costs 1 cycle where STR/LDR cost 2; the drop then needs a build with the FPU)
SPILLS = ("stack", "fpu")

# TOML layout: top-level keys and the [table] keys, with their allowed values.
TOP_KEYS = {"name": None, "cipher": CIPHERS, "mode": MODES, "target": TARGETS}
TABLE_KEYS = {
    "aes": {"slicing": SLICINGS},
    "ctr": {"face": FACES},
    "ghash": {"impl": GHASHES},
    "rijndael256": {"shiftrows": SHIFTROWS},
    "schedule": {"seed": None, "objective": OBJECTIVES, "spill": SPILLS},
    "armv8": {"unroll": None, "mul": ARMV8_MULS, "eor3": ARMV8_EOR3, "core": ARMV8_CORES, "decrypt": ARMV8_DECRYPTS},
}
DEFAULTS = {"slicing": "ffs", "face": "off", "ghash": "ctmul", "shiftrows": "explicit", "seed": 0, "unroll": "auto",
            "mul": "karatsuba", "eor3": "off", "core": "generic", "decrypt": "verify-first", "objective": "speed",
            "spill": "stack"}
ARMV8_KEYS = ("unroll", "mul", "eor3")
#: options added after the first drops shipped: in the config hash only where they apply, so the
#: hashes of configurations they do not concern stay as they were
LATER_OPTIONS = ("shiftrows", *ARMV8_KEYS, "core", "decrypt", "objective", "spill")
NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")

# Combinations this generator builds today: (cipher, mode, target) -> allowed option values.
# Anything else is refused as bad input, naming what exists.
SUPPORTED = {
    ("aes128", "gcm", "portable"): {"slicing": ("ffs", "sfs"), "face": ("off", "r1", "r2"), "ghash": ("ctmul",)},
    ("aes192", "gcm", "portable"): {"slicing": ("ffs", "sfs"), "face": ("off", "r1", "r2"), "ghash": ("ctmul",)},
    ("aes256", "gcm", "portable"): {"slicing": ("ffs", "sfs"), "face": ("off", "r1", "r2"), "ghash": ("ctmul",)},
}
for _bits in ("aes128", "aes192", "aes256"):          # fixsliced AES in Thumb-2 (issue 3)
    for _core in ("cortex-m4", "cortex-m3"):
        SUPPORTED[(_bits, "gcm", _core)] = {"slicing": ("ffs", "sfs"), "face": ("off", "r1", "r2"),
                                            "ghash": ("ctmul", "table4", "table8"), "objective": OBJECTIVES}
    SUPPORTED[(_bits, "gcm", "cortex-m4")]["spill"] = SPILLS

for _bits in ("aes128", "aes192", "aes256"):          # AES in ecb/ctr over the same fixsliced kernel
    for _mode in ("ecb", "ctr"):
        SUPPORTED[(_bits, _mode, "portable")] = {"slicing": ("ffs", "sfs")}
for _cipher in ("rijndael256", "speedy5", "speedy6", "speedy7"):   # bitsliced block ciphers (issue 14)
    for _mode in ("ecb", "ctr"):
        for _target in ("portable", "cortex-m4", "cortex-m3"):
            SUPPORTED[(_cipher, _mode, _target)] = {"shiftrows": SHIFTROWS} if _cipher == "rijndael256" else {}
for _bits in ("aes128", "aes192", "aes256"):          # AESE/AESMC + PMULL on ARMv8-A (issue 17)
    SUPPORTED[(_bits, "gcm", "armv8a")] = {"ghash": ("pmull",), "unroll": ARMV8_UNROLL_CHOICES, "mul": ARMV8_MULS,
                                           "eor3": ARMV8_EOR3, "core": ARMV8_CORES, "decrypt": ARMV8_DECRYPTS}

for (_cipher, _mode, _target), _opts in list(SUPPORTED.items()):   # RV32IMAC: the portable C kernels (issue 36)
    if _target == "portable":
        SUPPORTED[(_cipher, _mode, "rv32imac")] = dict(_opts)

# multi-key AES-GCM (issue 32): one header, the AES kernels of each key size, one GHASH
# (gen/targets/multikey.py); the options of the single-key AES-GCM drops of the same target
for _target in ("portable", "cortex-m4", "cortex-m3", "armv8a"):
    SUPPORTED[("aes", "gcm", _target)] = dict(SUPPORTED[("aes128", "gcm", _target)])

NOT_CONSTANT_TIME_GHASH = ("table4", "table8")


@dataclass(frozen=True)
class Config:
    name: str
    cipher: str
    mode: str
    target: str
    slicing: str = DEFAULTS["slicing"]
    face: str = DEFAULTS["face"]
    ghash: str = DEFAULTS["ghash"]
    shiftrows: str = DEFAULTS["shiftrows"]
    seed: int = DEFAULTS["seed"]
    unroll: int | str = DEFAULTS["unroll"]
    mul: str = DEFAULTS["mul"]
    eor3: str = DEFAULTS["eor3"]
    core: str = DEFAULTS["core"]
    decrypt: str = DEFAULTS["decrypt"]
    objective: str = DEFAULTS["objective"]
    spill: str = DEFAULTS["spill"]
    #: multi-key drops only (cipher "aes"): the key sizes in bits, ascending; () for every other drop
    keybits: tuple[int, ...] = ()

    @property
    def multikey(self) -> bool:
        return bool(self.keybits)

    @property
    def ciphers(self) -> tuple[str, ...]:
        """The single-key ciphers the drop serves: ("aes128", "aes256") for keybits [128, 256]."""
        return tuple(f"aes{b}" for b in self.keybits) if self.keybits else (self.cipher,)

    @property
    def prefix(self) -> str:
        """C namespace of the drop: the name with '-' turned into '_'."""
        return self.name.replace("-", "_")

    @property
    def spec(self):
        """The cipher as data (gen/ciphers): block and key sizes, rounds, reference model (a
        multi-key drop: its largest key size, which sizes its ctx)."""
        return ciphers.get(self.ciphers[-1])

    @property
    def constant_time(self) -> bool:
        """What the drop claims; the constant-time checker must agree before it is written."""
        return self.ghash not in NOT_CONSTANT_TIME_GHASH

    def options(self) -> dict:
        """The options that apply to this cipher and mode (SPEC §3's flattened form)."""
        opts = {}
        if self.target == "armv8a":             # AES instructions: no slicing, no FACE
            opts.update(ghash=self.ghash, unroll=self.unroll, mul=self.mul, eor3=self.eor3)
            if self.core != DEFAULTS["core"]:     # "generic" is left out: older hashes stay
                opts["core"] = self.core
            if self.decrypt != DEFAULTS["decrypt"]:   # so is "verify-first"
                opts["decrypt"] = self.decrypt
        else:
            if self.spec.family == "aes":
                opts["slicing"] = self.slicing
            if self.spec.family == "rijndael256":
                opts["shiftrows"] = self.shiftrows
            if self.mode == "gcm":
                opts.update(face=self.face, ghash=self.ghash)
        if self.objective != DEFAULTS["objective"]:   # "speed" is left out: older hashes stay
            opts["objective"] = self.objective
        if self.spill != DEFAULTS["spill"]:           # so is "stack"
            opts["spill"] = self.spill
        opts["seed"] = self.seed
        if self.keybits:
            opts["keybits"] = list(self.keybits)
        return opts

    def canonical(self) -> str:
        """Canonical JSON form: sorted keys, no spaces; the input of the config hash. Options added
        later (LATER_OPTIONS: shiftrows, the [armv8] keys, objective) are part of it only where they
        apply (objective only when it is not the default "speed")."""
        data = asdict(self)
        opts = self.options()
        for key in LATER_OPTIONS:
            if key not in opts:
                del data[key]
        if not self.keybits:            # single-key drops: their hashes stay as they were
            del data["keybits"]
        else:
            data["keybits"] = list(self.keybits)
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def sha256(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()

    def toml(self) -> str:
        """The configuration as a TOML file that loads back to the same Config."""
        opts = self.options()
        text = (f'name = "{self.name}"\ncipher = "{self.cipher}"\nmode = "{self.mode}"\n'
                f'target = "{self.target}"\n'
                + (f'keybits = [{", ".join(map(str, self.keybits))}]\n' if self.keybits else "") + "\n")
        if "slicing" in opts:
            text += f'[aes]\nslicing = "{self.slicing}"\n\n'
        if "shiftrows" in opts:
            text += f'[rijndael256]\nshiftrows = "{self.shiftrows}"\n\n'
        if "face" in opts:
            text += f'[ctr]\nface = "{self.face}"\n\n[ghash]\nimpl = "{self.ghash}"\n\n'
        if "unroll" in opts:
            unroll = f'"{self.unroll}"' if isinstance(self.unroll, str) else self.unroll
            text += (f'[ghash]\nimpl = "{self.ghash}"\n\n[armv8]\nunroll = {unroll}\nmul = "{self.mul}"\n'
                     f'eor3 = "{self.eor3}"\n' + (f'core = "{self.core}"\n' if "core" in opts else "")
                     + (f'decrypt = "{self.decrypt}"\n' if "decrypt" in opts else "") + '\n')
        text += f"[schedule]\nseed = {self.seed}\n"
        if "objective" in opts:
            text += f'objective = "{self.objective}"\n'
        if "spill" in opts:
            text += f'spill = "{self.spill}"\n'
        return text


def _choice(where: str, value, allowed) -> None:
    if allowed is not None and value not in allowed:
        raise ConfigError(f"{where} = {value!r} is not allowed; choose one of: {', '.join(allowed)}")


def from_dict(data: dict, origin: str = "config") -> Config:
    """Validate a TOML-shaped dict (top-level keys plus [aes], [ctr], [ghash], [rijndael256],
    [schedule])."""
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: a configuration is a table of keys")
    flat: dict = {}
    for key, value in data.items():
        if key == "keybits":
            flat["keybits"] = _keybits(value, origin)
        elif key in TOP_KEYS:
            if not isinstance(value, str):
                raise ConfigError(f"{origin}: {key} must be a string")
            _choice(f"{origin}: {key}", value, TOP_KEYS[key])
            flat[key] = value
        elif key in TABLE_KEYS:
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: [{key}] must be a table with keys: {', '.join(TABLE_KEYS[key])}")
            for sub, subval in value.items():
                if sub not in TABLE_KEYS[key]:
                    raise ConfigError(
                        f"{origin}: unknown key {key}.{sub}; [{key}] takes: {', '.join(TABLE_KEYS[key])}")
                if sub == "seed":
                    if not isinstance(subval, int) or isinstance(subval, bool) or not 0 <= subval < 2**32:
                        raise ConfigError(f"{origin}: schedule.seed must be an integer in 0..2^32-1")
                elif sub == "unroll":
                    if isinstance(subval, bool) or subval not in ARMV8_UNROLL_CHOICES:
                        raise ConfigError(f"{origin}: armv8.unroll must be one of: "
                                          f"{', '.join(map(str, ARMV8_UNROLL_CHOICES))} (auto: llvm-mca's choice)")
                else:
                    if not isinstance(subval, str):
                        raise ConfigError(f"{origin}: {key}.{sub} must be a string")
                    _choice(f"{origin}: {key}.{sub}", subval, TABLE_KEYS[key][sub])
                flat["ghash" if key == "ghash" else sub] = subval
        else:
            allowed = ", ".join(list(TOP_KEYS) + ["keybits"] + [f"[{t}]" for t in TABLE_KEYS])
            raise ConfigError(f"{origin}: unknown key {key!r}; allowed: {allowed}")
    for key in TOP_KEYS:
        if key not in flat:
            raise ConfigError(f"{origin}: missing key {key!r} (required: {', '.join(TOP_KEYS)})")
    if not NAME_RE.match(flat["name"]):
        raise ConfigError(f"{origin}: name {flat['name']!r} must match {NAME_RE.pattern} "
                          "(it names the folder and the C prefix)")
    if flat["cipher"] == "aes" and "keybits" not in flat:
        raise ConfigError(f"{origin}: cipher = \"aes\" (a multi-key drop) needs keybits, a list of key sizes "
                          f"from {', '.join(map(str, AES_KEYBITS))}, e.g. keybits = [128, 256]")
    if "keybits" in flat and flat["cipher"] != "aes":
        raise ConfigError(f"{origin}: keybits is for multi-key drops: cipher = \"aes\" with keybits = [128, 256] "
                          f"(cipher {flat['cipher']!r} has one key size)")
    if flat["target"] == "armv8a" and "ghash" not in flat:
        flat["ghash"] = "pmull"                    # the only GHASH of armv8a
    config = Config(**flat)
    check_supported(config, origin)
    return config


def _keybits(value, origin: str) -> tuple[int, ...]:
    """keybits = [128, 256]: a non-empty list of distinct AES key sizes, kept in ascending order."""
    allowed = ", ".join(map(str, AES_KEYBITS))
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{origin}: keybits must be a non-empty list of key sizes from {allowed}, "
                          "e.g. keybits = [128, 256]")
    for bits in value:
        if isinstance(bits, bool) or bits not in AES_KEYBITS:
            raise ConfigError(f"{origin}: keybits holds {bits!r}; each key size is one of: {allowed}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{origin}: keybits {value} names a key size twice; give each once")
    return tuple(sorted(value))


def check_supported(config: Config, origin: str = "config") -> None:
    combo = (config.cipher, config.mode, config.target)
    options = SUPPORTED.get(combo)
    if options is None:
        have = "; ".join(f"{c}/{m}/{t}" for c, m, t in sorted(SUPPORTED))
        raise ConfigError(f"{origin}: cipher/mode/target {'/'.join(combo)} is not built by this "
                          f"generator; available: {have}")
    for key in ("slicing", "face", "ghash", *LATER_OPTIONS):
        if key not in options and getattr(config, key) != DEFAULTS[key]:
            raise ConfigError(f"{origin}: {key} is not an option of {'/'.join(combo)} "
                              f"(it takes: {', '.join(options) or 'no options but [schedule] seed'})")
    for key, allowed in options.items():
        value = getattr(config, key)
        if value not in allowed:
            raise ConfigError(f"{origin}: {key} = {value!r} is not available for {'/'.join(combo)}; "
                              f"choose one of: {', '.join(map(str, allowed))}")
    if config.core == "cortex-a55" and config.eor3 == "on":
        raise ConfigError(f"{origin}: armv8.core = \"cortex-a55\" with eor3 = \"on\": the Cortex-A55 has no SHA-3 "
                          "extension (EOR3); choose eor3 = \"off\"")
    if config.spill == "fpu" and config.objective != "speed":
        raise ConfigError(f"{origin}: spill = \"fpu\" is for the unrolled AES kernels (objective \"speed\", "
                          f"FACE or not); this configuration has objective {config.objective!r}")


def load_toml(path: str | Path) -> Config:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return from_dict(data, str(path))
