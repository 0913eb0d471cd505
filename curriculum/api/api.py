"""The NinjaAPI instance: routers, throttling, and one error shape for every refusal.

Every error body is a problem (curriculum/api/problems.py); its `errors` list every problem
(each importer error with its pointer, each reason the gate refused) so a client fixes all at
once.
"""

import logging

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Swagger
from ninja.errors import HttpError, ValidationError
from ninja.parser import Parser

from curriculum.bodies import PROCESS_BODIES
from curriculum.clients import ANONYMOUS_READS
from curriculum.domain.chapter_files import ChapterFileError, NumbersUnheld, SourceChanged
from curriculum.domain.chapter_files.schema import ChapterDocument
from curriculum.domain.gate import CHANGED_SINCE_REVIEW, PublishOutdated, PublishRefused
from curriculum.domain.reading import NotVisible
from curriculum.domain.roles import Forbidden, TokenOutOfScope
from curriculum.domain.working_copy import NOT_A_SOURCE_TAG

from . import chapters, claims, lists, operations, practice, search, writes  # noqa: F401  (writes, claims: on chapters.router)
from .auth import BEARER_CHALLENGE, READ_AUTH, READ_SECURITY, TOKEN_REQUIRED, TokenRefused
from .headers import headers_documented
from .media import BodyTooLarge, JsonRefused, UnsupportedMediaType, json_body, too_large
from .problems import (
    PROBLEM_TYPE,
    limit_or,
    pointer,
    problem_response,
    reason_item,
    validation_error,
)
from .schemas import Error, Pong, PublishIn
from .throttling import AnonymousReadThrottle, throttled_as_anonymous_reads

logger = logging.getLogger(__name__)


class CurriculumAPI(NinjaAPI):
    def create_response(self, request, data, *, status=None, temporal_response=None):
        """A list made on a miss leaves its bytes where `kept_per_course_tag` looks."""
        response = super().create_response(
            request, data, status=status, temporal_response=temporal_response
        )
        key = getattr(request, "keep_body_as", None)
        if key is not None and response.status_code == 200:
            PROCESS_BODIES.set(key, response.content)
        return response

    def get_openapi_operation_id(self, operation) -> str:
        """An operation is named as its view is (`chapter_read`, `chapter_put`): the method a
        generated client calls; ninja's default prefixed the module path."""
        return operation.view_func.__name__

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        """Built once per process and prefix (a build costs about a fifth of a second of CPU,
        and the routes never change once loaded); callers must not change what they get. The
        chapter document is parsed by the importer, and a publish's optional body by its view
        (`writes.PUBLISH_BODY`), not by ninja; they are documented anyway."""
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        schemas = self.__dict__.setdefault("_schemas", {})
        if path_prefix not in schemas:  # two threads may both build it once: either is right
            schema = super().get_openapi_schema(path_prefix=path_prefix)
            described = ChapterDocument.model_json_schema(
                ref_template="#/components/schemas/{model}"
            )
            components = schema["components"]["schemas"]
            components.update(described.pop("$defs", {}))
            components["ChapterDocument"] = described
            components["PublishIn"] = PublishIn.model_json_schema()
            _problems_documented(schema)
            schemas[path_prefix] = schema
        return schemas[path_prefix]


def _problems_documented(schema: dict) -> None:
    """Every error response is documented as what it is sent as (application/problem+json),
    with the headers it carries (headers.py); every operation summarized."""
    for methods in schema["paths"].values():
        for operation in methods.values():
            _summarized(operation)
            headers_documented(operation)
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if int(status) >= 400 and "application/json" in content:
                    content[PROBLEM_TYPE] = content.pop("application/json")


def _summarized(operation: dict) -> None:
    """The summary is the docstring's first sentence, not ninja's title-cased view name."""
    first = operation.get("description", "").split("\n\n")[0].split(". ")[0]
    if first:
        operation["summary"] = " ".join(first.split()).rstrip(".")


class StrictJSON(Parser):
    """Bodies read as chapter documents are (curriculum/domain/chapter_files/json_form.py): a
    key given twice, nesting past LIMIT_JSON_DEPTH or a number of thousands of digits is
    refused with its reason (ninja answers 400 and `http_error` passes the reason on); one
    not sent as JSON is 415 (`media.json_body`)."""

    def parse_body(self, request):
        return json_body(request)


