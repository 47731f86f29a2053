"""The package's version, in a module of its own so that any layer may name it without importing the others."""

__version__ = "0.1.0"
