"""What a file stores is bounded by what it says: aliases are counted where they stand (without
building what they stand for), merge keys are not read, and whatever is stored exports to a
file that imports again."""

import json
import tracemalloc

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.test import Client

from curriculum.admin.text_boxes import RowsJSONField
from curriculum.domain.chapter_files import (
    ChapterFileError,
    chapter_export,
    chapter_import,
    chapter_source,
    file_import,
    json_document,
    load_yaml,
)
from curriculum.models import Chapter, Solution
from tests.conftest import problem, sketch

HEAD = "code: II.7\nbook: II\ntitle: Bombs\nmaturity: M0\nstate: draft\n"


def alias_bomb(levels: int = 8, width: int = 10) -> str:
    """About 10 KB of chapter file whose last problem's scores stand for 1500 x 10^8 numbers."""
    row = "[" + ", ".join(["0.5"] * 1500) + "]"
    problems = [
        f"- {{key: p0, kind: exercise, variant: v, statement: s, operation: softmax,"
        f" ask: {{output: out}}, inputs: {{scores: &a0 [{row}]}}}}"
    ]
    for level in range(1, levels + 1):
        rows = ", ".join([f"*a{level - 1}"] * width)
        problems.append(
            f"- {{key: p{level}, kind: exercise, variant: v, statement: s,"
            f" operation: softmax, ask: {{output: out}},"
            f" inputs: {{scores: &a{level} [{rows}]}}}}"
        )
    return HEAD + "problems:\n" + "\n".join(problems) + "\n"


def refused_cheaply(read) -> tuple[list[str], int]:
    """The refusal, and the most memory reading took (Python's own allocations)."""
    tracemalloc.start()
    try:
        with pytest.raises(ChapterFileError) as error:
            read()
        return error.value.errors, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_alias_bomb_is_refused_at_import_with_its_path_and_without_building_it(books):
    text = alias_bomb()
    assert 8_000 < len(text) < 12_000
    errors, peak = refused_cheaply(lambda: file_import(text=text))
    assert errors == [
        "problems[3].inputs.scores: holds 1,500,000 numbers, each alias (*name) counted where it"
        " stands; at most 200,000 (LIMIT_CHAPTER_NUMBERS)",
        "problems[3].inputs.scores: is 9,065,064 bytes written out as a chapter file, each alias"
        " (*name) counted where it stands; at most 2,097,152 (LIMIT_CHAPTER_FILE_BYTES)",
    ]  # the first problem whose own scores are over: the one to mend
    assert peak < 4 * 1024 * 1024, f"reading the bomb took {peak:,} bytes"
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_merge_key_bomb_is_refused_where_it_first_merges(books):
    lines = [HEAD, "m0: &m0 {" + ", ".join(f"k{i}: [1, 2, 3]" for i in range(10)) + "}\n"]
    lines += [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}x: 1}}\n" for i in range(1, 40)]
    errors, peak = refused_cheaply(lambda: load_yaml("".join(lines)))
    assert errors == [
        "line 7, column 10: not valid YAML: a merge key (<<) is not read (YAML 1.2 has none): "
        "write the keys out, or give the whole value as an alias (*name)"
    ]
    assert peak < 4 * 1024 * 1024


def test_a_value_that_holds_itself_is_refused():
    errors, _ = refused_cheaply(lambda: load_yaml(HEAD + "problems: &p [*p]\n"))
    assert errors == ["file: a value holds itself (an alias, *name, inside its own anchor)"]


def test_a_text_repeated_by_aliases_counts_every_time_it_stands(books):
    prose = "A sentence an author wrote once. " * 300  # 10 KB
    items = "".join(f"    - {{title: t{i}, body: *prose}}\n" for i in range(300))
    text = (
        HEAD + f"thesis: &prose {json.dumps(prose)}\nstrands:\n  basics:\n    target: 0\n"
        "    items:\n" + items
    )
    errors, peak = refused_cheaply(lambda: file_import(text=text))
    [error] = errors
    assert error.startswith("strands.basics.items: is 3,") and "LIMIT_CHAPTER_FILE_BYTES" in error
    assert peak < 4 * 1024 * 1024


def test_the_api_answers_amplified_bodies_with_422_and_every_reason(books, alice_token, settings):
    client = Client()
    bomb = client.put(
        "/api/v1/chapters/II.7", alias_bomb(), content_type="application/yaml", **alice_token
    )
    assert bomb.status_code == 422
    assert [e["detail"].rsplit("(", 1)[1] for e in bomb.json()["errors"]] == [
        "LIMIT_CHAPTER_NUMBERS)",
        "LIMIT_CHAPTER_FILE_BYTES)",
    ]
    settings.LIMIT_CHAPTER_NUMBERS = 100
    document = sketch("II.7")
    document["problems"][0]["inputs"]["scores"] = [[0.0] * 101]
    many = client.put(
        "/api/v1/chapters/II.7",
        json.dumps(document),
        content_type="application/json",
        **alice_token,
    )
    assert many.status_code == 422
    assert many.json()["errors"] == [
        {
            "pointer": "/problems/0/inputs/scores/0",
            "code": "limit",
            "detail": "holds 101 numbers, each alias (*name) counted where it stands; at most "
            "100 (LIMIT_CHAPTER_NUMBERS)",
        }
    ]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_an_admin_json_box_is_held_to_the_same_limits(settings):
    settings.LIMIT_CHAPTER_NUMBERS = 5
    from django.forms import ValidationError

    with pytest.raises(ValidationError) as error:
        RowsJSONField().clean("[[1, 2, 3], [4, 5, 6]]")
    assert error.value.messages == [
        "holds 6 numbers, each alias (*name) counted where it stands; at most 5 "
        "(LIMIT_CHAPTER_NUMBERS)"
    ]
    with pytest.raises(ChapterFileError):
        json_document(b"[1, 2, 3, 4, 5, 6]")


