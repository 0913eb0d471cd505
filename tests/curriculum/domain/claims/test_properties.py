"""Propositions checked numerically: a relation over seeded random instances, a counterexample
shown to the author when it fails, "checked numerically on N random instances" to readers."""

import pytest
import yaml

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.claims.decide import outcome
from curriculum.domain.claims.examples import CLAIMS, PROPERTIES
from curriculum.domain.claims.properties import property_errors
from curriculum.domain.claims.syntax import claims_in
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now

SHIFT = {
    "inputs": {
        "s": {"generate": "normal", "shape": [5], "seed": 1},
        "c": {"generate": "normal", "shape": [], "scale": 20.0, "seed": 2},
    },
    "holds": "softmax(scores=s + c).out == softmax(scores=s).out",
    "instances": 20,
    "tolerance": {"rtol": 1e-12, "atol": 1e-15},
}


def with_property(check: dict) -> dict:
    document = sketch()
    document["propositions"] = [
        {"number": 1, "title": "Shift.", "statement": "Softmax ignores a shift.", "check": check}
    ]
    return document


def test_a_true_property_is_verified_on_every_instance():
    assert outcome("property", SHIFT).status == "verified"


def test_a_false_property_shows_its_counterexample():
    false = SHIFT | {"holds": "softmax(scores=2 * s).out == softmax(scores=s).out"}
    decided = outcome("property", false)
    assert decided.status == "mismatch"
    assert decided.message.startswith("fails on instance 0:")
    assert decided.value["instance"] == 0 and set(decided.value["inputs"]) == {"s", "c"}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"instances": 0}, "check.instances"),
        ({"instances": 10_000}, "check.instances"),
        ({"holds": "softmax(scores=s).out"}, "check.holds"),  # no relation
        ({"holds": "softmax(scores=t).out == 1"}, "check.holds"),  # no such input
        ({"holds": "__import__('os') == 1"}, "check.holds"),
        ({"tolerance": {"rtol": -1}}, "check.tolerance.rtol"),
        ({"extra": 1}, "check.extra"),
        ({"inputs": {"s": {"generate": "normal", "shape": [2**20], "seed": 1}}}, "check.inputs.s"),
    ],
)
def test_a_malformed_property_is_refused_with_its_path(change, path):
    errors = property_errors(SHIFT | change)
    assert errors and any(where.startswith(path) for where, _ in errors), errors


def test_the_import_refuses_a_malformed_property_with_its_path(books):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_property(SHIFT | {"instances": "many"}))
    assert any(e.startswith("propositions[0].check.instances:") for e in refused.value.errors)


def test_a_false_property_blocks_publishing_and_a_true_one_is_shown_as_checked(books):
    chapter_import(document=with_property(SHIFT | {"holds": "softmax(scores=s).out == 0.2"}))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    (reason,) = ChapterPublish(chapter=chapter).check()
    assert reason.startswith("propositions[0].check: property Prop. 1: softmax(scores=s).out")
    assert "fails on instance 0" in reason
    chapter_import(document=with_property(SHIFT))
    verify_now(chapter)
    release = chapter_publish(chapter=chapter)
    checked = release.snapshot["propositions"][0]["checked"]
    assert checked["words"].startswith("Checked numerically on 20 random instances")
    assert checked["status"] == "verified"
    assert "proved" not in checked["words"]


def test_the_seed_propositions_carry_their_checks_and_readers_see_them(seeded):
    for code, count in (("II.3", 2), ("II.4", 1)):
        chapter = Chapter.objects.get(code=code)
        verify_now(chapter)
        shown = chapter_for_reader(code=code).snapshot["propositions"]
        checked = [p["checked"] for p in shown if "checked" in p]
        assert len(checked) == count
        assert all(c["status"] == "verified" for c in checked), checked
    ii4 = chapter_for_reader(code="II.4").snapshot["propositions"][0]["checked"]
    assert "scaling and softmax terms" in ii4["note"]  # what the check leaves out, said


@pytest.mark.parametrize("example", CLAIMS, ids=lambda e: e.written[:40])
def test_every_claim_in_the_operations_reference_is_verified(example):
    claims = claims_in(example.written)
    assert claims
    for claim in claims:
        spec = claim.spec | ({"context": example.context} if example.context else {})
        decided = outcome("claim", spec)
        assert decided.status == "verified", decided.message


@pytest.mark.parametrize("example", PROPERTIES, ids=lambda e: e.meaning[:40])
def test_every_property_in_the_operations_reference_is_verified(example):
    check = yaml.safe_load(example.written)
    assert property_errors(check) == []
    decided = outcome("property", check)
    assert decided.status == "verified", decided.message


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"tolerance": {"rtol": 1e9, "atol": 1e9}}, "check.tolerance.rtol"),
        ({"tolerance": {"atol": 0.5}}, "check.tolerance.atol"),
        (
            {
                "inputs": {
                    f"x{i}": {"generate": "normal", "shape": [64, 32, 32], "seed": i}
                    for i in range(3)
                }
            },
            "check.inputs",
        ),
    ],
)
def test_a_property_too_loose_or_too_large_is_refused(change, path):
    errors = property_errors(SHIFT | change)
    assert any(where.startswith(path) for where, _ in errors), errors


