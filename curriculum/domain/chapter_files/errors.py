"""The one error a refused chapter or book file raises, carrying every reason."""

import sys


class ChapterFileError(Exception):
    """A refused file: every error, each as `path: message`."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


def value_problem(error: ValueError) -> str:
    """A parser's reason in an author's words: Python's refusal of a huge integer advises
    raising an interpreter limit, which an author cannot and need not do."""
    if "int_max_str_digits" in str(error):
        return f"a number has more than {sys.get_int_max_str_digits():,} digits"
    return str(error)
