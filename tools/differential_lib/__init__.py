"""The pieces of ``tools/differential``: see that script's docstring."""
