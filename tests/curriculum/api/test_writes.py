"""Writing with a token: import through the importer, publish through the gate, re-verify."""

import json

from curriculum.domain.chapter_files.schema import ChapterDocument
from curriculum.domain.tokens import token_revoke
from curriculum.models import ApiToken, Chapter, Release, Verdict
from tests.conftest import sketch, verify_now
from tests.curriculum.api.conftest import released


def put(client, code, document, token, **extra):
    return client.put(
        f"/api/v1/chapters/{code}",
        json.dumps(document),
        content_type="application/json",
        **token,
        **extra,
    )


def test_an_author_token_creates_then_updates_a_chapter(client, books, alice_token):
    created = put(client, "II.7", sketch(), alice_token)
    assert created.status_code == 201
    assert created.json() == {
        "code": "II.7",
        "created": True,
        "verifications_enqueued": 3,
        "warnings": [],
        "claims": 0,
    }
    updated = put(client, "II.7", sketch(title="Renamed"), alice_token)
    assert updated.status_code == 200 and not updated.json()["created"]
    assert Chapter.objects.get(code="II.7").title == "Renamed"


def test_a_refused_document_gets_422_with_every_error_and_its_path(client, books, alice_token):
    document = sketch(maturity="M9", number=0)
    document["problems"][0]["kind"] = "guess"
    response = put(client, "II.7", document, alice_token)
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    pointers = {e["pointer"] for e in response.json()["errors"]}
    assert {"/maturity", "/number", "/problems/0/kind"} <= pointers
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_problem_over_the_work_budget_gets_422_with_its_path(client, books, alice_token):
    weight = {"generate": "normal", "shape": [16, 16], "seed": 2}
    document = sketch()
    document["problems"][2] |= {
        "operation": "multi_head_attention",
        "inputs": {
            "x": {"generate": "normal", "shape": [4096, 16], "seed": 1},
            "heads": 4,
            "w_q": weight,
            "w_k": weight,
            "w_v": weight,
            "w_o": weight,
        },
    }
    response = put(client, "II.7", document, alice_token)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["pointer"], error["code"]) == ("/problems/2/inputs", "limit")
    assert "LIMIT_PROBLEM_WORK" in error["detail"]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_document_for_another_code_or_not_json_is_refused(client, books, alice_token):
    assert put(client, "II.8", sketch("II.7"), alice_token).status_code == 422
    response = client.put(
        "/api/v1/chapters/II.7", "{not json", content_type="application/json", **alice_token
    )
    [error] = response.json()["errors"]
    assert response.status_code == 400 and (error["pointer"], error["code"]) == ("", "invalid_json")
    assert error["detail"].startswith("not valid JSON")


def test_writing_needs_a_token(client, books, alice):
    assert put(client, "II.7", sketch(), {}).status_code == 401
    client.force_login(alice)  # a browser session is for reading, not writing
    assert put(client, "II.7", sketch(), {}).status_code == 401


def test_a_revoked_token_is_refused(client, books, alice_token):
    token_revoke(token=ApiToken.objects.get())
    assert put(client, "II.7", sketch(), alice_token).status_code == 401


def test_an_editor_token_publishes_and_gets_the_release(client, books, erin_token):
    put(client, "II.7", sketch(), erin_token)
    verify_now(Chapter.objects.get(code="II.7"))
    response = client.post("/api/v1/chapters/II.7/publish", **erin_token)
    assert response.status_code == 201
    assert response.json()["release"] == 1 and response.json()["derived"]["owes"] == 0
    assert Release.objects.get().created_by.username == "erin"


