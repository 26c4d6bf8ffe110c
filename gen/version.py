"""The generator's version: written into every drop's banner and manifest."""
GENERATOR_VERSION = "0.1.0"
