"""Chapter and book files (content-format.md): validation with every error and its path,
import in one transaction per file, and export to the same form.

A file that breaks a rule is refused whole and nothing is written.
"""

from ..working_copy import SourceChanged, chapter_source, source_tag
from .errors import ChapterFileError
from .importing import (
    ChapterImport,
    ImportResult,
    books_import,
    chapter_export,
    chapter_import,
    file_import,
    file_seed,
    files_import,
    import_order,
    is_book_document,
    source_text,
)
from .json_form import JsonUnreadable, NumbersUnheld, json_document, json_read
from .validation import chapter_checked, validate_book, validate_books
from .yaml_form import dump_yaml, load_yaml

__all__ = [
    "ChapterFileError",
    "ImportResult",
    "JsonUnreadable",
    "NumbersUnheld",
    "SourceChanged",
    "books_import",
    "chapter_checked",
    "chapter_export",
    "ChapterImport",
    "chapter_import",
    "chapter_source",
    "dump_yaml",
    "file_import",
    "file_seed",
    "files_import",
    "import_order",
    "is_book_document",
    "json_document",
    "json_read",
    "load_yaml",
    "source_text",
    "source_tag",
    "validate_book",
    "validate_books",
]
