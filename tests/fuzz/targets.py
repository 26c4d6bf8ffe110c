"""The libFuzzer targets of tests/fuzz/ and how to build them: each is one C file around one or
more portable drops (rendered from the generator, not out/'s copies), compiled by clang with
-fsanitize=fuzzer,address,undefined. Their corpora live in tests/fuzz/corpus/<name>/.
gcm_portable and face_portable also serve the bounded live mode (tests/fuzz/live.py). The ARMv8-A drops replay the GCM corpus as a static AArch64 program (qemu-aarch64), the portable
drops being their oracle there."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests import hostbuild

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


@dataclass(frozen=True)
class Target:
    name: str
    drops: tuple[tuple[str, str], ...]     # (define naming the header's path, preset)
    libs: tuple[str, ...] = ()

    @property
    def source(self) -> Path:
        return HERE / f"{self.name}.c"

    @property
    def corpus(self) -> Path:
        return CORPUS / self.name


TARGETS = {
    t.name: t for t in (
        Target("gcm_portable", (("SG_H128", "aes128gcm-portable"), ("SG_H192", "aes192gcm-portable"),
                                ("SG_H256", "aes256gcm-portable")), ("-lcrypto",)),
        Target("face_portable", (("SG_HFACE", "aes128gcm-portable-face-r2"),), ("-lcrypto",)),
        Target("rijndael256_portable", (("SG_HR256", "rijndael256ctr-portable"),)),
        Target("speedy_portable", (("SG_HS5", "speedy5ctr-portable"), ("SG_HS6", "speedy6ctr-portable"),
                                   ("SG_HS7", "speedy7ctr-portable")), ("-lm",)),
    )
}


def build(target: Target, workdir: Path) -> Path:
    """The fuzzer executable in workdir (its drops' headers beside it)."""
    defines = [f'-D{d}="{hostbuild.render(preset, workdir).path}"' for d, preset in target.drops]
    return hostbuild.compile_fuzzer(target.source, workdir / target.name,
                                    [f"-I{HERE}", *defines], list(target.libs))


#: the ARMv8-A replay: (define, preset) of the drops under test, then of their oracle
ARMV8A_GCM = (("SG_H128", "aes128gcm-armv8a"), ("SG_H192", "aes192gcm-armv8a"), ("SG_H256", "aes256gcm-armv8a"),
              ("SG_P128", "aes128gcm-portable"), ("SG_P192", "aes192gcm-portable"), ("SG_P256", "aes256gcm-portable"))


def build_armv8a_replay(workdir: Path) -> Path:
    """tests/fuzz/gcm_armv8a.c with tests/fuzz/replay_main.c, for qemu-aarch64."""
    defines = [f'-D{d}="{hostbuild.render(preset, workdir).path}"' for d, preset in ARMV8A_GCM]
    return hostbuild.compile_aarch64_program([HERE / "gcm_armv8a.c", HERE / "replay_main.c"],
                                             workdir / "gcm_armv8a", [f"-I{HERE}", *defines])
