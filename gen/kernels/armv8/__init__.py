"""AES-GCM for ARMv8-A (AArch64 with the Cryptography Extension): AES with AESE/AESMC, GHASH
with PMULL/PMULL2, printed as AArch64 assembly in file-scope ``__asm__`` blocks (one file per
job: asm.py the function frame, aes.py key schedule and block encryption, ctr.py the counter
mode loop, ghash.py GHASH with aggregated reduction)."""
