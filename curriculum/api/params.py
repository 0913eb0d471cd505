"""Path and query parameters shared by several endpoints."""

from ninja import Path, Query

from curriculum.models.course import CODE_FORM, NUMERAL_FORM

# The same rule as the models' CODE_RE; OpenAPI and pydantic (ECMA, Rust) say \Z as $.
CODE_RE, NUMERAL_RE = rf"^{CODE_FORM}$", rf"^{NUMERAL_FORM}$"
# Codes contain dots (II.4, 0.LA.01); Django's default converter accepts them. `example`, not
# `examples`: ninja copies it onto the parameter, where OpenAPI 3.1 wants a single value there
# (a parameter's `examples` is a map of Example objects, not a list).
CODE = Path(
    ...,
    pattern=CODE_RE,
    description="Chapter code: II.4, or 0.LA.01 in Book 0.",
    example="II.4",
)
NUMERAL = Path(..., pattern=NUMERAL_RE, description='Book numeral: II, or "0".', example="II")
BOOK_FILTER = Query(None, pattern=NUMERAL_RE, description="Only chapters of this book.")
# Release numbers are stored as PostgreSQL integers.
RELEASE_NUMBER = Path(..., ge=1, le=2**31 - 1, description="Release number, from 1.")