def hostile_text(lines: int) -> str:
    """What YAML writes longest: one-letter lines in a block (each indented), quotes to double,
    characters to escape, a trailing space that forces double quotes around all of it."""
    return "a\n" * lines + 'it\'s "\\" \t \U0001f600 \ufeff \n' * (lines // 10) + "end "


def largest_accepted(make, top: int) -> tuple[int, dict]:
    """The largest n whose document `make(n)` the importer accepts (n + 1 is refused)."""
    low, high = 0, top
    while low < high:
        middle = (low + high + 1) // 2
        try:
            chapter_import(document=make(middle), dry_run=True)
            low = middle
        except ChapterFileError as error:
            assert all("LIMIT_CHAPTER_" in e for e in error.errors), error.errors
            high = middle - 1
    return low, make(low)


def test_a_chapter_at_the_limits_exports_and_imports_again_as_yaml_and_json(
    books, alice_token, settings
):
    settings.LIMIT_CHAPTER_FILE_BYTES = settings.LIMIT_API_BODY_BYTES = 60_000
    settings.LIMIT_CHAPTER_NUMBERS = 4_000

    def make(n: int) -> dict:
        document = sketch("II.7")
        document["strands"]["basics"]["items"][0]["body"] = hostile_text(n)
        document["problems"][1]["statement"] = hostile_text(n // 4).replace("\n", " ")
        document["problems"][2]["solution"]["answer"] = [[0.125] * 40] * 50  # 2,000 numbers
        return document

    n, document = largest_accepted(make, 20_000)
    assert n > 1_000
    chapter_import(document=document)
    exported = chapter_export(code="II.7")
    assert 50_000 < len(exported.encode()) <= 60_000
    source = chapter_source(code="II.7")
    assert file_import(text=exported).created is False
    assert chapter_source(code="II.7") == source
    body = json.dumps(source, ensure_ascii=False).encode()
    assert len(body) <= 60_000
    client = Client()
    put = client.put("/api/v1/chapters/II.7", body, content_type="application/json", **alice_token)
    assert put.status_code == 200, put.content
    as_yaml = client.put(
        "/api/v1/chapters/II.7", exported.encode(), content_type="application/yaml", **alice_token
    )
    assert as_yaml.status_code == 200, as_yaml.content
    assert chapter_source(code="II.7") == source


def test_a_chapter_holding_the_most_numbers_allowed_exports_and_imports_again(books, settings):
    settings.LIMIT_CHAPTER_NUMBERS = 3_000

    def make(n: int) -> dict:
        document = sketch("II.7")
        document["problems"] = [
            problem(f"p{i}", scores=[[0.0, 1.0]], answer=[[0.2689414213699951] * 25] * 4)
            for i in range(n)
        ]
        return document

    n, document = largest_accepted(make, 40)
    # each problem holds 104 numbers (its scores, answer, rtol and atol), the chapter 6 more (its
    # number and strand targets): 28 make 2,918, and a 29th would make 3,022
    assert n == 28
    chapter_import(document=document)
    source = chapter_source(code="II.7")
    file_import(text=chapter_export(code="II.7"))
    assert chapter_source(code="II.7") == source
    assert yaml.safe_load(chapter_export(code="II.7")) == source


def test_a_chapter_stored_before_the_limits_is_refused_as_a_file_and_served_as_json(
    books, alice_token, capsys
):
    chapter_import(document=sketch("II.7"))
    big = [[0.5] * 1000] * 300  # 300,000 numbers, as amplified files once stored
    Solution.objects.filter(problem__chapter__code="II.7", problem__key="p2").update(answer=big)
    client = Client()
    as_yaml = client.get(
        "/api/v1/chapters/II.7/source", HTTP_ACCEPT="application/yaml", **alice_token
    )
    assert as_yaml.status_code == 422
    assert [(e["pointer"], e["detail"]) for e in as_yaml.json()["errors"]] == [
        (
            "/problems/1/solution/answer",
            "holds 300,000 numbers, each alias (*name) counted where it stands; at most "
            "200,000 (LIMIT_CHAPTER_NUMBERS)",
        ),
        ("", "stored before these limits; read it as JSON or mend it in admin"),
    ]
    as_json = client.get("/api/v1/chapters/II.7/source", **alice_token)
    assert as_json.status_code == 200 and as_json.json()["problems"][1]["solution"]["answer"]
    with pytest.raises(CommandError) as refused:
        call_command("export_chapter", "II.7")
    assert "LIMIT_CHAPTER_NUMBERS" in str(refused.value)


def test_a_list_of_more_parts_than_are_searched_is_named_itself(settings):
    """Past SEARCHED_PARTS parts a list is named as the part past the limit, not searched part
    by part for one that alone is (a million small ones took seconds of a request); within
    it, the part that alone is past the limit is named."""
    from curriculum.domain.chapter_files.extent import SEARCHED_PARTS, extent_errors

    settings.LIMIT_CHAPTER_NUMBERS = 10
    over = [1] * 11
    searched = [[1]] * (SEARCHED_PARTS - 1) + [over]
    [error] = extent_errors({"answer": searched}, where="body")
    assert error.startswith(f"answer[{SEARCHED_PARTS - 1}]: holds 11 numbers")
    named = [[1]] * SEARCHED_PARTS + [over]
    [error] = extent_errors({"answer": named}, where="body")
    assert error.startswith(f"answer: holds {SEARCHED_PARTS + 11:,} numbers")
