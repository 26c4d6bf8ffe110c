"""``{prefix}_zero32(p, n)`` in A64: n words of zeros at a 4-byte aligned p (the glue's wipe of
key-dependent structs; an opaque call, so it may wipe a struct of any member types, as
gen/kernels/wipe.py explains for Thumb-2). Pairs of words by STR XZR while 2 or more are left
(any 4-byte alignment is fine for a 64-bit store on AArch64), then one. Loops on n only."""
from __future__ import annotations

from gen.kernels.armv8.asm import function


def zero32(prefix: str) -> str:
    name = f"{prefix}_zero32"
    body = ["cmp x1, #2", "b.lo 2f", "1:", "str xzr, [x0], #8", "sub x1, x1, #2", "cmp x1, #2", "b.hs 1b",
            "2:", "cbz x1, 3f", "str wzr, [x0]", "3:", "ret"]
    return function(f"void {name}(void *p, size_t n)", name, body,
                    f"/* {name}: n words of zeros (wiping), an opaque call (gen/kernels/armv8/wipe.py) */")
