"""Config -> header text. Pure and deterministic: same config and command, same bytes."""
from __future__ import annotations

from gen import modes
from gen.config import Config
from gen.templating import render
from gen.version import GENERATOR_VERSION
from gen.targets import armv8a, cortex_m, multikey, portable, rv32imac
from gen.targets.common import KernelSet

TARGETS = {"portable": portable.kernels, "cortex-m4": cortex_m.kernels, "cortex-m3": cortex_m.kernels,
           "armv8a": armv8a.kernels, "rv32imac": rv32imac.kernels}


def kernel_set(config: Config) -> KernelSet:
    if config.multikey:                  # several AES key sizes, one GHASH (gen/targets/multikey.py)
        return multikey.kernels(config, TARGETS[config.target])
    return TARGETS[config.target](config)


def header(config: Config, command: str) -> tuple[str, KernelSet]:
    """The drop's text: the frame (templates/drop.h.j2) around the mode's API and glue
    (gen/modes) over the target's kernels (gen/targets)."""
    ks = kernel_set(config)
    mode = modes.get(config.mode)
    p = config.prefix
    option_lines = [("cipher", config.cipher), ("mode", config.mode), ("target", config.target)]
    option_lines += [(k, str(v)) for k, v in config.options().items()]
    text = render(
        "drop.h.j2",
        name=config.name, version=GENERATOR_VERSION, command=command,
        config_sha256=config.sha256(), option_lines=option_lines,
        constant_time=config.constant_time,
        not_ct_reason=f"GHASH {config.ghash} indexes tables by secret data",
        P=p.upper(), p=p, target_guard=ks.target_guard, api=mode.api(config, ks),
        kernel_sections=ks.sections, glue=mode.glue(config, ks),
        file_scope_asm=ks.file_scope_asm,
    )
    return text, ks
