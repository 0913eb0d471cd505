"""Schemathesis fuzzes every operation of the published schema against the WSGI app.

Anonymously, every read is exercised with generated parameters and every write must refuse
(401) as documented. With an editor's token the writes are exercised too. One check is
relaxed for PUT: a chapter document can match the schema and still break a rule no JSON
Schema can state (a code must start with its book's numeral, apparatus codes must exist, the
mathematics target follows the maturity ladder, inputs must fit the engine operation), so the
documented 422 with every error is the right answer there. And for publish: a generated
If-Match names a version of the working copy that is not the current one, so the documented
412 is the right answer there. Random examples are few per operation (FUZZ says why).
"""

import json
import re

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import negated_parameters
from schemathesis.specs.openapi.checks import positive_data_acceptance

from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter
from curriculum.wsgi import application
from tests.conftest import sketch, verify_now
from tests.curriculum.api.conftest import bearer
from tests.curriculum.site.test_practice import generated_chapter

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)
# Before these random examples, schemathesis's coverage phase sends every operation the
# requests its schema implies, with no draw: each parameter's and body field's bounds, wrong
# types, missing and extra parts (some 1,390 a test, 760 of them chapter documents). The random
# ones add arrangements of those parts: 10 an operation for each test, where 25 took a third of
# the module's CPU (most of it spent drawing them, not asking).
FUZZ = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)


@pytest.fixture
def content(seeded):
    """Seed content (so generated codes such as II.3 find real chapters), imported once for
    the module and served through WSGI inside the test's savepoint: like Django's test client,
    keep the connection open."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@FUZZ
def test_the_schema_holds_for_anonymous_clients(case, content):
    case.call_and_validate()


@schema.parametrize()
@FUZZ
def test_the_schema_holds_for_an_editor_token(case, content, erin_token):
    """Erin's token on every case but one that drops the header to be refused: sending it
    anyway would make that case an editor's request, and its 200 a false alarm."""
    precondition = case.method == "PUT" or case.path.endswith("/publish")
    relaxed = [positive_data_acceptance] if precondition else []
    dropped = ("Authorization", ParameterLocation.HEADER) in set(negated_parameters(case.meta))
    token = {} if dropped else {"Authorization": erin_token["HTTP_AUTHORIZATION"]}
    case.call_and_validate(headers=token, excluded_checks=relaxed)


# ---------------------------------------------------------------- what a set of requests get

PROBLEM = "application/problem+json"
SENT_HEADERS = (  # response headers a client acts on: each must be documented where sent
    "ETag",
    "Last-Modified",
    "Location",
    "Release-Unchanged",
    "Retry-After",
    "WWW-Authenticate",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)


