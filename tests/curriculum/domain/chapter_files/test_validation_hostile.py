"""Hostile chapter files: nesting, size, NUL, formula expansion, codes and tolerances are each
refused with a path and a clear message, and every page still answers afterwards."""

import json
import resource

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client

from curriculum.domain.chapter_files import (
    ChapterFileError,
    chapter_import,
    json_document,
    load_yaml,
)
from curriculum.domain.verification import verdict_decide
from curriculum.models import Book, Chapter, Problem, Solution, StrandItem, Verdict
from tests.conftest import sketch
from tests.curriculum.conftest import ALL_200, every_page_answers

DEF_BOMB = "$\\def\\a{" + "x" * 10_000 + "}" + "\\a" * 990 + "$"
ARGUMENT_BOMB = "$\\def\\d#1{" + "#1" * 3000 + "}\\d{" + "y" * 5000 + "}$"


def refused(document) -> list[str]:
    with pytest.raises(ChapterFileError) as error:
        chapter_import(document=document)
    return error.value.errors


def test_yaml_nested_900_deep_is_refused_by_import_chapter_without_a_traceback(
    books, tmp_path, capsys
):
    deep = tmp_path / "deep.yaml"
    deep.write_text("code: II.7\nproblems: " + "[" * 900 + "]" * 900 + "\n")
    with pytest.raises(CommandError):
        call_command("import_chapter", str(deep))
    err = capsys.readouterr().err
    assert "nested more than 40 deep (LIMIT_YAML_DEPTH)" in err and "Traceback" not in err
    assert "line 2" in err


def test_a_chapter_file_over_the_size_limit_is_refused_before_it_is_parsed(settings):
    with pytest.raises(ChapterFileError) as error:
        load_yaml("title: " + "x" * settings.LIMIT_CHAPTER_FILE_BYTES)
    assert error.value.errors[0].startswith("file: is ")
    assert "LIMIT_CHAPTER_FILE_BYTES" in error.value.errors[0]


def test_json_nested_deeper_than_the_limit_is_refused_before_parsing():
    with pytest.raises(ChapterFileError) as error:
        json_document(b"[" * 100_000 + b"]" * 100_000)
    assert error.value.errors == ["body: nested more than 40 deep (LIMIT_JSON_DEPTH)"]
    assert json_document(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}') == {
        "a": "[" * 44
    }


def test_nul_anywhere_is_refused_with_its_path(books):
    document = sketch("II.7", summary="a\x00b")
    document["problems"][1]["statement"] = "\x00"
    document["problems"][2]["inputs"] = {"sc\x00res": [[0.0, 0.0]]}
    assert refused(document) == [
        "problems[1].statement: contains a NUL character (\\0), which text may not hold",
        "problems[2].inputs.sc\x00res: contains a NUL character (\\0), which text may not hold",
        "summary: contains a NUL character (\\0), which text may not hold",
    ]
    # YAML's "\0" escape is the way a file says it
    assert refused(load_yaml(yaml.safe_dump(sketch("II.7", title="x\x00")))) == [
        "title: contains a NUL character (\\0), which text may not hold"
    ]


@pytest.mark.parametrize("bomb", [DEF_BOMB, ARGUMENT_BOMB], ids=["def", "arguments"])
def test_a_formula_that_expands_too_far_is_refused_quickly_and_cheaply(books, bomb):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    [error] = refused(sketch("II.7", thesis=bomb))
    assert error.startswith("thesis: formula $") and "LIMIT_FORMULA_TOKENS" in error
    assert len(error) < 400  # the formula is quoted short
    peak_kib = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    assert peak_kib < 500 * 1024, "KaTeX stays under 500 MB"