api = CurriculumAPI(
    title="Curriculum API",
    version="1",
    description="Chapters as readers see them, their releases, and (with a staff token) "
    "import, publish and verify. Codes contain dots: /chapters/II.4. The chapter document "
    "(read with GET /chapters/{code}/source, written with PUT /chapters/{code}) is the chapter "
    "file format, described key by key in [content-format.md](/api/v1/content-format.md).",
    docs=Swagger(),  # served from this site's static files (see settings: CSP allows 'self')
    docs_decorator=throttled_as_anonymous_reads,  # the schema and the docs page
    throttle=[AnonymousReadThrottle()],
    urls_namespace="api",
    parser=StrictJSON(),
)
api.add_router("", lists.router)
api.add_router("", chapters.router)
api.add_router("", operations.router)
api.add_router("", search.router)
api.add_router("", practice.router)


@api.get(
    "/ping",
    response={200: Pong, 401: Error, 429: Error},
    auth=READ_AUTH,
    openapi_extra=READ_SECURITY,
    tags=["service"],
)
def ping(request):
    """A trivial endpoint: the benchmark's baseline."""
    return {"ok": True}


def _error(
    request: HttpRequest, status: int, detail: str, errors: list[dict[str, str]]
) -> HttpResponse:
    return problem_response(status, detail, errors)


@api.exception_handler(ValidationError)
def invalid_request(request, exc: ValidationError):
    errors = [_invalid_said(request, e) for e in exc.errors]
    return _error(request, 422, "the request is not valid", errors)


def _invalid_said(request: HttpRequest, error: dict) -> dict[str, str]:
    """An error at its place; a body not sent at all is said so, not as the view's parameter
    that holds it missing ("Field required")."""
    item = validation_error(error)
    loc = tuple(error.get("loc", ()))
    sent = request.META.get("CONTENT_LENGTH") not in (None, "", "0")
    if loc[:1] == ("body",) and len(loc) == 2 and error.get("type") == "missing" and not sent:
        item["detail"] = "a JSON object is required; the request has no body"
    return item


@api.exception_handler(NotVisible)
def not_visible(request, exc: NotVisible):
    """At the path parameter that found nothing (a draft's code included: drafts stay secret)."""
    missing = {"parameter": exc.parameter, "code": "not_found", "detail": str(exc)}
    return _error(request, 404, "Not Found", [missing])


@api.exception_handler(Http404)
def no_such_path(request, exc):
    """No route: no parameter of the request found nothing, the path itself is unknown."""
    return _error(request, 404, "Not Found", [])


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    """400, 401, 403 and 429 (ninja's own refusals) in the same shape as every other error; a
    body that could not be read says why."""
    cause = exc.__cause__
    if isinstance(cause, BODY_REFUSALS):  # ninja calls any body it cannot parse a 400
        return api.on_exception(request, cause)
    errors: list[dict[str, str]] = []
    if exc.status_code == 429:  # the throttle that refused says which rate, and when to retry
        refused_by = getattr(request, "refused_by", ANONYMOUS_READS)
        refusal = [{"code": "rate_limited", "detail": refused_by.refusal()}]
        return _error(request, 429, exc.message, refusal)
    if isinstance(exc, TokenRefused):
        return _refused(request, exc)
    if exc.status_code == 401:  # a route that takes only tokens, called without one
        errors = [TOKEN_REQUIRED]
    response = _error(request, exc.status_code, exc.message, errors)
    if exc.status_code == 401:  # RFC 9110: a 401 names the scheme that would be accepted
        response["WWW-Authenticate"] = BEARER_CHALLENGE
    return response


def _refused(request: HttpRequest, exc: TokenRefused) -> HttpResponse:
    """A token or a session refused: the header at fault, and the bearer challenge (RFC 6750)
    saying why (on a 401 always: RFC 9110)."""
    response = _error(request, exc.status_code, exc.message, [exc.item()])
    challenge = exc.challenge() or (BEARER_CHALLENGE if exc.status_code == 401 else None)
    if challenge:
        response["WWW-Authenticate"] = challenge
    return response


@api.exception_handler(BodyTooLarge)
@api.exception_handler(RequestDataTooBig)
def body_too_large(request, exc):
    return too_large()