def representative_requests(erin_token) -> list[tuple[str, str, dict]]:
    """(method, path, extra) reaching every operation, each answer it gives that a client must
    handle: success, 304, and each error status, as anyone or with Erin's token."""
    reader = bearer(
        token_issue(user=User.objects.get(username="erin"), name="r", scopes=["read"])[1]
    )
    unknown = {"HTTP_AUTHORIZATION": "Bearer cur_nope"}
    source = "/api/v1/chapters/II.8/source"
    check = "/api/v1/chapters/II.7/problems/p3/instances/1/check"
    document = json.dumps(sketch("II.8"))
    as_json = {"content_type": "application/json"}
    return [
        ("get", "/api/v1/ping", {}),
        ("get", "/api/v1/ping", unknown),
        ("get", "/api/v1/books", {}),
        ("get", "/api/v1/books?limit=0", {}),
        ("get", "/api/v1/books/II", {}),
        ("get", "/api/v1/books/IX", {}),
        ("get", "/api/v1/chapters?book=II&offset=1&limit=2", {}),
        ("get", "/api/v1/chapters?maturity=M9", {}),
        ("get", "/api/v1/chapters/II.7", {}),
        ("get", "/api/v1/chapters/II.7", {"HTTP_IF_NONE_MATCH": "ETAG"}),
        ("get", "/api/v1/chapters/II.7", {"HTTP_IF_MATCH": '"stale"'}),
        ("get", "/api/v1/chapters/II.7?preview=true", erin_token),
        ("get", "/api/v1/chapters/II.99", {}),
        ("get", "/api/v1/chapters/II.7", unknown),
        ("get", "/api/v1/chapters/II.7/releases", {}),
        ("get", "/api/v1/chapters/II.7/releases/1", {}),
        ("get", "/api/v1/chapters/II.7/releases/1", {"HTTP_IF_MATCH": '"stale"'}),
        ("get", "/api/v1/chapters/II.7/releases/9", {}),
        ("get", "/api/v1/chapters/II.7/releases/0", {}),
        ("get", "/api/v1/search?q=softmax&limit=1", {}),
        ("get", "/api/v1/search?q=" + "x" * 5000, {}),
        ("get", "/api/v1/operations?limit=5", {}),
        ("get", "/api/v1/operations?offset=-1", {}),
        ("get", "/api/v1/chapters/II.7/problems/p3/instances/1?hints=1&solution=true", {}),
        ("get", "/api/v1/chapters/II.7/problems/p3/instances/01", {}),
        ("get", "/api/v1/chapters/II.7/problems/nope/instances/0", {}),
        ("post", check, {"data": json.dumps({"answer": 1}), **as_json}),
        ("post", check, {"data": b"{}", **as_json}),
        ("post", check, {"data": b"{", **as_json}),
        ("post", check, {"data": b"1 2", "content_type": "text/plain"}),
        ("put", "/api/v1/chapters/II.8", {"data": document, **as_json}),
        ("put", "/api/v1/chapters/II.8", {"data": document, **as_json, **reader}),
        ("put", "/api/v1/chapters/II.8", {"data": document, **as_json, **erin_token}),
        ("put", "/api/v1/chapters/II.8", {"data": document, **as_json, **erin_token}),
        (
            "put",
            "/api/v1/chapters/II.8",
            {"data": b"x", "content_type": "text/plain", **erin_token},
        ),
        ("put", "/api/v1/chapters/II.8", {"data": b"{}", **as_json, **erin_token}),
        ("put", "/api/v1/chapters/II.8", {"data": b"x" * (10**6 + 1), **as_json, **erin_token}),
        (
            "put",
            "/api/v1/chapters/II.8",
            {"data": document, **as_json, "HTTP_IF_MATCH": '"stale"', **erin_token},
        ),
        ("get", source, erin_token),
        ("get", source, {"HTTP_IF_NONE_MATCH": "SOURCE", **erin_token}),
        ("get", source, {"HTTP_IF_MATCH": '"stale"', **erin_token}),
        ("get", source, {}),
        ("get", "/api/v1/chapters/II.99/source", erin_token),
        ("get", "/api/v1/chapters/II.8/claims", erin_token),
        ("get", "/api/v1/chapters/II.99/claims", erin_token),
        ("post", "/api/v1/chapters/II.8/publish", erin_token),
        ("post", "/api/v1/chapters/II.8/publish", {"HTTP_IF_MATCH": '"stale"', **erin_token}),
        ("post", "/api/v1/chapters/II.99/publish", erin_token),
        ("post", "/api/v1/chapters/II.8/publish", reader),
        ("post", "/api/v1/chapters/II.8/verify", erin_token),
        ("post", "/api/v1/chapters/II.99/verify", erin_token),
        ("post", "/api/v1/chapters/II.7/publish", erin_token),  # nothing changed: 200
        ("verify", "II.8", {}),  # then it may be released
        ("post", "/api/v1/chapters/II.8/publish", erin_token),
        ("throttle", "", {}),
        ("get", "/api/v1/books", {}),
        ("get", "/api/v1/books", {}),
    ]


