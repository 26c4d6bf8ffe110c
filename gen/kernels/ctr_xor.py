"""XOR of 32 bytes of keystream into a message: `{prefix}_xor32(out, in, ks)`.

The GCM glue's counter-mode fast path calls it once per pair of blocks. `in` and `out` may
be unaligned (and equal); `ks` is the stream's keystream buffer.

- C (portable): a byte loop; portable C cannot load a word from an unaligned byte pointer
  without a libc call or undefined behaviour.
- Thumb-2 (Cortex-M3/M4): single-word LDR/STR, which ARMv7-M performs at any alignment
  (LDRD/LDM/STM would fault on unaligned addresses, so they are not used). Loads are grouped
  so that each one after the first pipelines (TRM: a load after a load costs one cycle less).
"""
from __future__ import annotations


def c(prefix: str) -> str:
    return (f"static void {prefix}_xor32(uint8_t *out, const uint8_t *in, const uint8_t *ks)\n"
            "{\n    unsigned i;\n    for (i = 0; i < 32u; i++) out[i] = (uint8_t)(in[i] ^ ks[i]);\n}\n")


def thumb2(prefix: str) -> str:
    name = f"{prefix}_xor32"
    lines = [".syntax unified", ".thumb", f'.section .text.{name},\\"ax\\",%progbits', ".balign 4",
             f".global {name}", f".type {name}, %function", ".thumb_func", f"{name}:",
             "push {r4, r5, r6, r7}"]
    for base in range(0, 32, 8):          # r0 = out, r1 = in, r2 = ks; 8 bytes a step
        lines += [f"ldr r3, [r1, #{base}]", f"ldr r4, [r1, #{base + 4}]",
                  f"ldr r5, [r2, #{base}]", f"ldr r6, [r2, #{base + 4}]",
                  "eors r3, r5", "eors r4, r6",
                  f"str r3, [r0, #{base}]", f"str r4, [r0, #{base + 4}]"]
    lines += ["pop {r4, r5, r6, r7}", "bx lr", f".size {name}, .-{name}"]
    body = "\n".join(f'    "{line}\\n"' for line in lines)
    return (f"/* {name}: out[0..31] = in[0..31] ^ ks[0..31] with unaligned single-word LDR/STR\n"
            f" * (ARMv7-M allows them; LDRD/LDM would fault), loads grouped to pipeline. */\n"
            f"void {name}(uint8_t *out, const uint8_t *in, const uint8_t *ks);\n"
            f"__asm__(\n{body}\n);\n")
