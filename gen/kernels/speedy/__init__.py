"""Column-sliced SPEEDY-r-192: IR programs and the portable C kernel."""
