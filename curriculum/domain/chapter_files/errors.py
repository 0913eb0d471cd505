"""The one error a refused chapter or book file raises, carrying every reason."""


class ChapterFileError(Exception):
    """A refused file: every error, each as `path: message`."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


TOO_LARGE = "a number is larger than about 1.8e308, the largest the engine computes with"
FLOAT_LIMIT = 2**1024
"""No integer this large or larger converts to a float: refused where it is read, as every
later step (tolerances, generated inputs, the engine) converts numbers to floats."""


def value_problem(error: ValueError) -> str:
    """A parser's reason in an author's words: Python's refusal of a huge integer advises
    raising an interpreter limit, which an author cannot and need not do."""
    if "int_max_str_digits" in str(error):
        return TOO_LARGE
    return str(error)
