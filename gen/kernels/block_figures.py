"""Per-family extras of a block cipher's Thumb-2 kernel: the list schedulers to compile it with,
a top comment that explains the trick, and figures for the manifest (``metrics.kernel_cycles`` and ``metrics.kernel_facts``).  A family
without an entry gets neither."""
from __future__ import annotations

from gen.kernels.speedy import thumb2_figures as speedy_figures

#: family -> module with ``figures(spec, core, seed) -> (cycles, facts)``, ``comment(spec, core)``
#: and optionally ``STRATEGIES`` (list schedulers to try; default: the generic one)
FAMILIES = {"speedy": speedy_figures}


def strategies(spec) -> tuple:
    """The list schedulers ``spec``'s Thumb-2 kernels are compiled with (thumb2_function.cheapest)."""
    return getattr(FAMILIES.get(spec.family), "STRATEGIES", ("pressure",))


def thumb2(spec, core: str, seed: int = 0) -> tuple[str, dict, dict]:
    """(comment, cycles, facts) for ``spec``'s Thumb-2 kernel on ``core``."""
    fam = FAMILIES.get(spec.family)
    if fam is None:
        return "", {}, {}
    cycles, facts = fam.figures(spec, core, seed)
    return fam.comment(spec, core), cycles, facts
