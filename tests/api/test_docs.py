"""The schema and the interactive docs are served, and the docs load nothing from elsewhere."""

import re


def test_the_openapi_schema_declares_every_error_status(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    chapter = schema["paths"]["/api/v1/chapters/{code}"]
    assert {"200", "304", "404", "422", "429"} <= set(chapter["get"]["responses"])
    assert {"201", "401", "403", "404", "409", "422"} <= set(
        schema["paths"]["/api/v1/chapters/{code}/publish"]["post"]["responses"])
    assert "ChapterDocument" in schema["components"]["schemas"]


def test_the_docs_page_uses_only_this_sites_scripts_under_the_strict_csp(client, db):
    response = client.get("/api/v1/docs")
    html = response.content.decode()
    assert response.status_code == 200
    assert "script-src 'self'" in response["Content-Security-Policy"]
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/static/") for s in sources)
    assert "<script>" not in html  # no inline script (the settings block is JSON data)
