"""Per-family extras of a block cipher's Thumb-2 kernel: a top comment that explains the trick,
and figures for the manifest (``metrics.kernel_cycles`` and ``metrics.kernel_facts``).  A family
without an entry gets neither."""
from __future__ import annotations

from gen.kernels.speedy import thumb2_figures as speedy_figures

#: family -> module with ``figures(spec, core, seed) -> (cycles, facts)`` and ``comment(spec, core)``
FAMILIES = {"speedy": speedy_figures}


def thumb2(spec, core: str, seed: int = 0) -> tuple[str, dict, dict]:
    """(comment, cycles, facts) for ``spec``'s Thumb-2 kernel on ``core``."""
    fam = FAMILIES.get(spec.family)
    if fam is None:
        return "", {}, {}
    cycles, facts = fam.figures(spec, core, seed)
    return fam.comment(spec, core), cycles, facts
