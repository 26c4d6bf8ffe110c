"""FACE: caching of the counter-mode rounds that repeat from block to block."""
