"""Writes, for tokens only: import a chapter document, publish through the gate, re-verify.

Each is a thin call into the domain: the importer (every error with its path), the one
publication gate (every reason), and re-verifying. Each route names the token scope it needs
(read, write, publish: `domain.tokens`), and each action decides what the token's user may do
(`domain.actions`), so an author's token may import but not publish.
"""

import re
from typing import Any

import pydantic
from django.http import HttpResponse, JsonResponse
from django.utils.cache import patch_vary_headers
from ninja import Header
from ninja.errors import ValidationError
from ninja.responses import Status

from curriculum.domain.chapter_files import (
    ChapterFileError,
    ChapterImport,
    chapter_source,
    load_yaml,
    source_tag,
    source_text,
)
from curriculum.domain.claims.reports import claim_rows
from curriculum.domain.gate import ChapterPublish
from curriculum.domain.reading import NotVisible, reader_view
from curriculum.domain.verification import Reverify
from curriculum.domain.working_copy import yaml_tag
from curriculum.models import Chapter

from .auth import PUBLISH_AUTH, TOKEN_READ_AUTH, WRITE_AUTH, caller
from .chapters import router
from .media import JSON_TYPE, body_bytes, body_type, json_body, media_type
from .params import CODE
from .responses import conditional, json_response, reader_body
from .schemas import ChapterOut, Enqueued, Error, Imported, PublishIn

# The same router as the reads: Django routes a path to one router, whatever the method.
# Each route names the token scope it needs (domain/tokens.py): read, write or publish.
WRITE: dict[str, Any] = {"auth": WRITE_AUTH, "tags": ["writing (tokens)"]}
TOKEN_READ: dict[str, Any] = {**WRITE, "auth": TOKEN_READ_AUTH}
PUBLISH: dict[str, Any] = {**WRITE, "auth": PUBLISH_AUTH}
AUTH_ERRORS = {401: Error, 403: Error}
DOCUMENT_REF = "#/components/schemas/ChapterDocument"
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
DOCUMENT_CONTENT = {
    "application/json": {"schema": {"$ref": DOCUMENT_REF}},
    "application/yaml": {"schema": {"type": "string"}},
}
DOCUMENT_BODY = {
    "requestBody": {
        "required": True,
        "content": DOCUMENT_CONTENT,
        "description": "A chapter file (/api/v1/content-format.md) as JSON (Content-Type: "
        "application/json; 400 when it does not parse), or as the YAML export_chapter writes "
        "(application/yaml, or application/x-yaml, text/yaml, text/x-yaml); any other type, or "
        "a charset other than utf-8, is 415. The importer checks it whole: a refusal lists every "
        "error with its path, and writes nothing.",
    }
}
PUBLISH_BODY = {
    "requestBody": {
        "required": False,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PublishIn"}}},
        "description": "Optional: release notes for the release the publish makes.",
    }
}
SOURCE_RESPONSE = {
    "responses": {
        200: {
            "description": "The chapter document: JSON, or YAML with Accept: application/yaml.",
            "content": DOCUMENT_CONTENT,
        }
    }
}


def _chapter(code: str) -> Chapter:
    chapter = Chapter.objects.filter(code=code).first()
    if chapter is None:
        raise NotVisible
    return chapter


