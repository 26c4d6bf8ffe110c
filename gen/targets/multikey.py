"""Multi-key AES-GCM drops (issue 32): one header serving several AES key sizes with one GHASH.

The trick: the target's own kernel set is generated once per key size under an inner prefix
(`PREFIX_k128`, `PREFIX_k256`, ...). A section whose text is the same for every size once that
inner prefix is written as the drop's (GHASH, the wipes, the CTR XOR) is emitted once, under
the drop's prefix; the others (key schedule, AES, counter mode, FACE) once per size. The glue
keeps calling `PREFIX_aes_encrypt2(rk, ...)` etc.: for each such kernel a small C function of
that name dispatches on the key length init stored in the word after the largest round-key
array (`rk[RK_WORDS]`, a public value), so templates/gcm_glue.c.j2 is the single-key glue.
A kernel that takes the ctx instead (ARMv8-A's whole-call gcm96_seal/gcm96_open) dispatches on
the same word, read through the ctx (rk is its first member), and is generated for this ctx's
layout (_per_size). A kernel without either must be the same code for every size (checked; the
first size's serves all). The ctx is sized for the largest key.
"""
from __future__ import annotations

import dataclasses
import re

from gen.config import Config
from gen.templating import render
from gen.targets.common import KernelSet

#: a kernel's C prototype (asm kernels are declared in C just before their __asm__ block; C kernels
#: are defined): return type, name after the inner prefix, parameter list
_PROTO = r"^(?:static\s+)?(void|int|uint32_t)\s+{inner}_(\w+)\(([^)]*)\)\s*[;{{]"
#: an asm function's body, from its label to its .size directive
_ASM_BODY = r'"{name}:\\n"(.*?)"\.size {name},'



def _rk_kind(single: str) -> str:
    """The representation a single-key ctx comment names ("fixsliced (ffs) round keys, ..." ->
    "fixsliced (ffs) "); none for a comment that names its key size ("AES-128 round keys, ...")."""
    kind = single.split(",")[0].removesuffix("round keys")
    return "" if kind.startswith("AES-") else kind


def inner_config(config: Config, bits: int) -> Config:
    """The single-key configuration of one key size, under the inner prefix PREFIX_k<bits>."""
    return dataclasses.replace(config, name=f"{config.name}-k{bits}", cipher=f"aes{bits}", keybits=())


def _kernels(config: Config, bits: int, single, **layout) -> tuple[str, KernelSet]:
    inner = inner_config(config, bits)
    return inner.prefix, single(inner, **layout)


def _prototypes(text: str, inner: str) -> dict[str, tuple[str, str]]:
    found = {}
    for ret, name, params in re.findall(_PROTO.format(inner=re.escape(inner)), text, flags=re.M):
        found.setdefault(name, (ret, " ".join(params.split())))
    return found


def _definitions(text: str, inner: str) -> dict[str, str]:
    """The one-line #defines and static const tables of a section, by name."""
    found = {}
    for m in re.finditer(rf"^#define {re.escape(inner.upper())}_(\w+).*\n", text, flags=re.M):
        found[m.group(1)] = m.group(0)
    for m in re.finditer(rf"^static const [\w ]+ {re.escape(inner)}_(\w+)\[.*?^\}};\n", text, flags=re.M | re.S):
        found[m.group(1)] = m.group(0)
    return found


def _strip(text: str, definitions) -> str:
    for d in definitions:
        text = text.replace(d, "", 1)
    return text


def _arg_names(params: str) -> list[str]:
    names = []
    for param in params.split(","):
        m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", param.strip())
        names.append(m.group(1))
    return names


#: FACE's glue thresholds: choices by the kernels' modelled cycles (when a group fill, a run, the
#: lean one-shot path pays), not correctness; where the key sizes' figures pick differently the
#: multi-key drop takes its smallest key size's (the first), all four from the same size
CYCLE_THRESHOLDS = {"FACE_MIN_GROUP", "FACE_MIN_RUN", "FACE_SHORT_MAX", "FACE_SHORT_MASK"}


def _per_size(config: Config, single) -> dict[int, tuple[str, KernelSet]]:
    """Each key size's kernel set under its inner prefix. A target whose kernels take the ctx
    (ARMv8-A's whole-call gcm96_seal and gcm96_open: KernelSet.seal96, the offsets of hk and
    ctr_tab) is asked again with the multi-key ctx's rk length (the largest key's round keys and
    the key-length word), so every size's kernel finds hk and ctr_tab where this ctx has them."""
    per = {bits: _kernels(config, bits, single) for bits in config.keybits}
    if not any(ks.seal96 for _, ks in per.values()):
        return per
    ctx_rk_words = max(ks.rk_words for _, ks in per.values()) + 1
    per = {bits: _kernels(config, bits, single, ctx_rk_words=ctx_rk_words) for bits in config.keybits}
    if len({ks.seal96 for _, ks in per.values()}) != 1:
        raise ValueError(f"{config.name}: the key sizes' whole-call kernels disagree on the ctx layout")
    return per


