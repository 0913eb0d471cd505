"""Reader accounts (allauth, /accounts/) and a reader's own pages (/account/): signing up
needs no email and makes no staff; progress survives signing out and in; the export holds the
attempts; deleting the account (a POST with its CSRF token) removes it and its attempts, never
a staff account. Logins go through the axes lockout, sign-ups through a throttle."""

import json
import re

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from curriculum.models import Attempt, ProblemReport
from tests.curriculum.domain.test_progress import attempt, practised_chapter
from tests.curriculum.site.test_views_chapter_page import visible_text

PASSWORD = "a-long-reader-pass-9"


@pytest.fixture(autouse=True)
def fresh_rates():
    cache.clear()  # allauth's counts and the lockout's are per address: 127.0.0.1 for every test


@pytest.fixture
def course(books):
    practised_chapter()


@pytest.fixture
def rita(db):
    return User.objects.create_user("rita", password=PASSWORD)


def sign_up(client: Client, username: str, **extra):
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD} | extra,
    )


def sign_in(client: Client, username: str, password: str = PASSWORD):
    return client.post("/accounts/login/", {"login": username, "password": password})


def page(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return visible_text(response.content.decode())


def test_a_reader_signs_up_with_a_username_and_password_alone_and_is_signed_in(client, course):
    response = sign_up(client, "rita")
    assert response.status_code == 302 and response["Location"] == "/account/"
    rita = User.objects.get(username="rita")
    assert rita.email == "" and not rita.is_staff and not rita.is_superuser
    text = page(client, "/account/")
    assert "Successfully signed in as rita" in text
    assert "0 of 0 problems solved in the chapters you have tried" in text
    assert "not tried yet" in text  # a chapter is listed, its problems once one is tried
    assert "II.7 A Sketch: not tried yet" in text


def test_a_sign_up_form_that_asks_for_staff_still_makes_a_reader(client, course):
    sign_up(client, "mallory", is_staff="on", is_superuser="on")
    assert not User.objects.get(username="mallory").is_staff


def test_a_reader_account_does_not_open_admin(client, rita):
    sign_in(client, "rita")
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_the_account_page_sends_a_reader_without_an_account_to_sign_in(client):
    response = client.get("/account/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/account/"
    assert "sign up" in page(client, "/accounts/login/?next=/account/")


def test_the_sign_in_page_is_the_sites_and_runs_no_script(client, db):
    html = client.get("/accounts/login/").content.decode()
    assert 'href="/static/site/site.css"' in html and "<script" not in html
    assert re.search(r'<label for="id_login">Username', html)
    assert 'class="masthead-account" href="/account/"' in html


def test_progress_survives_signing_out_and_in(client, course, rita):
    attempt(rita, "p3", right=True, instance=6)
    sign_in(client, "rita")
    before = page(client, "/account/")
    assert "II.7 A Sketch: 1 of 3 solved" in before and "solved on instance 6" in before
    out = client.post("/accounts/logout/")
    assert out.status_code == 302 and out["Location"] == "/accounts/login/"
    assert "You have signed out" in page(client, "/accounts/login/")
    assert client.get("/account/").status_code == 302
    assert sign_in(client, "rita")["Location"] == "/account/"
    after = page(client, "/account/")
    assert "II.7 A Sketch: 1 of 3 solved" in after and "solved on instance 6" in after


def test_the_account_page_links_each_problem_and_its_practice_page(client, course, rita):
    attempt(rita, "p2", right=False)
    sign_in(client, "rita")
    response = client.get("/account/")
    html = response.content.decode()
    assert response["Cache-Control"] == "private, no-store"
    for key in ("p1", "p2", "p3"):
        assert f'href="/chapters/II.7/#problem-{key}"' in html
    assert 'href="/chapters/II.7/problems/p3/">Practise exercise 2</a>' in html
    assert "not solved yet (1 attempt)" in visible_text(html)


def test_signing_out_takes_a_post_with_its_csrf_token(rita):
    client = Client(enforce_csrf_checks=True)
    sign_in_page = client.get("/accounts/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', sign_in_page)[1]
    client.post(
        "/accounts/login/", {"login": "rita", "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert client.get("/accounts/logout/").status_code == 200  # asks first
    assert client.post("/accounts/logout/").status_code == 403  # no token: refused
    assert client.get("/account/").status_code == 200  # still signed in


def test_a_username_signs_in_whatever_its_case(client, rita):
    assert sign_in(client, "RITA")["Location"] == "/account/"


def test_the_export_is_a_json_download_of_the_readers_own_attempts(client, course, rita):
    sam = User.objects.create_user("sam", password=PASSWORD)
    attempt(rita, "p3", right=True, instance=6, answer="0.2 0.3 0.5")
    attempt(sam, "p3", right=True, instance=7, answer="sam's answer")
    sign_in(client, "rita")
    response = client.get("/account/export/")
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="curriculum-rita.json"'
    assert response["Cache-Control"] == "private, no-store"
    data = json.loads(response.content)
    assert data["account"]["username"] == "rita"
    assert [(a["problem"], a["instance"], a["answer"], a["right"]) for a in data["attempts"]] == [
        ("p3", 6, "0.2 0.3 0.5", True)
    ]
    assert client.get("/account/").content.decode().count('href="/account/export/"') == 1


def test_deleting_an_account_asks_first_then_removes_it_and_its_attempts(course, rita):
    sam = User.objects.create_user("sam", password=PASSWORD)
    attempt(rita, "p3", right=True)
    attempt(rita, "p2", right=False)
    attempt(sam, "p3", right=True)
    filed = ProblemReport.objects.create(
        chapter_code="II.7", problem_key="p3", message="Row 2 is off.", reporter=rita
    )
    client = Client(enforce_csrf_checks=True)
    client.force_login(rita)
    asked = client.get("/account/delete/")
    text = visible_text(asked.content.decode())
    assert "deletes it and your 2 attempts" in text
    assert client.post("/account/delete/").status_code == 403  # no CSRF token: nothing deleted
    assert User.objects.filter(username="rita").exists()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', asked.content.decode())[1]
    done = client.post("/account/delete/", {"csrfmiddlewaretoken": token})
    assert done.status_code == 303 and done["Location"] == "/account/deleted/"
    assert not User.objects.filter(username="rita").exists()
    assert list(Attempt.objects.values_list("reader__username", flat=True)) == ["sam"]
    filed.refresh_from_db()
    assert filed.reporter is None and filed.message == "Row 2 is off."
    assert "Your account is deleted" in page(client, "/account/deleted/")
    assert client.get("/account/").status_code == 302  # signed out
    assert sign_in(Client(), "rita").status_code == 200  # the form again: no such account


def test_a_staff_account_is_told_it_is_not_deleted_here(client, db):
    editor = User.objects.create_user("ed", password=PASSWORD, is_staff=True)
    client.force_login(editor)
    text = page(client, "/account/delete/")
    assert "Staff accounts are not deleted here" in text and "Delete my account" not in text
    assert client.post("/account/delete/").status_code == 403
    assert User.objects.filter(username="ed").exists()


def test_a_wrong_password_counts_towards_the_lockout(client, rita):
    User.objects.create_user("sam", password=PASSWORD)
    for _ in range(4):
        refused = sign_in(client, "rita", "not-the-password")
        assert refused.status_code == 200  # the form again, with the error
        assert (
            "The username and/or password you specified are not correct" in refused.content.decode()
        )
    assert AccessAttempt.objects.get(ip_address="127.0.0.1").failures_since_start == 4
    assert sign_in(client, "rita", "not-the-password").status_code == 429  # the fifth locks
    locked = sign_in(client, "sam")  # the address is locked, whoever signs in from it
    assert locked.status_code == 429
    assert "Too many tries from your address" in visible_text(locked.content.decode())
    assert client.get("/account/").status_code == 302  # not signed in
    again = sign_in(client, "rita")  # and allauth refuses the username tried five times too
    assert "Too many failed login attempts" in visible_text(again.content.decode())
    assert client.get("/account/").status_code == 302


def test_sign_ups_are_throttled_per_client_address(settings, db):
    settings.ACCOUNT_RATE_LIMITS = {"signup": "2/h/ip"}
    settings.NUM_PROXIES = 1
    first = {"HTTP_X_FORWARDED_FOR": "203.0.113.5"}
    for name in ("one", "two"):
        assert sign_up(Client(**first), name).status_code == 302
    refused = sign_up(Client(**first), "three")
    assert refused.status_code == 429
    assert "Too many tries from your address" in visible_text(refused.content.decode())
    assert not User.objects.filter(username="three").exists()
    other = Client(HTTP_X_FORWARDED_FOR="203.0.113.5, 198.51.100.7")  # what a client wrote is not
    assert sign_up(other, "three").status_code == 302  # believed: the proxy saw another address


def test_the_masthead_link_is_the_same_for_every_reader(client, course, rita):
    anonymous = Client().get("/").content
    client.force_login(rita)
    assert client.get("/").content == anonymous
    assert b'<a class="masthead-account" href="/account/">Your progress</a>' in anonymous
