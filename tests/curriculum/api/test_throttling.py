"""Anonymous reads are rate limited per address; token reads are not; a burst of concurrent
clients gets no more than the rate, whichever shared cache counts."""

import json
import math
import os
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from tests.curriculum.site.test_practice import PAGE, generated_chapter


def _address() -> str:
    """A fresh client address, so counts left in a shared cache never matter."""
    hex = uuid.uuid4().hex
    return f"2001:db8::{hex[:4]}:{hex[4:8]}:{hex[8:12]}"


def test_anonymous_reads_past_the_rate_get_429(client, db, settings):
    settings.API_ANON_RATE = "3/min"
    address = _address()
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert client.get("/api/v1/ping", REMOTE_ADDR=_address()).status_code == 200


def test_a_forwarded_for_header_does_not_dodge_the_limit(client, db, settings):
    settings.API_ANON_RATE = "1/min"
    address = _address()
    client.get("/api/v1/ping", REMOTE_ADDR=address)
    assert (
        client.get(
            "/api/v1/ping", REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR="203.0.113.9"
        ).status_code
        == 429
    )


def test_token_reads_are_not_throttled(client, db, settings, erin_token):
    settings.API_ANON_RATE = "1/min"
    address = _address()
    statuses = {
        client.get("/api/v1/ping", REMOTE_ADDR=address, **erin_token).status_code for _ in range(3)
    }
    assert statuses == {200}


def ask(url: str, body: dict | None = None, **headers: str) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def burst(url: str, times: int, body: dict | None = None, **headers: str) -> list[int]:
    """`times` requests from 16 threads at once: statuses in the order they were sent."""
    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(lambda _: ask(url, body, **headers), range(times)))


SHARED_CACHES = {
    "redis": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15"),
    },
    "database": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "burst_cache",
    },
}


@pytest.fixture(params=["redis"])
def shared_cache(request, settings, transactional_db):
    """Production's shared cache: Redis (CACHE_URL, or the broker's), whose counts are atomic.
    Django's database cache (no Redis at all) is tested where requests come one at a time."""
    settings.CACHES = {
        **settings.CACHES,
        "default": SHARED_CACHES[request.param] | {"KEY_PREFIX": uuid.uuid4().hex},
    }
    if request.param == "database":
        call_command("createcachetable", verbosity=0)
    yield request.param
    if request.param == "database":
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE burst_cache")


def test_a_burst_of_anonymous_reads_gets_exactly_the_rate(live_server, shared_cache, settings):
    settings.API_ANON_RATE = "20/min"
    statuses = burst(f"{live_server.url}/api/v1/ping", 120)
    assert statuses.count(200) == 20 and statuses.count(429) == 100, statuses


def test_a_burst_of_answer_checks_gets_exactly_the_rate_site_and_api_together(
    live_server, shared_cache, settings, seeded_committed, client
):
    settings.PRACTICE_CHECK_RATE = "10/min"
    generated_chapter()
    url = f"{live_server.url}/api/v1/chapters/II.7/problems/p3/instances/1/check"
    statuses = burst(url, 60, {"answer": "1 2 3; 4 5 6"}, **{"Content-Type": "application/json"})
    assert statuses.count(200) == 10 and statuses.count(429) == 50, statuses
    # the site's form is the same client's next check (127.0.0.1, as the live server sees it)
    refused = client.post(PAGE, {"instance": 1, "answer": "1 2 3\n4 5 6", "step": "check"})
    assert refused.status_code == 429


def test_behind_a_proxy_each_client_gets_its_own_rate(live_server, shared_cache, settings):
    """The proxy appends the address it saw; what a client put before it is not believed."""
    settings.NUM_PROXIES = 1
    settings.API_ANON_RATE = "10/min"
    url = f"{live_server.url}/api/v1/ping"
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(
            lambda client: burst(url, 30, **{"X-Forwarded-For": f"203.0.113.7, {client}"}),
            ["198.51.100.1", "198.51.100.2"],
        )
    assert first.count(200) == 10 and second.count(200) == 10, (first, second)
    forged = ask(url, **{"X-Forwarded-For": "198.51.100.3, 198.51.100.1"})
    assert forged == 429  # a forged first address changes nothing: the proxy's entry counts