def kernels(config: Config, single) -> KernelSet:
    """The merged KernelSet of a multi-key config; `single` is the target's kernels(config)."""
    p, sizes = config.prefix, config.keybits
    per = _per_size(config, single)
    first_inner, first = per[sizes[0]]
    for bits, (_, ks) in per.items():
        if len(ks.sections) != len(first.sections):
            raise ValueError(f"{config.name}: the AES-{bits} kernels have other sections than AES-{sizes[0]}'s")

    def outer(text: str, inner: str) -> str:
        return text.replace(inner, p).replace(inner.upper(), p.upper())

    shared, own = [], {bits: [] for bits in sizes}
    for i, section in enumerate(first.sections):
        texts = {bits: outer(ks.sections[i], inner) for bits, (inner, ks) in per.items()}
        if len(set(texts.values())) == 1:
            shared.append((i, texts[sizes[0]]))
        else:
            for bits, (inner, ks) in per.items():
                own[bits].append((i, ks.sections[i]))
    # constants a per-size section defines for the glue (FACE's table geometry and thresholds, its
    # counter-byte planes): the same for every size, so defined once under the drop's prefix
    hoisted: dict[int, list[str]] = {}
    for i in sorted({i for i, _ in own[sizes[0]]}):
        defs = {bits: _definitions(dict(own[bits])[i], per[bits][0]) for bits in sizes}
        for name, text in defs[sizes[0]].items():
            texts = {outer(defs[b].get(name, ""), per[b][0]) for b in sizes}
            if len(texts) != 1 and name not in CYCLE_THRESHOLDS:
                raise ValueError(f"{config.name}: {name} differs between key sizes; a multi-key drop shares it")
            hoisted.setdefault(i, []).append(outer(text, per[sizes[0]][0]))
        for bits in sizes:
            own[bits] = [(j, _strip(t, defs[bits].values()) if j == i else t) for j, t in own[bits]]
    shared += [(i - 0.5, "\n".join(texts)) for i, texts in hoisted.items()]
    # a per-size section calling a shared helper (PREFIX_k128_zero32) calls the one shared copy
    everything = "\n".join(t for _, t in shared)
    shared_names = set(re.findall(rf"\b{re.escape(p)}_(\w+)", everything))
    shared_macros = set(re.findall(rf"\b{re.escape(p.upper())}_(\w+)", everything))
    for bits in sizes:
        inner = per[bits][0]
        for k, (i, text) in enumerate(own[bits]):
            text = re.sub(rf"\b{re.escape(inner)}_(\w+)",
                          lambda m: f"{p}_{m.group(1)}" if m.group(1) in shared_names else m.group(0), text)
            text = re.sub(rf"\b{re.escape(inner.upper())}_(\w+)",
                          lambda m: f"{p.upper()}_{m.group(1)}" if m.group(1) in shared_macros else m.group(0), text)
            own[bits][k] = (i, text)
    # the per-size kernels the glue reaches by their single-key name
    protos = {bits: _prototypes("\n".join(t for _, t in own[bits]), per[bits][0]) for bits in sizes}
    dispatch, fixed = [], []
    for name, (ret, params) in sorted(protos[sizes[0]].items()):
        args = _arg_names(params)
        if any(name not in protos[b] or protos[b][name] != (ret, params) for b in sizes):
            raise ValueError(f"{config.name}: kernel {name} differs in signature between key sizes")
        if "rk" in args or "ctx" in args:      # the key-length word: rk[RK_WORDS], or the ctx's (rk is first)
            dispatch.append(dict(name=name, ret=ret, params=params, args=", ".join(args),
                                 via="rk" if "rk" in args else "ctx"))
        else:                           # no round keys to dispatch on: the same code for every size
            bodies = set()
            for bits in sizes:
                inner = per[bits][0]
                text = "\n".join(t for _, t in own[bits])
                m = re.search(_ASM_BODY.format(name=re.escape(f"{inner}_{name}")), text, flags=re.S)
                bodies.add(outer(m.group(1), inner) if m else None)
            if len(bodies) != 1 or None in bodies:
                raise ValueError(f"{config.name}: kernel {name} takes no round keys and differs between "
                                 "key sizes; a multi-key drop cannot dispatch it")
            fixed.append(dict(name=name, ret=ret, params=params, args=", ".join(args)))
    rk_words = max(ks.rk_words for _, ks in per.values())
    wrappers = render("gcm_multikey.c.j2", p=p, P=p.upper(), rk_words=rk_words,
                      sizes=[(bits, bits // 8, per[bits][0]) for bits in sizes],
                      dispatch=dispatch, fixed=fixed, first=first_inner)
    order = sorted([(i, t) for i, t in shared] + [(i, t) for bits in sizes for i, t in own[bits]],
                   key=lambda it: it[0])          # stable: per section, the sizes in ascending order
    figures = {str(bits): dict(ks.kernel_cycles) for bits, (_, ks) in per.items() if ks.kernel_cycles}
    facts = {str(bits): dict(ks.kernel_facts) for bits, (_, ks) in per.items() if ks.kernel_facts}
    return dataclasses.replace(
        first, sections=[t for _, t in order] + [wrappers],
        target_guard=outer(first.target_guard, first_inner),
        rk_words=rk_words + 1,
        rk_comment=(f"{_rk_kind(first.rk_comment)}round keys of the key init took (AES-"
                    f"{'/'.join(map(str, sizes))}), then its length in bytes (word {rk_words})"),
        kernel_cycles={"keybits": figures} if figures else {},
        kernel_facts={"keybits": facts} if facts else {},
    )
