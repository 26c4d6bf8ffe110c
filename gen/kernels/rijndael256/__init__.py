"""Bitsliced Rijndael-256 (256-bit block and key): IR programs and the portable C kernel."""
