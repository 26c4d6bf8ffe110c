"""Block-cipher kernels by cipher family: one registration line per family.

``portable_c(prefix, spec, **options)`` -> BlockKernel (C text + sizes) and
``programs(spec, **options)`` -> (keyschedule Program, encrypt Program), the IR a Thumb-2
backend can take.  Options are the family's own (AES: ``slicing``); the others take none.
"""
from __future__ import annotations

from gen.errors import ConfigError
from gen.kernels.aes import block as aes_block
from gen.kernels.rijndael256 import portable as rijndael256
from gen.kernels.speedy import portable as speedy

FAMILIES = {"aes": aes_block, "rijndael256": rijndael256, "speedy": speedy}


def _family(spec):
    try:
        return FAMILIES[spec.family]
    except KeyError:
        raise ConfigError(f"no kernel for cipher family {spec.family!r}; "
                          f"allowed: {', '.join(FAMILIES)}") from None


def portable_c(prefix: str, spec, **options):
    return _family(spec).portable_c(prefix, spec, **options)


def programs(spec, **options):
    fam = _family(spec)
    return fam.keyschedule_program(spec, **options), fam.encrypt_program(spec, **options)
