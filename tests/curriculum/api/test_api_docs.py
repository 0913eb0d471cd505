"""The schema and the interactive docs are served, and the docs load nothing from elsewhere."""

import re

import ninja.main
from django.core.cache import cache


def test_the_openapi_schema_declares_every_error_status(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    chapter = schema["paths"]["/api/v1/chapters/{code}"]
    assert {"200", "304", "404", "422", "429"} <= set(chapter["get"]["responses"])
    publish = schema["paths"]["/api/v1/chapters/{code}/publish"]["post"]
    assert {"201", "401", "403", "404", "409", "412", "422"} <= set(publish["responses"])
    assert {"in": "header", "name": "If-Match"}.items() <= publish["parameters"][-1].items()
    assert "ChapterDocument" in schema["components"]["schemas"]


def test_the_docs_page_uses_only_this_sites_scripts_under_the_strict_csp(client, db):
    response = client.get("/api/v1/docs")
    html = response.content.decode()
    assert response.status_code == 200
    assert "script-src 'self'" in response["Content-Security-Policy"]
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/static/") for s in sources)
    assert "<script>" not in html  # no inline script (the settings block is JSON data)


EXAMPLE_PARAMETERS = {"{code}": "II.4", "{numeral}": "II", "{number}": "1"}


def test_every_read_answers_a_revoked_or_unknown_token_with_the_documented_401(client, seeded):
    schema = client.get("/api/v1/openapi.json").json()
    reads = [path for path, operations in schema["paths"].items() if "get" in operations]
    assert "/api/v1/ping" in reads and "/api/v1/chapters/{code}/releases/{number}" in reads
    for path in reads:
        url = path
        for placeholder, value in EXAMPLE_PARAMETERS.items():
            url = url.replace(placeholder, value)
        response = client.get(url, HTTP_AUTHORIZATION="Bearer cur_nope")
        assert response.status_code == 401, url
        assert response.json()["detail"], url
        assert "401" in schema["paths"][path]["get"]["responses"], path


def test_the_write_operations_keep_their_operation_ids(client, db):
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    operation_ids = {
        paths["/api/v1/chapters/{code}/publish"]["post"]["operationId"],
        paths["/api/v1/chapters/{code}/verify"]["post"]["operationId"],
    }
    assert operation_ids == {"chapter_publish", "chapter_verify"}
    names = {op["operationId"]: op["summary"] for ops in paths.values() for op in ops.values()}
    assert {"chapter_read", "chapter_put", "search_read", "instance_check"} <= set(names)
    assert "Search Read" not in names.values() and all(names.values())


def test_the_schema_is_built_once_per_process(client, db, monkeypatch):
    built = []
    build = ninja.main.get_schema
    monkeypatch.setattr(ninja.main, "get_schema", lambda **kw: built.append(1) or build(**kw))
    bodies = {client.get("/api/v1/openapi.json").content for _ in range(5)}
    assert len(bodies) == 1 and len(built) <= 1  # none when an earlier test built it


def test_the_schema_and_the_docs_are_throttled_like_other_anonymous_reads(
    client, db, settings, erin_token
):
    settings.API_ANON_RATE = "2/min"
    address = "2001:db8::16"
    cache.clear()
    read = [client.get("/api/v1/openapi.json", REMOTE_ADDR=address) for _ in range(2)]
    refused = client.get("/api/v1/docs", REMOTE_ADDR=address)
    assert [r.status_code for r in read] == [200, 200] and refused.status_code == 429
    assert refused.json()["detail"] and refused["Retry-After"] == "60"
    with_a_token = client.get("/api/v1/openapi.json", REMOTE_ADDR=address, **erin_token)
    assert with_a_token.status_code == 200


def test_the_schema_and_the_docs_answer_another_method_405_in_the_apis_shape(db):
    """They are read only: a POST is 405 naming GET and HEAD (it was the CSRF check's 403)."""
    from django.test import Client

    for path in ("/api/v1/openapi.json", "/api/v1/docs"):
        answer = Client(enforce_csrf_checks=True).post(path, "{}", "application/json")
        assert answer.status_code == 405, path
        assert answer["Content-Type"] == "application/problem+json"
        assert {"GET", "HEAD"} <= {m.strip() for m in answer["Allow"].split(",")}
