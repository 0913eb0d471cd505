"""The key tables of docs/content-format.md, made from the schema: between `<!-- keys: X -->`
and `<!-- /keys -->` stands the table of X, so the document says what the validator reads."""

import re

from pydantic import BaseModel

from . import schema

TABLES: dict[str, tuple[type[BaseModel], ...]] = {
    "book": (schema.BookFile, schema.BookDocument),
    "chapter": (schema.ChapterDocument,),
    "strand": (schema.StrandDocument,),
    "figure": (schema.FigureDocument,),
    "notation": (schema.NotationDocument,),
    "proposition": (schema.PropositionDocument,),
    "problem": (schema.ProblemDocument,),
    "solution": (schema.SolutionDocument,),
    "feedback": (schema.FeedbackDocument,),
}
type Expansions = dict[tuple[type[BaseModel], str], type[BaseModel]]
EXPANDED: Expansions = {(schema.StrandDocument, "items"): schema.StrandItemDocument}
"""Lists whose entries' keys the same table shows, as `items[].title`."""
MARKED = re.compile(r"(<!-- keys: (\w+) -->\n).*?(<!-- /keys -->)", re.DOTALL)


def _rows(model: type[BaseModel], prefix: str = "") -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra
        kind = extra["doc"] if isinstance(extra, dict) else ""
        rows.append(f"| `{prefix}{name}` | {kind} | {field.description} |")
        if inner := EXPANDED.get((model, name)):
            rows += _rows(inner, f"{prefix}{name}[].")
    return rows


def table(name: str) -> str:
    rows = [row for model in TABLES[name] for row in _rows(model)]
    return "\n".join(["| key | type | rules |", "| --- | --- | --- |", *rows]) + "\n"


def with_tables(text: str) -> str:
    """The document with every marked table as the schema has it."""
    return MARKED.sub(lambda m: f"{m[1]}{table(m[2])}{m[3]}", text)
