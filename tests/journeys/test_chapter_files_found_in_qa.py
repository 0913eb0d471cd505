"""Chapter files an outside author might write: each mistake is a clear error, never a crash."""

import json

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.test import Client

from curriculum.domain.chapter_files import ChapterFileError, chapter_import, file_import
from curriculum.domain.tokens import token_issue
from curriculum.models import Book, Chapter
from tests.conftest import problem, sketch


def refused(text: str) -> list[str]:
    with pytest.raises(ChapterFileError) as refusal:
        file_import(text=text)
    return refusal.value.errors


def test_a_key_given_twice_is_refused_not_silently_overwritten(books):
    text = yaml.safe_dump(sketch(), sort_keys=False).replace(
        "title: A Sketch\n", "title: A Sketch\ntitle: Another\n"
    )
    errors = refused(text)
    assert len(errors) == 1 and "the key 'title' appears twice in one mapping" in errors[0]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_yaml_alias_bomb_is_refused_quickly(books):
    lines = ["code: II.7", "book: II", 'a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    assert refused("\n".join(lines)) == [  # a5 alone stands for 9^6 texts
        "a5: is 3,444,863 bytes written out as a chapter file, each alias (*name) counted where"
        " it stands; at most 2,097,152 (LIMIT_CHAPTER_FILE_BYTES)"
    ]


def test_a_file_with_a_few_aliases_still_imports(books):
    doc = sketch()
    shared = [[0.0, 0.0]]
    for p in doc["problems"]:
        p["inputs"]["scores"] = shared
    file_import(text=yaml.safe_dump(doc, sort_keys=False))
    assert Chapter.objects.filter(code="II.7").exists()


def test_an_infinite_tolerance_is_refused(books):
    doc = sketch()
    doc["problems"][0]["tolerance"] = {"rtol": float("inf"), "atol": 0}
    assert refused(yaml.safe_dump(doc, sort_keys=False)) == [
        "problems[0].tolerance.rtol: expected a finite number, at least 0, got a number (inf)"
    ]


@pytest.mark.parametrize("where", ["answer", "input", "atol", "scale"])
def test_an_integer_past_float_range_is_an_error_not_a_crash(books, where):
    """Refused where it is written, with its line: as a tolerance or a generator's scale it
    used to fail deep in the checks (500)."""
    doc = sketch()
    if where == "answer":
        doc["problems"][1]["solution"]["answer"] = [[10**400, 1]]
    elif where == "input":
        doc["problems"][1]["inputs"]["scores"] = [[10**400, 1]]
    elif where == "atol":
        doc["problems"][1]["tolerance"] = {"rtol": 1e-6, "atol": 10**400}
    else:
        doc["problems"][1]["inputs"]["scores"] = {
            "generate": "normal",
            "shape": [2, 3],
            "seed": 1,
            "scale": 10**400,
        }
    [error] = refused(yaml.safe_dump(doc, sort_keys=False))
    assert error.startswith("line ") and error.endswith(
        ": not valid YAML: a number is larger than about 1.8e308, the largest the engine "
        "computes with"
    )


def test_a_number_too_large_for_the_database_is_an_error(books):
    doc = sketch(number=10**30)
    assert refused(yaml.safe_dump(doc, sort_keys=False)) == [
        f"number: must be at most 10000, got {10**30}"
    ]


def test_a_number_that_disagrees_with_the_code_is_refused(books):
    assert refused(yaml.safe_dump(sketch("II.7", number=2), sort_keys=False)) == [
        "number: the code II.7 says chapter 7, but number is 2"
    ]


def test_a_missing_key_is_reported_once(books):
    assert refused(yaml.safe_dump({"code": "II.7"})) == [
        "book: is required",  # number is not: the code carries it
        "title: is required",
        "maturity: is required",
    ]


def test_a_file_that_is_not_a_mapping_says_so_plainly(books):
    assert refused("- code: II.7\n") == [
        "top level: expected a mapping of keys such as code, book, title, got a list"
    ]


def test_a_dry_run_checks_a_chapter_against_the_book_given_with_it(books, tmp_path, capsys):
    book = tmp_path / "book.yaml"
    book.write_text("numeral: III\ntitle: Third\nslug: third\n")
    chapter = tmp_path / "III.2.yaml"
    doc = sketch("III.2", book="III")
    chapter.write_text(yaml.safe_dump(doc, sort_keys=False))
    call_command("import_chapter", str(chapter), str(book), "--dry-run")
    out = capsys.readouterr().out
    assert f"{chapter}: would import III.2, 3 would be sent to the verifier" in out
    assert not Book.objects.filter(numeral="III").exists()
    assert not Chapter.objects.filter(code="III.2").exists()


def test_a_file_that_is_not_utf8_says_where(books, tmp_path, capsys):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"code: II.7\ntitle: Caf\xe9\n")
    with pytest.raises(CommandError):
        call_command("import_chapter", str(bad))
    assert "not UTF-8 text (byte 0xe9 at offset 21); save the file as UTF-8" in (
        capsys.readouterr().err
    )


def test_an_api_put_with_an_infinite_tolerance_is_422_and_publish_never_500(books, erin):
    doc = sketch()
    doc["problems"][2] = problem("p3", answer=[[0.9, 0.1]])
    doc["problems"][2]["tolerance"] = {"rtol": 0, "atol": "INF"}
    body = json.dumps(doc).replace('"INF"', "Infinity")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=erin, name='qa')[1]}"}
    response = Client().put(
        "/api/v1/chapters/II.7", body, content_type="application/json", **headers
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "pointer": "/problems/2/tolerance/atol",
            "code": "invalid",
            "detail": "expected a finite number, at least 0, got a number (inf)",
        }
    ]


def test_an_api_put_of_a_list_is_422_with_a_plain_reason(books, erin):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=erin, name='qa')[1]}"}
    response = Client().put(
        "/api/v1/chapters/II.7", "[]", content_type="application/json", **headers
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "pointer": "",
            "code": "invalid",
            "detail": "expected a mapping of keys such as code, book, title, got a list",
        }
    ]


def test_an_api_put_with_a_huge_number_is_422_not_500(books, erin):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=erin, name='qa')[1]}"}
    doc = sketch()
    doc["strands"]["basics"]["target"] = 10**12
    response = Client().put(
        "/api/v1/chapters/II.7", json.dumps(doc), content_type="application/json", **headers
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "pointer": "/strands/basics/target",
            "code": "invalid",
            "detail": f"must be at most 10000, got {10**12}",
        }
    ]


def test_chapter_import_with_the_wrong_code_names_both(books):
    with pytest.raises(ChapterFileError) as refusal:
        chapter_import(document=sketch("II.8"), expected_code="II.7")
    assert refusal.value.errors == ["code: the document is for II.8; this address is for II.7"]
    with pytest.raises(ChapterFileError) as refusal:
        chapter_import(document=sketch("II.7") | {"code": 7}, expected_code="II.7")
    assert refusal.value.errors[0].startswith("code: the document gives its code as ")


def test_a_missing_number_is_taken_from_the_code(books):
    document = sketch("II.7")
    del document["number"]
    chapter_import(document=document)
    assert Chapter.objects.get(code="II.7").number == 7