def test_a_publish_may_carry_release_notes_readers_are_shown(client, books, erin_token, settings):
    put(client, "II.7", sketch(), erin_token)
    verify_now(Chapter.objects.get(code="II.7"))
    publish = "/api/v1/chapters/II.7/publish"
    limit = settings.LIMIT_REVIEW_TEXT_CHARS
    too_long = client.post(
        publish, json.dumps({"notes": "x" * (limit + 1)}), "application/json", **erin_token
    )
    assert too_long.status_code == 422
    [error] = too_long.json()["errors"]
    assert error["pointer"] == "/notes" and error["code"] == "limit"
    said = f"is {limit + 1} characters; at most {limit} (LIMIT_REVIEW_TEXT_CHARS)"
    assert error["detail"] == said
    nul = client.post(publish, '{"notes": "a\\u0000b"}', "application/json", **erin_token)
    assert nul.status_code == 422  # PostgreSQL holds no NUL: it had reached the INSERT, a 500
    assert nul.json()["errors"] == [
        {"pointer": "/notes", "code": "invalid", "detail": "contains a NUL character (\\0)"}
    ]
    unknown = client.post(publish, json.dumps({"note": "x"}), "application/json", **erin_token)
    assert unknown.status_code == 422
    broken = client.post(publish, '{"notes": ', "application/json", **erin_token)
    assert broken.status_code == 400  # as malformed JSON is on every route
    assert broken.json()["errors"][0]["code"] == "invalid_json"
    assert client.post(publish, "notes", "text/plain", **erin_token).status_code == 415
    assert not Release.objects.exists()

    notes = {"notes": "Exercise 3 is new.\r\nThe softmax row is explained again."}
    response = client.post(publish, json.dumps(notes), "application/json", **erin_token)
    assert response.status_code == 201
    as_stored = "Exercise 3 is new.\nThe softmax row is explained again."  # LF, as all text
    assert response.json()["release_notes"] == as_stored
    assert Release.objects.get().notes == as_stored
    no_boundary = client.post(publish, "notes=x", "multipart/form-data", **erin_token)
    assert no_boundary.status_code == 200  # a form is never read: an unchanged publish
    page = client.get("/chapters/II.7/releases/").content.decode()
    assert "Exercise 3 is new.<br>The softmax row is explained again." in page
    schema = client.get("/api/v1/openapi.json").json()
    body = schema["paths"]["/api/v1/chapters/{code}/publish"]["post"]["requestBody"]
    assert not body.get("required")
    described = schema["components"]["schemas"]["PublishIn"]["properties"]["notes"]
    assert described["maxLength"] == limit


def test_a_publish_naming_the_version_reviewed_is_refused_after_another_edit(
    client, books, erin_token, alice_token
):
    """If-Match: the ETag of the source the Editor reviewed. An author's edit since: 412 with
    the reason, nothing released; the version now (or no If-Match at all) publishes."""
    put(client, "II.7", sketch(), erin_token)
    verify_now(Chapter.objects.get(code="II.7"))
    reviewed = client.get("/api/v1/chapters/II.7/source", **erin_token)["ETag"]
    put(client, "II.7", sketch(thesis="An author's late claim."), alice_token)

    refused = client.post("/api/v1/chapters/II.7/publish", HTTP_IF_MATCH=reviewed, **erin_token)
    assert refused.status_code == 412
    [changed, *_] = refused.json()["errors"]
    assert changed["detail"].startswith("the chapter changed since you reviewed it")
    assert not Release.objects.exists()
    malformed = client.post("/api/v1/chapters/II.7/publish", HTTP_IF_MATCH="yes", **erin_token)
    assert malformed.status_code == 412  # a guard asked for, never an unguarded publish

    now = client.get("/api/v1/chapters/II.7/source", **erin_token)["ETag"]
    published = client.post("/api/v1/chapters/II.7/publish", HTTP_IF_MATCH=now, **erin_token)
    assert published.status_code == 201
    assert published.json()["thesis"] == "An author's late claim."
    again = client.post("/api/v1/chapters/II.7/publish", **erin_token)  # nothing changed since
    assert (again.status_code, again["Release-Unchanged"]) == (200, "1")
    assert again.json()["thesis"] == "An author's late claim."
    assert Release.objects.count() == 1


