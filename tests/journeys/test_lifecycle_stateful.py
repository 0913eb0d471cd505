"""The course as it lives, tested as a class: random sequences of edits, imports, verdicts,
publishing (second and third releases), withdrawing, republishing, problems deleted and added,
and renames, by every writer (services as admin calls them, the API, files), on PostgreSQL.

After every step, every reader surface is read anonymously and as staff, and must hold:
every page and list answers (200, or 404 for what is hidden, never a 500); a draft appears
nowhere anonymous; each release reads the same forever to each kind of reader (its body, bar
which release is now the latest; staff read exercises whole, others without their solutions
and hints); derived counts equal a recount from scratch; and no page's query count grows with
the number of releases.

Bounded for CI; LIFECYCLE_EXAMPLES=200 (and LIFECYCLE_STEPS) runs it longer.
"""

import json
import os

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from curriculum.bodies import PROCESS_BODIES
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.counting import chapter_counts
from curriculum.domain.editing import ChapterSave, ChapterWithdraw, ProblemDelete, ProblemSave
from curriculum.domain.gate import ChapterPublish, PublishRefused
from curriculum.domain.roles import Forbidden
from curriculum.domain.selectors import chapter_with_parts
from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter, Problem, Solution
from tests.conftest import problem, sketch, verify_now

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL is evidence")

EXAMPLES = int(os.environ.get("LIFECYCLE_EXAMPLES", "3"))
STEPS = int(os.environ.get("LIFECYCLE_STEPS", "10"))
CODES = ("II.7", "II.8", "II.9")
# Measured ceilings (a staff page that builds its working copy: 12); a release read must cost
# no more at its third release than at its first.
MAX_QUERIES = {"page": 14, "list": 15, "release": 14}  # a book page asks whether its PDF is made
PROGRESS_QUERIES = 4
"""What a signed-in reader's own progress adds to a site page, whatever the course's size: the
contents and their two queries of attempts (domain/progress.py loads only chapters tried)."""


