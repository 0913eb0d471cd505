"""The one error a refused chapter or book file raises, carrying every reason."""


class ChapterFileError(Exception):
    """A refused file: every error, each as `path: message`."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))
