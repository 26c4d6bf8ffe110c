"""What every drop must pass before it is written: NIST and known-answer vectors, differential
runs against pyca/cryptography, and per-mode scenarios that bundle validation, constant time and
the benchmark (scenarios.py: add a check every drop must pass there). Block-cipher drops run
through blockcipher.py with driver_block.c; A-class drops also under qemu (qemu_main.c).
May import emu.machines, emu.platforms, emu.ct, emu.bench and gen's config/ciphers; never kernels.
"""
