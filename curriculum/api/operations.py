"""GET /operations: the operations reference, generated from the engine's registry, paged as
every API list is (pages.py)."""

from dataclasses import asdict
from typing import Any

from ninja import Router, Schema
from ninja.pagination import paginate
from pydantic import Field

from curriculum.domain.operations import operations_reference

from .auth import READ_AUTH, READ_SECURITY
from .pages import Paged
from .schemas import READ_ERRORS

router = Router(tags=["operations"], auth=READ_AUTH)


class OperationInputOut(Schema):
    name: str
    kind: str
    what: str = Field(description="What a value of this kind is.")
    required: bool
    shape: str
    choices: list[str] = Field(description="The names allowed, for a choice; else empty.")


class OperationOutputOut(Schema):
    name: str
    selectors: list[str] | None = Field(
        description="The ask keys that narrow this output for the example's inputs (batch "
        "also applies to batched inputs); null for a mapping of named numbers."
    )


class OperationExampleOut(Schema):
    inputs: dict[str, Any]
    ask: dict[str, Any]
    answer: Any = Field(description="The example's answer, as a chapter file states it.")
    value: Any = Field(description="What the engine computes for the example.")
    note: str
    source: str = Field(description="The example as chapter-file YAML.")


class OperationOut(Schema):
    name: str
    description: str
    inputs: list[OperationInputOut]
    outputs: list[OperationOutputOut]
    example: OperationExampleOut


@router.get(
    "/operations",
    response={200: list[OperationOut], **READ_ERRORS},
    openapi_extra=READ_SECURITY,
)
@paginate(Paged)
def operation_list(request):
    """Every operation a problem may name: inputs, shapes, outputs, selectors, a worked example;
    paged as every list is (one shape for lists), though one page of the default size holds
    them all today."""
    return [asdict(op) for op in operations_reference()]
