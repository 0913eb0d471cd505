"""The chapter document through the API: GET source and PUT round-trip, in YAML and JSON."""

import json

import pytest
import yaml
from openapi_spec_validator import validate

from curriculum.domain.chapter_files import chapter_export, chapter_import
from curriculum.models import Chapter, Verdict
from tests.conftest import problem, sketch, verify_now

YAML = "application/yaml"
GENERATED = {"generate": "normal", "shape": [1, 2], "seed": 4, "round": 1}


@pytest.fixture
def chapter_with_everything(books):
    """Unpublished parts, a generated input, a placeholder and both tolerance modes."""
    document = sketch(
        problems=[
            problem("p1", "worked") | {"tolerance": {"digits": 4}},
            problem("p2")
            | {"inputs": {"scores": GENERATED}, "statement": "Softmax of $${{ inputs.scores }}$$"},
            problem("p3", published=False),
        ]
    )
    document["strands"]["basics"]["items"].append({"title": "Hidden", "published": False})
    chapter_import(document=document)
    verify_now(Chapter.objects.get(code="II.7"))


def source(client, token, accept=YAML, **headers):
    return client.get("/api/v1/chapters/II.7/source", HTTP_ACCEPT=accept, **token, **headers)


def test_yaml_source_is_exactly_what_export_writes(client, chapter_with_everything, alice_token):
    response = source(client, alice_token)
    assert response.status_code == 200
    assert response["Content-Type"].startswith(YAML)
    assert response.content.decode() == chapter_export(code="II.7")
    assert "Hidden" in response.content.decode()  # the working copy, unpublished parts too


def test_yaml_get_put_get_is_unchanged_and_keeps_the_verdicts(
    client, chapter_with_everything, alice_token
):
    before = source(client, alice_token).content
    decided = set(
        Verdict.objects.filter(solution__problem__chapter__code="II.7").values_list(
            "pk", "fingerprint", "status"
        )
    )
    assert "pending" not in {status for _, _, status in decided}
    put = client.put("/api/v1/chapters/II.7", before, content_type=YAML, **alice_token)
    assert put.status_code == 200, put.json()
    assert put.json()["verifications_enqueued"] == 0
    assert source(client, alice_token).content == before
    assert (
        set(
            Verdict.objects.filter(solution__problem__chapter__code="II.7").values_list(
                "pk", "fingerprint", "status"
            )
        )
        == decided
    )


def test_json_get_put_get_is_unchanged(client, chapter_with_everything, alice_token):
    before = source(client, alice_token, "application/json")
    assert before["Content-Type"] == "application/json"
    document = before.json()
    assert document["problems"][1]["inputs"]["scores"] == GENERATED
    put = client.put(
        "/api/v1/chapters/II.7",
        json.dumps(document),
        content_type="application/json",
        **alice_token,
    )
    assert put.status_code == 200, put.json()
    assert source(client, alice_token, "application/json").json() == document
    assert yaml.safe_load(source(client, alice_token).content) == document


def test_bad_yaml_is_refused_with_line_and_column(client, books, alice_token):
    response = client.put(
        "/api/v1/chapters/II.7", "code: II.7\ntitle: [unclosed\n", content_type=YAML, **alice_token
    )
    assert response.status_code == 422
    [error, *_] = response.json()["errors"]
    assert error["detail"].startswith("line 3, column 1: not valid YAML")
    assert (error["pointer"], error["code"]) == ("", "invalid")  # the whole body, at its line
    assert not Chapter.objects.filter(code="II.7").exists()


def test_source_needs_a_staff_token_and_an_existing_chapter(
    client, chapter_with_everything, alice_token
):
    assert client.get("/api/v1/chapters/II.7/source").status_code == 401
    assert client.get("/api/v1/chapters/II.70/source", **alice_token).status_code == 404