@api.exception_handler(JsonRefused)
def json_refused(request, exc: JsonRefused):
    """A JSON body that does not parse, on every route: 400 `invalid_json` (`limit` where a
    LIMIT_ setting refused it), at the whole body."""
    errors = [limit_or("invalid_json", e) for e in exc.errors]
    return _error(request, 400, "the body is not valid JSON", errors)


BODY_REFUSALS = (UnsupportedMediaType, BodyTooLarge, JsonRefused, NumbersUnheld)


@api.exception_handler(UnsupportedMediaType)
def unsupported_media_type(request, exc: UnsupportedMediaType):
    refusal = {"header": "Content-Type", "code": "unsupported_media_type", "detail": exc.reason}
    return _error(request, 415, "Unsupported Media Type", [refusal])


@api.exception_handler(Exception)
def server_error(request, exc: Exception):
    """Logged for the operators; the client gets the error shape, never a traceback."""
    logger.exception("API error on %s %s", request.method, request.path, exc_info=exc)
    return _error(request, 500, "Internal Server Error", [])


@api.exception_handler(NumbersUnheld)
def numbers_unheld(request, exc: NumbersUnheld):
    """JSON that reads, with a number float64 cannot hold as written, on every route: 422 at
    each such number's place."""
    errors = [limit_or("invalid", e) for e in exc.errors]
    return _error(request, 422, "a number in the body cannot be read as written", errors)


@api.exception_handler(ChapterFileError)
def document_refused(request, exc: ChapterFileError):
    errors = [limit_or("invalid", e) for e in exc.errors]
    return _error(request, 422, "the chapter document was refused; nothing was written", errors)


@api.exception_handler(SourceChanged)
def source_changed(request, exc: SourceChanged):
    guard = "If-Match" if "If-Match" in request.headers else "If-None-Match"
    unnamed = str(exc) == NOT_A_SOURCE_TAG
    code = "precondition_failed" if unnamed else "source_changed"
    changed = [{"header": guard, "code": code, "detail": str(exc)}]
    title = (
        "If-Match names no version of the working copy; nothing was written"
        if unnamed
        else "the working copy changed; nothing was written"
        if guard == "If-Match"
        else "the chapter is at a version If-None-Match names; nothing was written"
    )
    return _error(request, 412, title, changed)


@api.exception_handler(PublishRefused)
def publish_refused(request, exc: PublishRefused):
    reasons = [reason_item(reason, "not_publishable") for reason in exc.reasons]
    return _error(request, 409, "the chapter cannot be published yet", reasons)


@api.exception_handler(PublishOutdated)
def publish_outdated(request, exc: PublishOutdated):
    at_the_header = {
        CHANGED_SINCE_REVIEW: "source_changed",
        NOT_A_SOURCE_TAG: "precondition_failed",
    }
    reasons = [
        {"header": "If-Match", "code": at_the_header[reason], "detail": reason}
        if reason in at_the_header
        else reason_item(reason, "not_publishable")
        for reason in exc.reasons
    ]
    title = (
        "If-Match names no version of the working copy; nothing was published"
        if NOT_A_SOURCE_TAG in exc.reasons
        else "the working copy changed; nothing was published"
    )
    return _error(request, 412, title, reasons)


@api.exception_handler(Forbidden)
def forbidden(request, exc: Forbidden):
    """A role's refusal: at the part of the document that asked for it (`/state` for a
    withdrawal), else at the credentials whose holder it is."""
    return _error(request, 403, str(exc), [_forbidden_item(exc, "forbidden")])


@api.exception_handler(TokenOutOfScope)
def out_of_scope(request, exc: TokenOutOfScope):
    """An action a request asked for beyond its token's scopes (a PUT that withdraws, with a
    token without `publish`): as a route beyond them is, with the scope in the challenge."""
    refused = TokenRefused(403, str(exc), "insufficient_scope", scope=exc.scope)
    response = _error(request, 403, str(exc), [_forbidden_item(exc, refused.code)])
    if challenge := refused.challenge():
        response["WWW-Authenticate"] = challenge
    return response


def _forbidden_item(exc: Forbidden, code: str) -> dict[str, str]:
    if exc.path is None:
        return {"header": "Authorization", "code": code, "detail": str(exc)}
    return {"pointer": pointer(exc.path), "code": code, "detail": str(exc)}
