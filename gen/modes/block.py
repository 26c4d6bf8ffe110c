"""ECB and CTR over any block cipher kernel: the block-cipher API of SPEC §5 (init, wipe,
ecb_encrypt; in ctr mode a one-shot ``ctr`` and a streaming ``ctr_start``/``ctr_update``/
``ctr_wipe``), parameterised by the block size and by how many blocks one kernel call takes.
CTR's counter is the block's last 4 bytes, big-endian, incremented mod 2^32 (SP 800-38A's
standard incrementing function). Encryption only."""
from __future__ import annotations

from gen.config import Config
from gen.templating import render
from gen.targets.common import KernelSet


def _args(config: Config, ks: KernelSet) -> dict:
    p = config.prefix
    return dict(p=p, P=p.upper(), mode=config.mode, cipher=config.spec.title,
                keybytes=config.spec.key_bytes, block=ks.block_bytes, per_call=ks.blocks_per_call,
                rk_words=ks.rk_words, rk_comment=ks.rk_comment, keyschedule=f"{p}_{ks.keyschedule}",
                encrypt=f"{p}_{ks.encrypt}", encrypt_n=f"{p}_{ks.encrypt}_n" if ks.encrypt_n else "",
                ctr_blocks=f"{p}_ctr_blocks" if ks.ctr_blocks else "", ctr_group=ks.ctr_group,
                zero32_asm=ks.zero32_asm, need=_helpers(config, ks))


def _helpers(config: Config, ks: KernelSet) -> list[str]:
    """The byte/word helpers of templates/glue_words.c.j2 this glue calls (an unused static
    function would fail -Werror)."""
    need = set()
    if not ks.zero32_asm:
        need.add("zero")                        # the struct wipe's byte stores
    if ks.blocks_per_call > 1:
        need |= {"zero", "copy"}                # ECB's padded last call
    if config.mode == "ctr":
        need |= {"put32", "get32", "copy", "xor_words"}
    return sorted(need)


def api(config: Config, ks: KernelSet) -> str:
    return render("block_api.h.j2", **_args(config, ks))


def glue(config: Config, ks: KernelSet) -> str:
    return render("block_glue.c.j2", **_args(config, ks))