def test_a_formula_of_more_expansions_than_the_limit_is_refused_naming_it(books, settings):
    """Few tokens, many expansions: KaTeX's own words said to raise its maxExpand."""
    expansions = "$\\def\\a{}" + "\\a" * (settings.LIMIT_FORMULA_EXPAND + 1) + "$"
    [error] = refused(sketch("II.7", thesis=expansions))
    assert error.startswith("thesis: formula $")
    limit = settings.LIMIT_FORMULA_EXPAND
    assert f"more than {limit} macro expansions (LIMIT_FORMULA_EXPAND)" in error
    assert "maxExpand" not in error
    fewer = "$\\def\\a{}" + "\\a" * (settings.LIMIT_FORMULA_EXPAND // 2) + "$"
    chapter_import(document=sketch("II.7", thesis=fewer))  # within the limit: stored
    assert Chapter.objects.filter(code="II.7").exists()


def test_a_bomb_stored_before_the_limits_is_shown_inert_and_small(chapter, root, settings):
    StrandItem.objects.filter(chapter=chapter).update(body=DEF_BOMB + " and " + ARGUMENT_BOMB)
    chapter.save()
    assert every_page_answers(chapter, root) == ALL_200
    page = Client().get("/chapters/II.7/")
    body = Client().get("/api/v1/chapters/II.7")
    assert len(page.content) < 200_000 and len(body.content) < 200_000
    assert b"math-error" in page.content


def test_a_chapter_rendering_over_the_cap_is_refused_and_one_stored_before_is_cut(
    chapter, root, settings
):
    settings.LIMIT_CHAPTER_HTML_BYTES = 50_000
    long_text = "A sentence of prose. " * 3000  # 63 KB of HTML
    [error] = refused(sketch("II.7", before_you_start=long_text))
    assert error.startswith("top level: renders to ") and "LIMIT_CHAPTER_HTML_BYTES" in error
    Chapter.objects.filter(pk=chapter.pk).update(before_you_start=long_text)
    assert every_page_answers(chapter, root) == ALL_200
    page = Client().get("/chapters/II.7/").content
    assert b"Left out: this chapter renders to more than 50000 bytes" in page
    assert len(page) < 50_000 + 60_000  # the cap plus the page around it


@pytest.mark.parametrize(
    "code", ["II.\u0664", "II.15\n", "II.1\u0665", "0.LA.0\u0661", "II.03", "II.0"]
)
def test_codes_are_ascii_in_files_and_in_the_database(books, code):
    errors = refused(sketch("II.7") | {"code": code})
    assert any(e.startswith("code: expected a code such as II.4") for e in errors)
    with pytest.raises(IntegrityError), transaction.atomic():
        Chapter.objects.create(code=code, book=Book.objects.get(numeral="II"), number=4, title="x")
    read = Client().get("/api/v1/chapters/II.%D9%A4")
    assert read.status_code == 422 and read.json()["errors"][0]["parameter"] == "code"


def test_a_tolerance_that_accepts_anything_is_refused_with_its_path(books):
    document = sketch("II.7")
    document["problems"][0]["tolerance"] = {"rtol": 1e308, "atol": 1e-9}
    document["problems"][1]["tolerance"] = {"rtol": 1e-6, "atol": 5.0}  # answer is 0.5
    document["problems"][2]["tolerance"] = {"rtol": 5e-4, "atol": 2.5e-4}  # the widest allowed
    errors = refused(document)
    assert [e.split(":")[0] for e in errors] == [
        "problems[0].tolerance.rtol",
        "problems[1].tolerance.atol",
    ]
    assert "at most 0.0005, got 1e+308" in errors[0]
    assert "at most 0.000499 for this answer" in errors[1]  # 0.0005 less rtol x 0.5


def test_an_answer_of_zeros_takes_no_atol(books):
    document = sketch("II.7")
    document["problems"][1]["solution"]["answer"] = [[0.0, 0.0]]
    document["problems"][1]["tolerance"] = {"rtol": 0.0, "atol": 1000.0}
    [error] = refused(document)
    assert error.startswith("problems[1].tolerance.atol: at most 0 for this answer, got 1000")


def test_a_wide_tolerance_is_refused_by_admin_checks_and_the_database(chapter):
    problem = Problem.objects.filter(chapter=chapter).first()
    problem.rtol = 1e308
    with pytest.raises(Exception, match="rtol"):
        problem.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        Problem.objects.filter(pk=problem.pk).update(rtol=1e308)


def test_a_wide_atol_stored_before_the_bound_is_never_verified(chapter):
    """The database bounds rtol; atol depends on the answer, so the verifier refuses it."""
    problem = Problem.objects.filter(chapter=chapter).first()
    solution = Solution.objects.get(problem=problem)
    Problem.objects.filter(pk=problem.pk).update(atol=1e300)
    Solution.objects.filter(pk=solution.pk).update(answer=[[123.0, -7.0]])  # wrong
    from curriculum.domain.verification import verdict_request

    verdict_request(solution=Solution.objects.get(pk=solution.pk))
    verdict_decide(solution_id=solution.pk)
    verdict = Verdict.objects.get(solution=solution)
    assert verdict.status == Verdict.Status.ERROR and "tolerance too wide" in verdict.message


def test_the_api_answers_hostile_bodies_with_the_error_shape(books, alice_token):
    client = Client()

    def put(body: bytes):
        return client.put(
            "/api/v1/chapters/II.7", body, content_type="application/json", **alice_token
        )

    deep = put(b'{"code": "II.7", "problems": ' + b"[" * 1000 + b"]" * 1000 + b"}")
    assert deep.status_code == 400  # not read at all, as malformed JSON is not
    assert deep.json()["errors"] == [
        {"pointer": "", "code": "limit", "detail": "nested more than 40 deep (LIMIT_JSON_DEPTH)"}
    ]
    nul = put(json.dumps(sketch("II.7", title="a\x00b")).encode())
    [error] = nul.json()["errors"]
    assert nul.status_code == 422 and error["pointer"] == "/title"
    assert error["detail"].startswith("contains a NUL")
    bomb = put(json.dumps(sketch("II.7", thesis=DEF_BOMB)).encode())
    assert bomb.status_code == 422
    assert "LIMIT_FORMULA_TOKENS" in bomb.json()["errors"][0]["detail"]
    big = put(b" " * (3 * 1024 * 1024) + json.dumps(sketch("II.7")).encode())
    assert big.status_code == 413
    assert big.json() == {
        "type": "about:blank",
        "title": "Request Entity Too Large",
        "status": 413,
        "detail": "the body is too large",
        "errors": [
            {
                "pointer": "",
                "code": "limit",
                "detail": "at most 2,097,152 bytes (LIMIT_API_BODY_BYTES)",
            }
        ],
    }
    assert not Chapter.objects.filter(code="II.7").exists()
    assert put(json.dumps(sketch("II.7")).encode()).status_code == 201


def test_admin_checks_refuse_nul_in_json_fields(chapter):
    from django.core.exceptions import ValidationError

    problem = Problem.objects.filter(chapter=chapter).first()
    problem.inputs = {"scores\x00": [[0.0, 0.0]]}
    with pytest.raises(ValidationError) as error:
        problem.full_clean()
    [message] = error.value.message_dict["inputs"]
    assert message == "inputs.scores\x00: contains a NUL character (\\0)"
    solution = Solution.objects.get(problem=problem)
    solution.answer = {"out\x00": 1.0}
    with pytest.raises(ValidationError, match="NUL"):
        solution.full_clean()


def test_no_accepted_chapter_makes_a_page_or_body_beyond_the_documented_cap(chapter, settings):
    """The largest chapter the cap accepts: its page is at most the cap plus the page frame,
    its API body at most the cap (JSON-escaped) plus its source."""
    settings.LIMIT_CHAPTER_HTML_BYTES = 300_000
    formulas = " ".join(f"$\\frac{{a_{{{i}}}}}{{b^{{{i}}}}}$" for i in range(150))
    document = sketch("II.7")
    for size in range(40, 0, -1):  # the most text the cap lets through
        document["before_you_start"] = (formulas + "\n\n") * size
        try:
            chapter_import(document=document)
            break
        except ChapterFileError as error:
            assert "LIMIT_CHAPTER_HTML_BYTES" in error.errors[0]
    page = Client().get("/chapters/II.7/").content
    body = Client().get("/api/v1/chapters/II.7").content
    source = len(json.dumps(document).encode())
    assert 250_000 < len(page) < 300_000 + 60_000
    assert len(body) < 2 * 300_000 + source
    print(f"cap 300000: page {len(page)}, API body {len(body)}, source {source}")


def test_a_yaml_key_that_is_a_list_or_mapping_is_refused_with_its_line():
    for text in ("code: II.20\n? [a, b]\n: c\n", "code: II.20\n? {a: 1}\n: c\n"):
        with pytest.raises(ChapterFileError) as error:
            load_yaml(text)
        assert error.value.errors == [
            "line 2, column 3: not valid YAML: a key must be a plain name, not a list or mapping"
        ]


def test_a_json_key_given_twice_is_refused():
    with pytest.raises(ChapterFileError) as error:
        json_document(b'{"thesis": "first", "thesis": "second"}')
    assert "the key 'thesis' appears twice in one object" in error.value.errors[0]


@pytest.mark.parametrize(
    "body", ['{"code": "II.7\\u0000"}', '{"book": "II", "code": "II.7\\u0000"}']
)
def test_a_nul_in_the_code_is_refused_by_its_path(books, alice_token, body):
    """The code names the row every later check reads: a NUL in it is refused first, not sent
    to PostgreSQL (which cannot hold one) as a 500."""
    answer = Client().put(
        "/api/v1/chapters/II.7", body.encode(), content_type="application/json", **alice_token
    )
    assert answer.status_code == 422
    assert {
        "pointer": "/code",
        "code": "invalid",
        "detail": "contains a NUL character (\\0), which text may not hold",
    } in answer.json()["errors"]
    assert not Chapter.objects.filter(code__startswith="II.7").exists()


def heavy_problem(i: int) -> dict:
    """Five generated 256 x 256 inputs: each within its own limit (65,536 numbers)."""
    drawn = {"generate": "normal", "shape": [256, 256]}
    names = ("x", "w_q", "w_k", "w_v", "w_o")
    return {
        "key": f"p{i}",
        "kind": "exercise",
        "variant": "v",
        "statement": "Compute it.",
        "operation": "multi_head_attention",
        "inputs": {n: drawn | {"seed": 5 * i + s} for s, n in enumerate(names)} | {"heads": 4},
        "ask": {"output": "out", "row": 0, "col": 0},
        "tolerance": {"digits": 6},
        "solution": {"steps": "Do it.", "answer": 0.5, "published": True},
    }


def test_many_problems_drawing_big_inputs_are_refused_before_the_request_draws_them(
    books, monkeypatch, settings
):
    """283 such problems in a 174 KB body made a PUT draw 93 million numbers, twice, in the
    request: 18 s each, and five at once held every web worker past its timeout. The chapter's
    generated numbers are counted from their shapes first; past LIMIT_CHAPTER_GENERATED the
    document is refused at the problem that passes it, and nothing after it is drawn."""
    import attention.generated

    drawn: list[int] = []
    generate = attention.generated.generate
    monkeypatch.setattr(
        attention.generated,
        "generate",
        lambda name, spec, instance=0: drawn.append(256 * 256) or generate(name, spec, instance),
    )
    errors = refused(sketch("II.9", problems=[heavy_problem(i) for i in range(283)]))
    limit = settings.LIMIT_CHAPTER_GENERATED
    assert errors == [
        "problems[3].inputs: the generated inputs of problems[0] to here draw 1,310,720 numbers; "
        f"a chapter's draw at most {limit:,} (LIMIT_CHAPTER_GENERATED)"
    ]
    assert sum(drawn) <= 2 * limit  # problems 0 to 2 alone, drawn by their checks
    assert not Chapter.objects.filter(code="II.9").exists()
    chapter_import(document=sketch("II.9", problems=[heavy_problem(i) for i in range(3)]))
    assert Problem.objects.filter(chapter__code="II.9").count() == 3  # within it: imported
