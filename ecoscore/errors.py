"""Errors shared by the commands (a module of its own, so `python -m ecoscore.cli` and the
installed command raise and catch the very same class)."""


class BadInput(Exception):
    """A user error: printed on stderr, exit code 2."""