def _document(request) -> object:
    """The body as YAML when its Content-Type says so, as JSON when it says that: exactly the
    types the route documents, in UTF-8 (415 else)."""
    accepted = "application/json or application/yaml"
    if body_type(request, (JSON_TYPE, *YAML_TYPES), accepted) == JSON_TYPE:
        return json_body(request, accepted, document=True)
    try:
        return load_yaml(body_bytes(request).decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ChapterFileError([f"body: not UTF-8 text: {error}"]) from error


@router.get(
    "/chapters/{code}/source",
    response={200: None, 304: None, **AUTH_ERRORS, 404: Error, 412: Error, 422: Error},
    openapi_extra=SOURCE_RESPONSE,
    operation_id="chapter_source",  # a client method's name
    **TOKEN_READ,
)
def chapter_source_read(request, code: str = CODE):
    """The working copy as its file says it, unpublished parts included: what PUT accepts.

    YAML exactly as `export_chapter` writes it when Accept asks for application/yaml, else JSON.
    A chapter stored before the limits on a file is 422 as YAML (it could not be imported
    again); its JSON is still served.
    """
    caller(request).require("curriculum.view_chapter")
    chapter = _chapter(code)
    document = chapter_source(code=chapter.code)  # read once: its tag and its body
    # the client's order of preference (q-values): JSON unless YAML is preferred to it
    as_yaml = request.get_preferred_type([JSON_TYPE, *YAML_TYPES]) in YAML_TYPES
    tag = source_tag(code=chapter.code, document=document)
    tag = yaml_tag(tag) if as_yaml else tag
    response = conditional(request, tag)
    if response is None and as_yaml:
        text = source_text(document=document)
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    elif response is None:
        response = JsonResponse(document, json_dumps_params={"ensure_ascii": False})
    response["ETag"] = tag
    response["Cache-Control"] = "private, no-cache"
    patch_vary_headers(response, ["Accept", "Authorization"])
    return response


@router.put(
    "/chapters/{code}",
    response={
        200: Imported,
        201: Imported,
        400: Error,
        **AUTH_ERRORS,
        412: Error,
        413: Error,
        415: Error,
        422: Error,
    },
    openapi_extra=DOCUMENT_BODY,
    **WRITE,
)
def chapter_put(request, response: HttpResponse, code: str = CODE):
    """Create or replace the working copy of a chapter (201 when created).

    Send `If-Match` with the ETag of `GET /chapters/{code}/source` to write only over the
    version you read: another writer's edit since then gets 412 and nothing is written (read
    again, merge, send again). `If-None-Match: *` creates only; `If-None-Match` with ETags
    writes only over a version it does not name (compared weakly, as RFC 9110 says), else 412.
    Without either, the last writer wins. The answer's ETag is the version just written.
    """
    result = ChapterImport(
        document=_document(request),
        expected_code=code,
        user=caller(request).user,
        if_match=_tags(request.headers.get("If-Match")),
        if_none_match=_none_match(request.headers.get("If-None-Match")),
        tagged=True,
    ).execute()
    if result.tag:  # always, for a tagged write: the version it made, not a later writer's
        response["ETag"] = result.tag
    body = {
        "code": result.label,
        "created": result.created,
        "verifications_enqueued": result.enqueued,
        "warnings": list(result.warnings),
        "claims": len(claim_rows(code=result.label)),
    }
    return Status(201 if result.created else 200, body)


def _tags(header: str | None) -> frozenset[str] | None:
    """The strong entity tags an If-Match names ("*" for any). A weak tag never matches, and
    neither does anything malformed: an empty header or a stray word is a client that asked for
    a guard, and gets 412 rather than an unguarded write."""
    items = _entity_tags(header)
    if items is None:
        return None if header is None else frozenset()
    return frozenset(item for item in items if not item.startswith("W/"))


def _none_match(header: str | None) -> frozenset[str] | None:
    """The entity tags an If-None-Match names, compared weakly ("*" for any). A malformed one
    is read as "*": it never lets a write over an existing chapter through."""
    items = _entity_tags(header)
    if items is None:
        return None if header is None else frozenset({"*"})
    return frozenset(item.removeprefix("W/") for item in items)


def _entity_tags(header: str | None) -> list[str] | None:
    """A conditional header's entity tags, or ["*"]; None when it is absent or malformed."""
    if header is None:
        return None
    if header.strip() == "*":
        return ["*"]
    items = [item.strip() for item in header.split(",")]
    return items if all(ENTITY_TAG.fullmatch(item) for item in items) else None


ENTITY_TAG = re.compile(r'(?:W/)?"[\x21\x23-\x7e]*"')  # RFC 9110 entity-tag


REVIEWED = Header(
    None,
    alias="If-Match",
    description="The ETag of `GET /chapters/{code}/source` you reviewed: publish only that "
    "version of the working copy (412 after another writer's edit).",
)


@router.post(
    "/chapters/{code}/publish",
    response={
        200: ChapterOut,
        201: ChapterOut,
        400: Error,
        **AUTH_ERRORS,
        404: Error,
        409: Error,
        412: Error,
        413: Error,
        422: Error,
    },
    operation_id="chapter_publish",  # a client method's name
    openapi_extra=PUBLISH_BODY,
    **PUBLISH,
)
def publish_endpoint(request, code: str = CODE, if_match: str | None = REVIEWED):
    """Publish through the gate: 201 with the new release, or 409 with every reason.

    A release made is at `Location`. When nothing readers see changed since the latest release,
    no release is made: 200 with that release (and `Release-Unchanged: N` naming it).

    Send `If-Match` with the ETag of `GET /chapters/{code}/source` to publish only the version
    you reviewed: after another writer's edit, 412 with that reason first (and every other), and
    nothing is released; read again, review, send again. Without it, the working copy as it is
    when the request lands is published (scripts that publish what they just wrote keep working).

    The body is optional: `{"notes": "..."}` records release notes with the release made (a
    body that is not JSON is 400 and one over LIMIT_API_BODY_BYTES 413, as on every route);
    notes sent with a publish that makes none (`Release-Unchanged`) are not recorded.
    """
    action = ChapterPublish(
        chapter=_chapter(code),
        user=caller(request).user,
        reviewed=_tags(if_match),
        notes=_publish_notes(request),
    )
    publication = action.execute()
    release = publication.release
    response = json_response(
        reader_body(reader_view(code, release.snapshot, release, release.number), whole=True),
        status=201 if publication.made else 200,
    )
    if publication.made:  # where the release just made is read
        response["Location"] = f"{request.path.removesuffix('/publish')}/releases/{release.number}"
    else:
        response[UNCHANGED_HEADER] = str(release.number)
    return response


UNCHANGED_HEADER = "Release-Unchanged"  # a publish that made no release names the latest


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _publish_notes(request) -> str:
    """The release notes of an optional JSON body (`PublishIn`). No body, no notes; nor a form,
    which some clients send with a bare POST: it is never parsed (the notes come as JSON). Read
    here, not by ninja, whose parser (`api.StrictJSON`) refuses a request without a body."""
    if not request.body or media_type(request.headers.get("Content-Type")) in FORM_TYPES:
        return ""
    try:
        return PublishIn.model_validate(json_body(request)).notes
    except pydantic.ValidationError as error:
        errors = [{**e, "loc": ("body", "body", *e["loc"])} for e in error.errors()]
        raise ValidationError(errors) from None


@router.post(
    "/chapters/{code}/verify",
    response={202: Enqueued, **AUTH_ERRORS, 404: Error, 413: Error, 422: Error},
    operation_id="chapter_verify",  # a client method's name
    **WRITE,
)
def verify_endpoint(request, code: str = CODE):
    """Re-check every solution of the chapter with the engine (queued; verdicts follow).

    It reads no body: one sent is ignored (413 past LIMIT_API_BODY_BYTES, as on every route).
    """
    try:
        enqueued = Reverify(code=code, user=caller(request).user).execute()
    except Chapter.DoesNotExist:
        raise NotVisible from None
    return Status(202, {"code": code, "enqueued": len(enqueued)})
