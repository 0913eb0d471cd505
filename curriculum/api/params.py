"""Path and query parameters shared by several endpoints."""

from typing import Any

from ninja import Path, Query
from pydantic import ValidationError, WrapValidator
from pydantic_core import PydanticCustomError

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


def named_bound(setting: str) -> WrapValidator:
    """A parameter whose upper bound is `setting`, refused past it naming the setting ("Input
    should be less than or equal to 50 (LIMIT_SEARCH_PAGE)"): the schema states the bound, as
    schemathesis holds clients to it, and the refusal says where it comes from."""

    def refused_naming(value: Any, handler: Any) -> Any:
        try:
            return handler(value)
        except ValidationError as error:
            [first, *_] = error.errors()
            if first["type"] != "less_than_equal":
                raise
            said = f"{first['msg']} ({setting})"
            raise PydanticCustomError("less_than_equal", said) from None

    return WrapValidator(refused_naming)
