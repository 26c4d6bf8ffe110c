"""The wipes in A64: ``{prefix}_zero32(p, n)``, n words of zeros at a 4-byte aligned p (the glue's
wipe of key-dependent structs; an opaque call, so it may wipe a struct of any member types, as
gen/kernels/wipe.py explains for Thumb-2), eight words per loop step by two STP of XZR (any
alignment is fine for them on AArch64), then one word at a time; and ``{prefix}_zero_bytes(p, n)``,
n bytes at any p (the glue's byte wipe, otherwise a volatile byte loop), 16 bytes a step, then
one byte at a time. Both loop on n only. ``{prefix}_vector_wipe()`` zeroes the vector registers
a caller may leave anything in (v0-v7, v16-v31; AAPCS64): C code the compiler vectorised (the
twist of H in ghash_init) leaves H-derived words there otherwise. The kernels wipe their own
(gen/kernels/armv8/asm.py)."""
from __future__ import annotations

from gen.kernels.armv8.asm import counted_loop, function


def zero32(prefix: str) -> str:
    name = f"{prefix}_zero32"
    body = counted_loop("x1", 8, ["stp xzr, xzr, [x0], #16", "stp xzr, xzr, [x0], #16"], 1,
                        ["str wzr, [x0], #4"]) + ["ret"]
    return function(f"void {name}(void *p, size_t n)", name, body,
                    f"/* {name}: n words of zeros (wiping), an opaque call (gen/kernels/armv8/wipe.py) */")


def zero_bytes(prefix: str) -> str:
    name = f"{prefix}_zero_bytes"
    body = counted_loop("x1", 16, ["stp xzr, xzr, [x0], #16"], 1, ["strb wzr, [x0], #1"]) + ["ret"]
    return function(f"void {name}(void *p, size_t n)", name, body,
                    f"/* {name}: n bytes of zeros (wiping), an opaque call (gen/kernels/armv8/wipe.py) */")


def vector_wipe(prefix: str) -> str:
    name = f"{prefix}_vector_wipe"
    body = [f"movi v{i}.16b, #0" for i in (*range(8), *range(16, 32))] + ["ret"]
    return function(f"void {name}(void)", name, body,
                    f"/* {name}: zeroes v0-v7 and v16-v31, the caller-saved vector registers (gen/kernels/armv8/wipe.py) */")