@pytest.mark.parametrize("shared_cache", list(SHARED_CACHES), indirect=True)
def test_a_client_refused_is_told_when_to_retry_and_admitted_after_the_period(
    client, shared_cache, settings
):
    settings.API_ANON_RATE = "2/s"
    address = _address()
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[2]["Retry-After"] == "1"
    time.sleep(1.1)
    assert client.get("/api/v1/ping", REMOTE_ADDR=address).status_code == 200


@pytest.mark.parametrize("shared_cache", list(SHARED_CACHES), indirect=True)
def test_a_window_opened_just_before_a_whole_second_lasts_its_whole_period(
    client, shared_cache, settings
):
    """Django's database cache keeps an expiry to the whole second: a window opened at x.8 ended
    at x+1.0, and a third request at x+1.1 was admitted by a window of its own."""
    settings.API_ANON_RATE = "2/s"
    address = _address()
    time.sleep((0.8 - time.time() % 1) % 1)  # the next x.8
    whole_second = math.ceil(time.time())
    statuses = [client.get("/api/v1/ping", REMOTE_ADDR=address).status_code for _ in range(2)]
    time.sleep(max(0.0, whole_second + 0.1 - time.time()))  # past it, within the period
    statuses.append(client.get("/api/v1/ping", REMOTE_ADDR=address).status_code)
    assert statuses == [200, 200, 429]


def test_each_counted_read_announces_what_remains_from_the_same_count(db, settings):
    settings.API_ANON_RATE = "3/min"
    client = Client(REMOTE_ADDR=_address())
    answers = [client.get("/api/v1/ping") for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert [r["RateLimit-Remaining"] for r in answers] == ["2", "1", "0", "0"]
    assert {r["RateLimit-Limit"] for r in answers} == {"3"}
    assert 0 < int(answers[3]["Retry-After"]) <= 60
    assert answers[3]["Retry-After"] == answers[3]["RateLimit-Reset"]


CHECK = "/api/v1/chapters/II.7/problems/p3/instances/1/check"


def _check(client: Client) -> int:
    answer = {"answer": "1 2 3; 4 5 6"}
    return client.post(CHECK, answer, content_type="application/json").status_code


def _second_check_refused(settings, anonymous: str, checks: str) -> Client:
    """A client of its own checks II.7's generated exercise twice, anonymously: under both
    rates, the second check is past one of them."""
    settings.API_ANON_RATE, settings.PRACTICE_CHECK_RATE = anonymous, checks
    generated_chapter()
    client = Client(REMOTE_ADDR=_address())
    assert [_check(client), _check(client)] == [200, 429]
    return client


@pytest.mark.parametrize("shared_cache", list(SHARED_CACHES), indirect=True)
def test_a_check_refused_by_the_anonymous_rate_spends_none_of_the_check_rate(
    shared_cache, settings, seeded_committed
):
    client = _second_check_refused(settings, anonymous="1/2s", checks="2/min")
    time.sleep(2.1)  # a new anonymous window; the check rate's minute goes on
    assert _check(client) == 200  # the second of PRACTICE_CHECK_RATE's two
    assert _check(client) == 429


@pytest.mark.parametrize("shared_cache", list(SHARED_CACHES), indirect=True)
def test_a_check_refused_by_the_check_rate_spends_none_of_the_anonymous_rate(
    shared_cache, settings, seeded_committed
):
    client = _second_check_refused(settings, anonymous="2/min", checks="1/min")
    ping = client.get("/api/v1/ping")
    assert ping.status_code == 200 and ping["RateLimit-Remaining"] == "0"
    assert client.get("/api/v1/ping").status_code == 429