def test_the_chapter_reads_etag_sent_as_if_match_is_told_it_is_no_source_version(
    client, books, erin_token
):
    """The ETag of GET /chapters/{code} names what readers are served, not the source: sent
    as If-Match on an unchanged chapter it is refused (412) as no version of the source, never
    as a chapter someone changed, and nothing is written or released."""
    put(client, "II.7", sketch(), erin_token)
    verify_now(Chapter.objects.get(code="II.7"))
    read = client.get("/api/v1/chapters/II.7", **erin_token)["ETag"]
    before = client.get("/api/v1/chapters/II.7/source", **erin_token)["ETag"]
    for refused in (
        client.post("/api/v1/chapters/II.7/publish", HTTP_IF_MATCH=read, **erin_token),
        put(client, "II.7", sketch(title="Over a read"), erin_token, HTTP_IF_MATCH=read),
    ):
        assert refused.status_code == 412
        assert refused.json()["detail"].startswith("If-Match names no version of the working")
        [error] = refused.json()["errors"]
        assert error["code"] == "precondition_failed" and error["header"] == "If-Match"
        assert "no version of the working copy" in error["detail"]
        assert "changed" not in error["detail"]
    assert not Release.objects.exists()
    assert client.get("/api/v1/chapters/II.7/source", **erin_token)["ETag"] == before


def test_publishing_refused_by_the_gate_is_409_with_every_reason(client, books, erin_token):
    put(client, "II.7", sketch(), erin_token)
    response = client.post("/api/v1/chapters/II.7/publish", **erin_token)
    assert response.status_code == 409
    reasons = response.json()["errors"]
    assert len([r for r in reasons if "not verified" in r["detail"]]) == 3
    assert {r["code"] for r in reasons} == {"not_publishable"}
    assert not Release.objects.exists()


def at(document, pointer: str):
    """What an RFC 6901 pointer names in a document."""
    for step in pointer.split("/")[1:]:
        document = document[int(step)] if isinstance(document, list) else document[step]
    return document


def test_each_gate_reason_points_at_the_part_of_the_chapter_file_it_names(
    client, books, erin_token
):
    document = sketch(thesis="  ")
    document["strands"]["basics"]["items"] = []
    put(client, "II.7", document, erin_token)
    source = client.get("/api/v1/chapters/II.7/source", **erin_token).json()
    response = client.post("/api/v1/chapters/II.7/publish", **erin_token)
    assert response.status_code == 409
    reasons = response.json()["errors"]
    pointers = {r["pointer"] for r in reasons}
    assert {"/thesis", "/strands/basics", "/problems/0/solution"} <= pointers
    assert all(at(source, pointer) is not None for pointer in pointers)
    named = {  # each unverified answer's reason names the problem its pointer is at
        r["detail"].split(":")[0]: at(source, r["pointer"].removesuffix("/solution"))["key"]
        for r in reasons
        if "not verified" in r["detail"]
    }
    assert named == {f"problem {p['key']}": p["key"] for p in source["problems"]}


def test_an_author_token_cannot_publish(client, books, alice_token):
    put(client, "II.7", sketch(), alice_token)
    verify_now(Chapter.objects.get(code="II.7"))
    response = client.post("/api/v1/chapters/II.7/publish", **alice_token)
    assert response.status_code == 403
    assert not Release.objects.exists()


def test_publishing_an_unknown_chapter_is_404(client, books, erin_token):
    assert client.post("/api/v1/chapters/II.70/publish", **erin_token).status_code == 404


def test_verify_requeues_every_solution(client, seeded, alice_token):
    response = client.post("/api/v1/chapters/II.3/verify", **alice_token)
    assert response.status_code == 202 and response.json()["enqueued"] > 0
    pending = Verdict.objects.filter(solution__problem__chapter__code="II.3", status="pending")
    assert pending.count() == response.json()["enqueued"]


