"""A page on another origin reads the public API (CORS), without cookies, and cannot write."""

from django.test import Client

ORIGIN = "https://reader.example"


def test_another_origin_reads_the_public_api_and_sees_its_headers(chapter, settings):
    settings.API_ANON_RATE = "100/min"
    response = Client().get("/api/v1/chapters/II.7", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "ratelimit-remaining", "retry-after", "link"} <= exposed
    assert response["RateLimit-Limit"] == "100" and int(response["RateLimit-Remaining"]) < 100


def test_a_preflight_grants_reads_only(db):
    preflight = Client().options(
        "/api/v1/chapters/II.7",
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="PUT",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    allowed = {m.strip() for m in preflight["Access-Control-Allow-Methods"].split(",")}
    assert allowed == {"GET", "HEAD", "OPTIONS"}
    assert "content-type" not in preflight["Access-Control-Allow-Headers"]


def test_the_origins_are_a_setting_and_the_site_is_not_shared(chapter, settings):
    settings.CORS_ALLOW_ALL_ORIGINS = False
    settings.CORS_ALLOWED_ORIGINS = ["https://allowed.example"]
    elsewhere = Client().get("/api/v1/chapters/II.7", HTTP_ORIGIN=ORIGIN)
    assert "Access-Control-Allow-Origin" not in elsewhere
    allowed = Client().get("/api/v1/chapters/II.7", HTTP_ORIGIN="https://allowed.example")
    assert allowed["Access-Control-Allow-Origin"] == "https://allowed.example"
    settings.CORS_ALLOW_ALL_ORIGINS = True
    page = Client().get("/chapters/II.7/", HTTP_ORIGIN=ORIGIN)
    assert "Access-Control-Allow-Origin" not in page