def test_the_served_schema_is_valid_openapi_3_1(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    validate(schema)  # raises with every reason when it is not


def put_source(client, token, document, **headers):
    return client.put(
        "/api/v1/chapters/II.7",
        json.dumps(document),
        content_type="application/json",
        **token,
        **headers,
    )


def test_two_writers_of_one_version_cannot_lose_each_others_edit(
    client, chapter_with_everything, alice_token, erin_token
):
    """A reads, B reads, A writes: B's write of the version it read is refused (412) and writes
    nothing; read again, B's write goes through over A's edit."""
    read_a, read_b = source(client, alice_token, "application/json"), source(client, erin_token)
    assert read_a["ETag"] != read_b["ETag"]  # one version, a tag for each form
    mine = read_a.json() | {"title": "A's title"}
    written = put_source(client, alice_token, mine, HTTP_IF_MATCH=read_a["ETag"])
    assert written.status_code == 200 and written["ETag"] != read_a["ETag"]

    theirs = yaml.safe_load(read_b.content) | {"summary": "B's summary"}
    stale = put_source(client, erin_token, theirs, HTTP_IF_MATCH=read_b["ETag"])
    assert stale.status_code == 412 and stale.json()["errors"]
    chapter = Chapter.objects.get(code="II.7")
    assert chapter.title == "A's title" and chapter.summary != "B's summary"

    again = source(client, erin_token)
    assert source(client, erin_token, "application/json")["ETag"] == written["ETag"]
    merged = yaml.safe_load(again.content) | {"summary": "B's summary"}
    assert put_source(client, erin_token, merged, HTTP_IF_MATCH=again["ETag"]).status_code == 200
    chapter.refresh_from_db()
    assert (chapter.title, chapter.summary) == ("A's title", "B's summary")


def test_the_source_version_moves_with_its_text_only(client, chapter_with_everything, alice_token):
    before = source(client, alice_token)
    assert source(client, alice_token, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304
    Verdict.objects.filter(solution__problem__chapter__code="II.7").update(status="pending")
    verify_now(Chapter.objects.get(code="II.7"))  # verdicts decided again: the text is the same
    assert source(client, alice_token)["ETag"] == before["ETag"]


def test_each_form_has_its_own_etag_and_either_guards_a_write(
    client, chapter_with_everything, alice_token
):
    """A cache keyed on the ETag never answers a YAML request with the JSON's 304, nor the
    reverse (Vary: Accept); both tags name the one version a writer read."""
    as_yaml, as_json = source(client, alice_token), source(client, alice_token, "application/json")
    assert as_yaml["ETag"] != as_json["ETag"] and "Accept" in as_yaml["Vary"]
    for accept, other in ((YAML, as_json), ("application/json", as_yaml)):
        crossed = source(client, alice_token, accept, HTTP_IF_NONE_MATCH=other["ETag"])
        assert crossed.status_code == 200 and crossed.content
    document = as_json.json() | {"title": "Guarded by the YAML's tag"}
    put = put_source(client, alice_token, document, HTTP_IF_MATCH=as_yaml["ETag"])
    assert put.status_code == 200
    assert source(client, alice_token, "application/json")["ETag"] == put["ETag"]


@pytest.mark.parametrize("if_match", ['W/"x"', '"not-a-version"', '"a", "b"', "", " ", ","])
def test_a_version_that_is_not_the_working_copy_writes_nothing(
    client, chapter_with_everything, alice_token, if_match
):
    document = source(client, alice_token, "application/json").json() | {"title": "Changed"}
    assert put_source(client, alice_token, document, HTTP_IF_MATCH=if_match).status_code == 412
    assert Chapter.objects.get(code="II.7").title != "Changed"


def test_if_match_any_needs_a_working_copy(client, books, alice_token):
    assert put_source(client, alice_token, sketch(), HTTP_IF_MATCH="*").status_code == 412
    assert not Chapter.objects.filter(code="II.7").exists()
    assert put_source(client, alice_token, sketch()).status_code == 201
    assert (
        put_source(client, alice_token, sketch(title="Again"), HTTP_IF_MATCH="*").status_code == 200
    )


@pytest.mark.parametrize("shape", ["w/{}", "W/ {}", "xyz{}", "{} junk", "W/{}"])
def test_a_malformed_or_weak_form_of_the_right_version_writes_nothing(
    client, chapter_with_everything, alice_token, shape
):
    read = source(client, alice_token, "application/json")
    document = read.json() | {"title": "Changed"}
    header = shape.format(read["ETag"])
    assert put_source(client, alice_token, document, HTTP_IF_MATCH=header).status_code == 412
    assert Chapter.objects.get(code="II.7").title != "Changed"
    listed = f'"other", {read["ETag"]}'
    assert put_source(client, alice_token, document, HTTP_IF_MATCH=listed).status_code == 200


def test_if_none_match_any_creates_only(client, books, alice_token):
    assert put_source(client, alice_token, sketch(), HTTP_IF_NONE_MATCH="*").status_code == 201
    again = put_source(client, alice_token, sketch(title="Over"), HTTP_IF_NONE_MATCH="*")
    assert again.status_code == 412
    assert Chapter.objects.get(code="II.7").title != "Over"


def test_if_none_match_naming_the_working_copy_writes_nothing(
    client, chapter_with_everything, alice_token
):
    """RFC 9110: If-None-Match names the versions a write may not go over, compared weakly (a
    hostile test's PUT with the current ETag there was written, 200)."""
    read = source(client, alice_token, "application/json")
    document = read.json() | {"title": "Changed"}
    for header in (read["ETag"], f'"other", W/{read["ETag"]}', "not a tag"):
        refused = put_source(client, alice_token, document, HTTP_IF_NONE_MATCH=header)
        assert refused.status_code == 412, header
        assert refused.json()["errors"][0]["header"] == "If-None-Match"
        assert refused.json()["detail"].startswith("the chapter is at a version If-None-Match")
    assert Chapter.objects.get(code="II.7").title != "Changed"
    written = put_source(client, alice_token, document, HTTP_IF_NONE_MATCH='"other"')
    assert written.status_code == 200 and Chapter.objects.get(code="II.7").title == "Changed"


def test_a_put_citing_an_unknown_work_is_refused_with_its_path(client, books, alice_token):
    document = sketch()
    document["thesis"] = "As @cite:nobody2020 showed."
    response = put_source(client, alice_token, document)
    assert response.status_code == 422
    assert {
        "pointer": "/thesis",
        "code": "invalid",
        "detail": "reference @cite:nobody2020: Book II's bibliography has no work nobody2020",
    } in response.json()["errors"]
    assert not Chapter.objects.filter(code="II.7").exists()


@pytest.mark.parametrize(
    ("accept", "kind"),
    [
        ("application/yaml;q=0.5, application/json", "application/json"),
        ("application/json, application/yaml", "application/json"),
        ("*/*", "application/json"),
        ("text/yaml", YAML),
        ("application/json;q=0.1, application/x-yaml", YAML),
    ],
)
def test_the_source_form_follows_the_client_s_preference(
    client, chapter_with_everything, alice_token, accept, kind
):
    """YAML had been sent whenever Accept named it, even below JSON by its q-value."""
    assert source(client, alice_token, accept=accept)["Content-Type"].startswith(kind)
