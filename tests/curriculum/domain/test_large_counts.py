"""A count past 2**53 written with a point or an exponent is read as the whole number written, by
an author's file (YAML or JSON) and by a reader's typed answer alike: float64 holds only some
whole numbers there, and 18870291408000001.0 read as a float is its neighbour, the count."""

import json
import re

import pytest

import attention
from curriculum.domain.chapter_files import ChapterFileError, NumbersUnheld
from curriculum.domain.chapter_files.json_form import json_read
from curriculum.domain.chapter_files.yaml_form import load_yaml
from curriculum.domain.practice import AnswerInvalid, answer_parse
from curriculum.tasks import verify_solution
from tests.curriculum.conftest import import_chapter, uniform_problem

INPUTS = {"seq_len": 3000000, "width": 512, "heads": 8}
FLOPS = 18870291408000000  # a float exactly (1.8870291408e16), and so is its neighbour + 1


def test_the_count_is_past_2_to_the_53_and_its_neighbour_rounds_to_it_as_a_float():
    assert int(attention.evaluate("attention_cost", INPUTS, {"output": "flops"})) == FLOPS
    assert FLOPS > 2**53 and float(FLOPS + 1) == float(FLOPS)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("1.8870291408e16", FLOPS),
        ("18870291408000000.0", FLOPS),
        ("18870291408000001.0", FLOPS + 1),
        ("-1.0e16", -(10**16)),
        ("1.5e300", 15 * 10**299),
        ("9007199254740993.0", 2**53 + 1),  # float64 would read 2**53
        ("2.5", 2.5),
    ],
)
def test_a_number_is_read_as_written_by_yaml_json_and_a_readers_typed_answer(written, read):
    readings = [
        load_yaml(f"answer: {written}")["answer"],
        json_read(f'{{"answer": {written}}}'.encode())["answer"],
        answer_parse(written)[0],
        answer_parse(f"[{written}]")[0][0],
    ]
    assert readings == [read] * 4
    assert {type(value) for value in readings} == {type(read)}


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("36943215058793618.5", "3.694321505879362e+16"),
        ("3.69432150587936171e16", "3.694321505879362e+16"),
        ("-9007199254740992.5", "-9007199254740992.0"),
        ("4110396818392708.2", "4110396818392708.0"),  # below 2**53, past its last fraction
        ("2448.00000000000001", "2448.0"),
    ],
)
def test_a_fraction_float64_would_lose_is_refused_where_it_stands(written, read):
    """Read as a float it was the whole number beside it, which the database then kept as that
    integer: an author's count written 36943215058793618.5 was verified as ...620, one written
    4110396818392708.2 as ...708, and a feedback answer became the solution's, which the
    chapter's own export could not import."""
    said = f"{written}: float64 would read it as {read}, losing its fraction"
    with pytest.raises(ChapterFileError) as refused:
        load_yaml(f"answer:\n  - {written}")
    assert refused.value.errors[0].startswith(f"line 2, column 5: {said}")
    with pytest.raises(NumbersUnheld) as refused_json:
        json_read(f'{{"answer": [1, {{"flops": {written}}}], "n": {written}}}'.encode())
    assert [error.partition(": ")[0] for error in refused_json.value.errors] == [
        "answer[1].flops",
        "n",
    ]
    assert refused_json.value.errors[0] == f"answer[1].flops: {said}: write the whole number " + (
        "meant, or fewer figures"
    )
    with pytest.raises(AnswerInvalid, match=f"^line 1: {re.escape(said)}"):
        answer_parse(f"1 {written}")
    with pytest.raises(AnswerInvalid, match=f"^{re.escape(said)}"):
        answer_parse(f"[1, {written}]")


def cost_problem(key: str, written: str) -> dict:
    answer = load_yaml(f"answer: {written}")["answer"]
    changes = {"variant": key, "operation": "attention_cost", "ask": {"output": "flops"}}
    return uniform_problem(key, answer, inputs=INPUTS, tolerance={"digits": 3}, **changes)


def test_an_author_is_verified_for_the_count_as_written_and_refused_one_off(books):
    """jsonb stores 1.8870291408e16 as the integer it is; it stored 18870291408000001.0 as that
    too, and the author's count, off by one, was verified."""
    keys = {"exp": "1.8870291408e16", "point": "18870291408000000.0", "off": "18870291408000001.0"}
    ids = import_chapter([cost_problem(key, written) for key, written in keys.items()])
    assert [verify_solution(sid) for sid in ids] == ["verified", "verified", "mismatch"]


def test_a_reader_typing_the_count_with_an_exponent_is_right_and_one_off_is_wrong():
    flops = attention.evaluate("attention_cost", INPUTS, {"output": "flops"})
    for written, right in [("1.8870291408e16", True), ("18870291408000001.0", False)]:
        assert attention.compare(flops, answer_parse(written)[0], digits=3).ok is right


def test_a_count_one_off_is_reported_one_off_not_as_the_0_float64_makes_of_it():
    flops = attention.evaluate("attention_cost", INPUTS, {"output": "flops"})
    off = attention.compare(flops, FLOPS + 1, digits=3)
    assert not off.ok and off.max_abs_error == 1.0
    assert off.max_rel_error == pytest.approx(1 / (FLOPS + 1))
    assert attention.compare(flops, FLOPS).max_abs_error == 0.0


def test_a_body_of_many_such_numbers_names_ten_and_counts_the_rest():
    body = json.dumps({"answer": ["X"] * 1000}).replace('"X"', "2448.00000000000001").encode()
    with pytest.raises(NumbersUnheld) as refused:
        json_read(body)
    errors = refused.value.errors
    assert [e.partition(": ")[0] for e in errors[:10]] == [f"answer[{n}]" for n in range(10)]
    assert errors[10:] == ["body: 990 more numbers like these"]