class Lifecycle(RuleBasedStateMachine):
    """A small course of up to three chapters beside Book 0, driven through every writer."""

    def __init__(self):
        super().__init__()
        self.savepoint = transaction.savepoint_create()  # each example starts from the same course
        cache.clear()
        self.users = pytest.lifecycle_users
        self.anonymous, self.staff = Client(), Client()
        self.staff.force_login(self.users["erin"])
        self.tokens = {
            name: {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=user, name='t')[1]}"}
            for name, user in self.users.items()
        }
        self.seen: dict[tuple[str, int, bool], dict] = {}  # each release as first read
        self.pks: dict[str, int] = {}  # code -> chapter pk, renames followed
        self.release_queries: dict[tuple[bool, bool], int] = {}  # first seen, per reader and URL

    def teardown(self):
        transaction.savepoint_rollback(self.savepoint)

    # -- writers ----------------------------------------------------------------------------

    @initialize()
    def a_released_chapter(self):
        """Every example starts with II.7 at release 1, so renames and withdrawals bite."""
        chapter_import(document=sketch("II.7", title="Released"))
        self.release(code="II.7", writer="erin")
        assert Chapter.objects.get(code="II.7").releases.count() == 1

    def _chapter(self, code: str) -> Chapter | None:
        return Chapter.objects.filter(code=code).first()

    def _user(self, name: str):
        return self.users.get(name)  # "cli" is None: the command line

    def _editors_only(self, code: str, writer: str, draft: bool) -> bool:
        """Withdrawing a released chapter, or showing a withdrawn one again, is for Editors."""
        chapter = self._chapter(code)
        if writer != "alice" or chapter is None or not chapter.releases.exists():
            return False
        return (chapter.state == Chapter.State.DRAFT) != draft

    @rule(
        code=st.sampled_from(CODES),
        title=st.sampled_from(["One", "Two", "Three"]),
        draft=st.booleans(),
        writer=st.sampled_from(["cli", "alice", "erin"]),
    )
    def import_file(self, code, title, draft, writer):
        """A chapter file, as `import_chapter` or a token's PUT brings it."""
        document = sketch(
            code,
            title=title,
            state="draft" if draft else "in_progress",
            thesis=f"Claim {title}.\r\nSecond line.",
        )
        refused = self._editors_only(code, writer, draft)
        try:
            chapter_import(document=document, user=self._user(writer))
        except Forbidden:
            assert refused
            return
        assert not refused
        self.pks[code] = Chapter.objects.get(code=code).pk

    @rule(
        code=st.sampled_from(CODES), writer=st.sampled_from(["alice", "erin"]), draft=st.booleans()
    )
    def put_through_the_api(self, code, writer, draft):
        document = sketch(code, title="By the API", state="draft" if draft else "in_progress")
        refused = self._editors_only(code, writer, draft)
        existed = self._chapter(code) is not None
        response = Client().put(
            f"/api/v1/chapters/{code}",
            json.dumps(document),
            content_type="application/json",
            **self.tokens[writer],
        )
        assert response.status_code == (403 if refused else 200 if existed else 201), (
            response.content
        )
        if not refused:
            self.pks[code] = Chapter.objects.get(code=code).pk

    @rule(code=st.sampled_from(CODES), writer=st.sampled_from(["cli", "alice", "erin"]))
    def edit_thesis(self, code, writer):
        chapter = self._chapter(code)
        if chapter is None:
            return
        chapter.thesis = "Edited in admin.\r\nWith CRLF."
        ChapterSave(chapter=chapter, user=self._user(writer)).execute()
        assert "\r" not in Chapter.objects.get(pk=chapter.pk).thesis

    @rule(code=st.sampled_from(CODES))
    def verify(self, code):
        chapter = self._chapter(code)
        if chapter is not None:
            verify_now(chapter)

    @rule(code=st.sampled_from(CODES), writer=st.sampled_from(["cli", "alice", "erin"]))
    def publish(self, code, writer):
        chapter = self._chapter(code)
        if chapter is None:
            return
        before = chapter.releases.count()
        try:
            publication = ChapterPublish(chapter=chapter, user=self._user(writer)).execute()
        except Forbidden:
            assert writer == "alice"
            return
        except PublishRefused:
            return
        release = publication.release
        assert chapter.releases.count() == before + publication.made
        if publication.made:
            assert release.made_by == (writer if writer != "cli" else "system")
        # at once again: nothing readers see changed, so no release, whoever asks
        assert not ChapterPublish(chapter=chapter, user=self._user(writer)).execute().made
        recount = chapter_counts(chapter_with_parts(code=code))
        assert release.snapshot["derived"]["owes"] == recount.owes
        assert [s["done"] for s in release.snapshot["derived"]["strands"]] == [
            s.done for s in recount.strands
        ]

    @rule(code=st.sampled_from(CODES), writer=st.sampled_from(["cli", "erin"]))
    def release(self, code, writer):
        """An Editor's usual act: ask the verifier, then publish (a second, third release)."""
        self.verify(code=code)
        self.publish(code=code, writer=writer)

    @rule(code=st.sampled_from(CODES), writer=st.sampled_from(["alice", "erin"]))
    def withdraw(self, code, writer):
        chapter = self._chapter(code)
        if chapter is None:
            return
        try:
            ChapterWithdraw(chapter=chapter, user=self._user(writer)).execute()
        except Forbidden:
            assert writer == "alice"

    @rule(code=st.sampled_from(CODES), key=st.sampled_from(["p1", "p2", "p3", "p4"]))
    def delete_problem(self, code, key):
        found = Problem.objects.filter(chapter__code=code, key=key).first()
        if found is not None:
            ProblemDelete(problem=found, user=self.users["alice"]).execute()

    @rule(code=st.sampled_from(CODES), key=st.sampled_from(["p3", "p4"]))
    def add_problem(self, code, key):
        chapter = self._chapter(code)
        if chapter is None or chapter.problems.filter(key=key).exists():
            return
        written = problem(key)
        new = Problem(
            chapter=chapter,
            key=key,
            kind=written["kind"],
            variant=written["variant"],
            statement=written["statement"],
            operation=written["operation"],
            inputs=written["inputs"],
            ask=written["ask"],
        )
        ProblemSave(
            problem=new, solution=Solution(**written["solution"]), user=self.users["alice"]
        ).execute()

    @rule(code=st.sampled_from(CODES), to=st.sampled_from(CODES))
    def rename(self, code, to):
        chapter = self._chapter(code)
        if chapter is None or code == to or self._chapter(to) is not None:
            return
        released = chapter.releases.exists()
        chapter.code, chapter.number = to, int(to.split(".")[1])
        try:
            ChapterSave(chapter=chapter, user=self.users["alice"]).execute()
        except ValidationError as refusal:
            assert released and "cannot change once the chapter has a release" in str(refusal)
            return
        assert not released, "a released chapter was renamed"
        del self.pks[code]
        self.pks[to] = chapter.pk

    # -- what readers get ---------------------------------------------------------------------

    def _get(self, client: Client, url: str, kind: str, **headers):
        connection.queries_log.clear()  # a long run would fill it, and a full log counts 0
        if kind == "release":  # every read a build: a kept body costs fewer queries than one
            cache.clear()
            PROCESS_BODIES.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, **headers)
        assert response.status_code in (200, 404), (url, response.status_code)
        signed_in = client is not self.anonymous and not url.startswith("/api/")
        assert len(queries) <= MAX_QUERIES[kind] + PROGRESS_QUERIES * signed_in, (url, len(queries))
        if kind == "release" and response.status_code == 200:
            shape = (client is self.anonymous, url.startswith("/api/"))
            first = self.release_queries.setdefault(shape, len(queries))
            assert len(queries) <= first, (url, len(queries), "grew from", first)
        return response

    @invariant()
    def every_surface_answers_and_hides_drafts(self):
        chapters = list(Chapter.objects.filter(code__in=CODES))
        drafts = {c.code for c in chapters if c.state == Chapter.State.DRAFT}
        for client, who in ((self.anonymous, {}), (self.staff, self.tokens["erin"])):
            anonymous = client is self.anonymous
            for url in ("/", "/books/II/", "/books/0/"):
                page = self._get(client, url, "list").content.decode()
                for code in drafts if anonymous else ():
                    assert f"/chapters/{code}/" not in page, (url, code)
            for url in ("/api/v1/books", "/api/v1/chapters", "/api/v1/chapters?book=II"):
                response = self._get(client, url, "list", **who)
                assert response.status_code == 200
                if url.endswith("chapters"):
                    self._counts_are_a_recount(response.json()["items"], anonymous, drafts)
            for chapter in chapters:
                self._chapter_surfaces(client, who, chapter, anonymous)

    def _counts_are_a_recount(self, listed, anonymous, drafts):
        codes = {c["code"] for c in listed}
        if anonymous:
            assert not codes & drafts, codes & drafts
        for summary in listed:
            if summary["code"] not in CODES:
                continue
            chapter = chapter_with_parts(code=summary["code"])
            latest = chapter.releases.order_by("-number").first()
            assert summary["latest_release"] == (latest.number if latest else None)
            if latest is None:
                counts = chapter_counts(chapter)
                strands = [
                    {"kind": s.kind, "done": s.done, "target": s.target} for s in counts.strands
                ]
                owes = counts.owes
            else:
                strands = [
                    {k: s[k] for k in ("kind", "done", "target")}
                    for s in latest.snapshot["derived"]["strands"]
                ]
                owes = latest.snapshot["derived"]["owes"]
            assert (summary["strands"], summary["owes"]) == (strands, owes), summary["code"]

    def _chapter_surfaces(self, client, who, chapter, anonymous):
        hidden = anonymous and chapter.state == Chapter.State.DRAFT
        expected = 404 if hidden else 200
        code = chapter.code
        for url, kind, headers in (
            (f"/chapters/{code}/", "page", {}),
            (f"/api/v1/chapters/{code}", "page", who),
        ):
            assert self._get(client, url, kind, **headers).status_code == expected, url
        for number in chapter.releases.values_list("number", flat=True):
            page = self._get(client, f"/chapters/{code}/releases/{number}/", "release")
            assert page.status_code == expected
            api = self._get(client, f"/api/v1/chapters/{code}/releases/{number}", "release", **who)
            assert api.status_code == expected
            if not hidden:
                body = api.json()
                body.pop("latest_release")  # which release is now the latest: it moves
                if anonymous:
                    held = [p for p in body["problems"] if p["kind"] == "exercise"]
                    assert not any("solution" in p or "hints" in p for p in held), (code, number)
                seen = self.seen.setdefault((code, number, anonymous), body)
                assert seen == body, (code, number)


def test_the_course_keeps_its_invariants_whatever_the_writers_do(books, alice, erin):
    pytest.lifecycle_users = {"alice": alice, "erin": erin}
    with override_settings(API_ANON_RATE="1000000/min"):  # a long run reads more than 120/min
        run_state_machine_as_test(
            Lifecycle,
            settings=settings(
                max_examples=EXAMPLES,
                stateful_step_count=STEPS,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
            ),
        )
