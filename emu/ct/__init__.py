"""The constant-time checker: record every branch target and memory address of a call (the
recorder is C, trace.c, built by native.py), run the same call on different secrets, and prove
the traces equal; plus the data-dependent timing classes (M3's early-ending multiplies).
  checker     the recorder, sessions and the GCM checks;  block  block-cipher drops
  face_cache  a cached FACE sequence across a rebuild
May import emu.machines, emu.platforms, emu.bench and gen.cores (timing classes); never kernels.
"""