def test_a_property_that_compares_nothing_is_an_error():
    decided = outcome("property", SHIFT | {"holds": "s[:0] == 5"})
    assert decided.status == "error" and "compares nothing" in decided.message


@pytest.mark.parametrize(
    "check, why",
    [
        (  # draws of 1e-7 within an atol of 1e-6: x == 2 * x "verified on 50 instances"
            {"generate": "normal", "shape": [3], "scale": 1e-7, "round": 10, "seed": 1},
            "its sides are at most",
        ),
        (  # draws rounded to 0 at the default 2 decimals: 0 == 0 on every instance
            {"generate": "normal", "shape": [3], "scale": 1e-3, "seed": 1},
            "both sides are 0",
        ),
    ],
)
def test_a_property_whose_sides_are_within_its_tolerance_of_0_is_an_error_never_verified(
    check, why
):
    spec = {
        "inputs": {"x": check},
        "holds": "x == 2 * x",
        "instances": 50,
        "tolerance": {"rtol": 0, "atol": 1e-6},
    }
    decided = outcome("property", spec)
    assert decided.status == "error" and "compares nothing on instance 0: " + why in decided.message
    wide = spec | {"holds": "x + 1 == 2 * x + 1", "inputs": {"x": check | {"scale": 1.0}}}
    assert outcome("property", wide).status == "mismatch"  # compared at 1: the relation fails


SUM = {
    "inputs": {"s": {"generate": "normal", "shape": [5], "seed": 1}},
    "holds": "sum(softmax(scores=s).out) == 1.0000000001",
    "instances": 5,
}


@pytest.mark.parametrize("holds", [SUM["holds"], "-1.0000000001 == -sum(softmax(scores=s).out)"])
def test_a_constant_a_property_states_is_held_to_its_figures_as_a_claims_is(holds):
    """A hostile test had `sum(...) == 1.0001` verified within rtol 5e-4, a false statement
    shown as checked; the same number in a claim is refused for that tolerance."""
    errors = property_errors(SUM | {"holds": holds, "tolerance": {"rtol": 1e-9}})
    assert errors == [
        (
            "check.holds",
            f"{holds.split()[0] if holds[0] == '-' else '1.0000000001'} is written to 11 "
            "significant figures; this tolerance would let its last figure be wrong: tighten "
            "it, or type fewer figures",
        )
    ]
    assert outcome("property", SUM | {"tolerance": {"rtol": 1e-12}}).status == "mismatch"


@pytest.mark.parametrize(
    "holds",
    [
        "sum(softmax(scores=s).out) == -(-1.0001)",
        "sum(softmax(scores=s).out) == 1.0001 * 1",
        "sum(softmax(scores=s).out) == 1 + 1e-4",
        "softmax(scores=[0, 1]).out + 0 * s[0] == [0.2690, 0.7310]",
    ],
)
def test_a_false_identity_is_not_verified_whatever_its_constants_look_like(holds):
    """A hostile test had each verified at rtol 5e-4, the answers' bound; a property's == is
    equality up to float noise (at most 1e-9)."""
    loose = property_errors(SUM | {"holds": holds, "tolerance": {"rtol": 5e-4}})
    assert [where for where, _ in loose] == ["check.tolerance.rtol"]
    assert outcome("property", SUM | {"holds": holds, "tolerance": {"rtol": 1e-9}}).status == (
        "mismatch"
    )


def test_a_constant_within_its_figures_and_a_bound_are_not_refused():
    for holds, tolerance in [
        ("sum(softmax(scores=s).out) == 1.0", {"rtol": 1e-12, "atol": 1e-15}),
        ("softmax(scores=s).out <= 1.0001", {"rtol": 1e-9}),
    ]:
        assert property_errors(SUM | {"holds": holds, "tolerance": tolerance}) == [], holds


@pytest.mark.parametrize("holds", ["n*n*n*n + 1 == n*n*n*n", "n*n*n*n + 1 > n*n*n*n"])
def test_a_property_past_exact_whole_numbers_is_an_error_never_verified(holds):
    """A hostile test had the false n**4 + 1 == n**4 verified exactly on draws of a million,
    and the true n**4 + 1 > n**4 fail: float64 holds no odd whole number past 2^53."""
    spec = {
        "inputs": {
            "n": {"generate": "integers", "low": 999000, "high": 1000000, "shape": [], "seed": 1}
        },
        "holds": holds,
        "instances": 5,
    }
    decided = outcome("property", spec)
    assert decided.status == "error" and "past 2^53" in decided.message, decided


def test_a_property_float64_rounding_decides_is_an_error_never_verified():
    """x + 1e17 - 1e17 == x holds exactly, and float64 makes it fail or hold by rounding alone:
    the engine says it cannot tell, on the first instance where that is so."""
    spec = SHIFT | {
        "holds": "s + 1e17 - 1e17 == s",
        "tolerance": {"rtol": 1e-6, "atol": 1e-9},
    }
    decided = outcome("property", spec)
    assert decided.status == "error", decided
    assert decided.message.startswith("the engine cannot tell whether it holds on instance 0 at [")
    assert "float64's rounding may move the difference of its sides" in decided.message
