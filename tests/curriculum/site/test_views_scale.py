"""Reads that do not grow with the course: every page and endpoint costs the same number of
queries on a small generated course and on a larger one."""

import random

from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.generation import CourseSize, chapter_document, course_generate
from curriculum.models import Book, Chapter, Release

URLS = [
    "/",
    "/books/I/",
    "/books/II/",
    "/chapters/I.1/",
    "/chapters/I.1/releases/1/",
    "/chapters/I.99/",  # a working copy, never released
    "/api/v1/books",
    "/api/v1/books?limit=1&offset=1",
    "/api/v1/books/I",
    "/api/v1/chapters",
    "/api/v1/chapters?book=II&maturity=M2&limit=2",
    "/api/v1/chapters?state=in_progress",
    "/api/v1/chapters/I.1",
    "/api/v1/chapters/I.99",
    "/api/v1/chapters/I.1/releases",
    "/api/v1/chapters/I.1/releases/1",
]


def course(size: CourseSize) -> None:
    Release.objects.all().delete()
    Chapter.objects.all().delete()
    Book.objects.all().delete()
    course_generate(seed=7, size=size)
    chapter_import(document=chapter_document(random.Random(7), "I.99", size))


def queries_per_url(client) -> dict[str, int]:
    counts = {}
    for url in URLS:
        assert client.get(url).status_code == 200, url  # and warm what is cached by version
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        counts[url] = len(queries)
    return counts


def test_every_page_and_endpoint_costs_the_same_queries_on_a_larger_course(client, db):
    course(CourseSize(books=2, chapters=3, problems=10, items=4, releases=1))
    small = queries_per_url(client)
    listed = client.get("/api/v1/chapters?limit=100").json()["count"]

    course(CourseSize(books=3, chapters=5, problems=14, items=9, releases=2))
    large = queries_per_url(client)

    assert client.get("/api/v1/chapters?limit=100").json()["count"] > listed
    assert large == small
    assert max(small.values()) <= 8, small
