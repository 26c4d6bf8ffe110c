"""The libFuzzer targets of tests/fuzz/ and how to build them: each is one C file around one or
more portable drops (rendered from the generator, not out/'s copies), compiled by clang with
-fsanitize=fuzzer,address,undefined. Their corpora live in tests/fuzz/corpus/<name>/."""
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
        Target("rijndael256_portable", (("SG_HR256", "rijndael256ctr-portable"),)),
        Target("speedy_portable", (("SG_HS5", "speedy5ctr-portable"), ("SG_HS6", "speedy6ctr-portable"),
                                   ("SG_HS7", "speedy7ctr-portable")), ("-lm",)),
    )
}


def build(target: Target, workdir: Path) -> Path:
    """The fuzzer executable in workdir (its drops' headers beside it)."""
    defines = []
    for define, preset in target.drops:
        hdr = hostbuild.render(preset, workdir)
        defines.append(f'-D{define}="{hdr.path}"')
    return hostbuild.compile_fuzzer(target.source, workdir / target.name,
                                    [f"-I{HERE}", *defines], list(target.libs))
