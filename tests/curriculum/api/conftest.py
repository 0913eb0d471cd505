"""API fixtures: a client, tokens for Alice (author) and Erin (editor), and content of each kind."""

import pytest
from django.test import Client

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter
from tests.conftest import problem, sketch, verify_now


@pytest.fixture(autouse=True)
def generous_rate(settings):
    """Most tests make many anonymous requests; the throttling test sets its own rate."""
    settings.API_ANON_RATE = "100000/min"


@pytest.fixture
def client() -> Client:
    return Client()


def bearer(secret: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def alice_token(alice) -> dict:
    return bearer(token_issue(user=alice, name="alice laptop")[1])


@pytest.fixture
def erin_token(erin) -> dict:
    return bearer(token_issue(user=erin, name="erin CI")[1])


def released(code: str, erin, **overrides) -> Chapter:
    """A sketch chapter, verified and published as release 1."""
    chapter_import(document=sketch(code, **overrides))
    chapter = Chapter.objects.get(code=code)
    verify_now(chapter)
    chapter_publish(chapter=chapter, user=erin)
    return chapter


SECRETS = {
    "draft": "SECRET-DRAFT-TITLE",
    "item": "SECRET-UNPUBLISHED-ITEM",
    "proof": "SECRET-UNPUBLISHED-PROOF",
    "steps": "SECRET-UNPUBLISHED-STEPS",
    "answer": "0.0474258731",
    "working": "SECRET-NEWER-WORKING-COPY",
}


@pytest.fixture
def every_kind(seeded, erin):
    """Seed content plus: a draft (II.7), an in-progress chapter hiding an unpublished strand
    item, proof and solution (II.8), and a released chapter with a newer working copy (II.9)."""
    chapter_import(document=sketch("II.7", title=SECRETS["draft"], state="draft"))
    hidden = problem(
        "p4",
        scores=[[0.0, 3.0]],
        answer=[[0.04742587317756678, 0.9525741268224334]],
        published=False,
    )
    hidden["solution"]["steps"] = SECRETS["steps"]
    in_progress = sketch("II.8", problems=[*sketch()["problems"], hidden])
    in_progress["strands"]["basics"]["items"].append(
        {"title": "Hidden", "body": SECRETS["item"], "published": False}
    )
    in_progress["propositions"] = [
        {
            "number": 1,
            "title": "A claim",
            "statement": "It holds.",
            "proof": SECRETS["proof"],
            "proof_published": False,
        }
    ]
    chapter_import(document=in_progress)
    released("II.9", erin)
    chapter_import(document=sketch("II.9", thesis=SECRETS["working"], state="published"))
