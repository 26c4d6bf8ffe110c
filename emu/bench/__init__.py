"""Benchmarks from the cycle model, never from a clock.
  cycles      the Cortex-M cycle model (gen/cores' tables over the executed instructions)
  drop        a GCM drop's figures (cycles per size, key setup, sizes, stack)
  mca         A-class drops: llvm-mca over the executed stream;  ghash  a GHASH kernel alone
  face_cache  the cached FACE calls over consecutive IVs
May import emu.machines, emu.platforms and gen.cores; never kernels.
"""
