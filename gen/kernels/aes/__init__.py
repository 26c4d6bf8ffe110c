"""Fixsliced AES: the IR, its portable C, the Thumb-2 kernel and the looped counter mode."""
