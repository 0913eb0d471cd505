"""docs/content-format.md names every key the validator and the engine know, and the ladder."""

import re
from pathlib import Path

import pytest

import attention
from attention.generated import GENERATORS
from curriculum.domain.chapter_files import schema
from curriculum.domain.chapter_files.format_tables import TABLES, table, with_tables
from curriculum.domain.ladder import LADDER, STRAND_CODES

DOC = (Path(__file__).resolve().parents[4] / "docs" / "content-format.md").read_text()
NAMED = {
    word
    for code in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", DOC, flags=re.DOTALL))
    for word in re.findall(r"[A-Za-z_]\w*", code)
}
"""Every name inside `code` in the document: `items[].body` names items and body."""


def known_keys() -> set[str]:
    keys = {
        key
        for model in vars(schema).values()
        if isinstance(model, type) and issubclass(model, schema.Keys)
        for key in model.model_fields
    }
    assert {"items", "caption", "proof", "tolerance", "steps"} <= keys  # none left unread
    keys |= set(STRAND_CODES) | {key for allowed in GENERATORS.values() for key in allowed}
    keys |= set(GENERATORS) | set(attention.SELECTORS) | {"output"}
    for operation in attention.OPERATIONS.values():
        keys |= {operation.name, *operation.outputs, *(p.name for p in operation.parameters)}
    return keys


@pytest.mark.parametrize("key", sorted(known_keys()))
def test_the_format_document_names_every_key(key):
    assert key in NAMED, f"docs/content-format.md never names `{key}`, which the validator knows"


def test_the_key_tables_are_the_schema():
    """`manage.py format_tables --write` rewrites them after a change to the schema."""
    assert with_tables(DOC) == DOC
    assert DOC.count("<!-- keys: ") == len(TABLES)


def test_a_key_the_schema_gains_shows_in_its_table(monkeypatch):
    before = table("notation")
    field = schema.NotationDocument.model_fields["meaning"]
    monkeypatch.setattr(field, "description", "required; changed")
    assert with_tables(DOC) != DOC and table("notation") != before


def test_the_ladder_table_is_the_ladder():
    rows = re.findall(
        r"^\| `(M\d)` \| ([\w-]+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", DOC, re.MULTILINE
    )
    assert rows == [
        (lv.code, lv.name, str(lv.worked), str(lv.variants), str(lv.exercises), str(lv.problems))
        for lv in LADDER
    ]


def test_the_readme_and_the_api_schema_link_it(client):
    readme = (Path(__file__).resolve().parents[4] / "README.md").read_text()
    assert "docs/content-format.md" in readme
    schema = client.get("/api/v1/openapi.json").json()
    assert "/api/v1/content-format.md" in schema["info"]["description"]
    served = client.get("/api/v1/content-format.md")
    assert served.status_code == 200 and served["Content-Type"].startswith("text/markdown")
    assert served.content.decode() == DOC