READER_ONLY = {
    "format",
    "references",
    "book_title",
    "derived",
    "release",
    "latest_release",
    "released_at",
    "release_notes",
}


def _document_of(body):
    """What a client sends back of what it read: the document fields, not the derived ones."""
    if isinstance(body, list):
        return [_document_of(item) for item in body]
    if not isinstance(body, dict):
        return body
    return {
        key: _document_of(value)
        for key, value in body.items()
        if not key.endswith("_html") and key != "verification"
    }


def test_a_released_chapter_read_in_preview_puts_back_as_it_was(client, seeded, erin, erin_token):
    released("II.7", erin, apparatus=["0.LA.01"])
    before = client.get("/api/v1/chapters/II.7?preview=true", **erin_token).json()
    document = {k: v for k, v in _document_of(before).items() if k not in READER_ONLY}
    document["apparatus"] = [entry["code"] for entry in document["apparatus"]]
    assert document["state"] == "published"
    ChapterDocument.model_validate(document)  # the published schema accepts it
    response = put(client, "II.7", document, erin_token)
    assert response.status_code == 200, response.json()
    after = client.get("/api/v1/chapters/II.7?preview=true", **erin_token).json()
    assert after == before


def test_verifying_an_unknown_chapter_is_404(client, books, erin_token):
    assert client.post("/api/v1/chapters/II.70/verify", **erin_token).status_code == 404


def test_an_authors_token_cannot_withdraw_a_published_chapter(
    client, books, erin, alice_token, erin_token
):
    released("II.7", erin)
    response = put(client, "II.7", sketch("II.7", state="draft"), alice_token)
    assert response.status_code == 403
    assert "for Editors" in response.json()["detail"]
    assert Chapter.objects.get(code="II.7").state == "published"
    assert put(client, "II.7", sketch("II.7", state="draft"), erin_token).status_code == 200
    assert Chapter.objects.get(code="II.7").state == "draft"


def test_a_hint_naming_nothing_gets_422_with_its_path(client, books, alice_token):
    document = sketch()
    document["problems"][1]["hints"] = ["See @prop:nope."]
    response = put(client, "II.7", document, alice_token)
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "pointer": "/problems/1/hints/0",
            "code": "invalid",
            "detail": "reference @prop:nope: II.7 has no proposition nope (it has: none)",
        }
    ]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_an_image_from_elsewhere_is_refused_with_its_path_and_media_is_not(
    client, books, alice_token, heads
):
    outside = sketch(before_you_start="See ![a cat](https://example.org/a.png).")
    response = put(client, "II.7", outside, alice_token)
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "pointer": "/before_you_start",
            "code": "invalid",
            "detail": "image `https://example.org/a.png` is not in the media library: pages "
            "show images only from this site; upload it in admin (Media) and write "
            "![what it shows](media:name)",
        }
    ]
    shown = sketch(before_you_start="See ![two heads](media:heads.png).")
    assert put(client, "II.7", shown, alice_token).status_code == 201
    html = client.get("/api/v1/chapters/II.7").json()["before_you_start_html"]
    assert '<img class="media" src="/media/heads.png" alt="two heads"' in html


def test_markup_readers_would_see_as_source_gets_422_with_its_path(client, books, alice_token):
    document = sketch(before_you_start="$\\htmlId{a}{x}$", problem_statement="A[^9].")
    document["strands"]["basics"]["items"][0]["body"] = "> " * 30 + "deep"
    response = put(client, "II.7", document, alice_token)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [error["pointer"] for error in errors] == [
        "/before_you_start",
        "/problem_statement",
        "/strands/basics/items/0/body",
    ]
    assert "\\htmlId is not supported in a formula" in errors[0]["detail"]
    assert errors[1]["detail"].startswith("footnote mark `[^9]` has no note")
    assert "(LIMIT_MARKDOWN_NESTING)" in errors[2]["detail"]
    assert not Chapter.objects.filter(code="II.7").exists()
