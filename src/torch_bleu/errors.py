"""The error for input that users can fix: a missing file, a bad encoding, a tokenizer that is not installed."""

#: The exit status sacrebleu's command line gives input whose lines do not have the fields they should
#: (systems or references separated by tabs); any other bad input exits with status 1.
MALFORMED_LINES = 17


class InputError(ValueError):
    """A problem with the user's input, which the command line reports in one line, without a traceback,
    and exits with ``exit_status``."""

    def __init__(self, message: str, exit_status: int = 1) -> None:
        super().__init__(message)
        self.exit_status = exit_status
