"""The error for input that users can fix: a missing file, a bad encoding, a tokenizer that is not installed."""


class InputError(ValueError):
    """A problem with the user's input, which the command line reports in one line, without a traceback."""
