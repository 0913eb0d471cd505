"""The site's own pages where Django answers a bare one (curriculum/site/errors.py): a form
whose CSRF token fails says what happened and that nothing was saved, headed as every page is."""

from django.test import Client


def test_a_form_without_its_token_gets_the_sites_page(db):
    refused = Client(enforce_csrf_checks=True).post("/accounts/login/", {"login": "x"})
    assert refused.status_code == 403
    text = refused.content.decode()
    assert "The form could not be checked" in text and "Nothing was saved" in text
    assert "CSRF verification failed" not in text  # Django's own page
    assert "Content-Security-Policy" in refused and refused["X-Frame-Options"] == "DENY"
