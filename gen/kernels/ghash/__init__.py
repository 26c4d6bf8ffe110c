"""GHASH: the model, constant-time holes multiplication (C, Thumb-2) and the table variants."""