def documented(schema: dict, method: str, path: str) -> tuple[str, dict]:
    """The operation the schema documents for this request."""
    for template, operations in schema["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path.split("?")[0]):
            return f"{method.upper()} {template}", operations[method]
    raise AssertionError(f"{method} {path}: no operation")


def resolved(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def disagreements(schema: dict, method: str, path: str, response) -> list[str]:
    """What the answer does that its operation's documentation does not say."""
    name, operation = documented(schema, method, path)
    status = str(response.status_code)
    said = operation["responses"].get(status)
    if said is None:
        return [f"{name}: {status} is not documented"]
    found = []
    kind = response.get("Content-Type", "").split(";")[0]
    if response.content and kind not in said.get("content", {}):
        found.append(f"{name} {status}: {kind} is not documented")
    headers = said.get("headers", {})
    found += [
        f"{name} {status}: {h} undocumented"
        for h in SENT_HEADERS
        if h in response and h not in headers
    ]
    found += [
        f"{name} {status}: {h} missing"
        for h, d in headers.items()
        if d["required"] and h not in response
    ]
    if kind == "application/json" and isinstance(response.json(), list):
        found.append(f"{name} {status}: a bare list, not a page")
    if kind == PROBLEM:
        item = resolved(schema, {"$ref": "#/components/schemas/ErrorItem"})
        for error in response.json()["errors"]:
            if error["code"] not in item["properties"]["code"].get("enum", ()):
                found.append(f"{name} {status}: code {error['code']} not in the enum")
            if error["code"] != "rate_limited" and not {"pointer", "parameter", "header"} & set(
                error
            ):
                found.append(f"{name} {status}: {error['code']} names no part of the request")
            if error["code"] == "missing" and "pointer" in error:
                body = operation["requestBody"]["content"]["application/json"]["schema"]
                field = error["pointer"].rsplit("/", 1)[1]
                if field not in resolved(schema, body).get("required", []):
                    found.append(f"{name}: {field} is required but documented optional")
    return found


def test_every_operation_documents_what_representative_requests_get(
    client, released, erin_token, settings
):
    """Each operation of the schema is asked; every answer's status, content type, headers,
    error codes and the parts its errors name are in the operation's documentation; no list
    is a bare array; a path parameter is typed as the field that echoes it."""
    settings.LIMIT_API_BODY_BYTES = 10**6
    generated_chapter()
    schema = client.get("/api/v1/openapi.json").json()
    asked, found, statuses = set(), [], set()
    tags = {"ETAG": "", "SOURCE": ""}
    for method, path, extra in representative_requests(erin_token):
        if method == "verify":
            verify_now(Chapter.objects.get(code=path))
            continue
        if method == "throttle":
            settings.API_ANON_RATE = "1/min"
            cache.clear()
            continue
        extra = {k: tags.get(v, v) if isinstance(v, str) else v for k, v in extra.items()}
        response = getattr(Client(raise_request_exception=False), method)(path, **extra)
        if path.endswith("/II.7") and response.status_code == 200:
            tags["ETAG"] = response["ETag"] if "ETag" in response else tags["ETAG"]
        if path.endswith("/source") and response.status_code == 200:
            tags["SOURCE"] = response["ETag"]
        asked.add(documented(schema, method, path)[0])
        statuses.add(response.status_code)
        found += disagreements(schema, method, path, response)
    every = {f"{m.upper()} {p}" for p, ops in schema["paths"].items() for m in ops}
    assert every - asked == set()
    assert statuses == {200, 201, 202, 304, 400, 401, 403, 404, 409, 412, 413, 415, 422, 429}
    assert not found, "\n".join(found)
    instance = schema["paths"]["/api/v1/chapters/{code}/problems/{key}/instances/{n}"]["get"]
    [n] = [p for p in instance["parameters"] if p["name"] == "n"]
    echoed = schema["components"]["schemas"]["InstanceOut"]["properties"]["instance"]
    assert n["schema"]["type"] == echoed["type"]
