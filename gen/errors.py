"""The one error type for bad user input: the CLI prints it as one line and exits 2."""


class ConfigError(Exception):
    """Bad input: unknown preset, unknown key or value, unsupported combination, missing tool."""

