"""Claims: numbers typed in a chapter's texts, checked by the engine before the chapter may be
released, shown to readers as typed with a mark saying what they were checked against."""

import copy

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.claims.decide import outcome
from curriculum.domain.claims.found import found_in
from curriculum.domain.claims.pattern import CLAIM, figures_of
from curriculum.domain.claims.reports import claim_rows
from curriculum.domain.claims.syntax import claim_errors, claims_in
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.markup import render
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Chapter, ClaimVerdict, StrandItem
from tests.conftest import sketch, verify_now

A10 = "0.731059"  # softmax([1, 0])[0], to 6 figures


def with_claim(body: str, *, published: bool = True, where: str = "item", code: str = "II.7"):
    document = sketch(code)
    if where == "item":
        item = {"title": "Checked", "body": body, "published": published}
        document["strands"]["basics"]["items"].append(item)
        document["strands"]["basics"]["target"] = 1
    else:
        document["problems"][0]["solution"]["steps"] = body
    return document


def imported(document: dict) -> Chapter:
    chapter_import(document=document)
    chapter = Chapter.objects.get(code=document["code"])
    verify_now(chapter)
    return chapter


def reasons(chapter: Chapter) -> list[str]:
    return ChapterPublish(chapter=chapter).check()


@pytest.mark.parametrize(
    ("number", "figures"),
    [("0.2690", 4), ("1216", 4), ("1200", 2), ("2.50", 3), ("1.5e-3", 2), ("-0.05", 1), ("7", 1)],
)
def test_figures_are_counted_as_written(number, figures):
    assert figures_of(number) == figures


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{{ 0.5 == softmax(scores=[0, 0]).out[0] }}", "is not a claim"),
        ("{{ 0.5 = }}", "the expression is empty"),
        ("{{ 0.27 = softmax(scores=[0, 1]).out[0] | digits 2 }}", "digits"),
        ("{{ 0.27 = softmax(scores=[0, 1]).out[0] | rtol 0.01 atol 0 }}", "rtol"),
        ("{{ 0.27 = softmax(scores=[0, 1]).out[0] | within 0.01 }}", "tolerance"),
        ("{{ 1 = __import__('os') }}", "claim"),
        ("{{ 1 = x.__class__ }}", "claim"),
    ],
)
def test_a_malformed_claim_is_an_error_saying_what_is_wrong(text, said):
    errors = claim_errors(f"The value is {text}.")
    assert len(errors) == 1 and said in errors[0], errors


def test_a_claim_shows_the_number_typed_with_a_mark_saying_what_it_was_checked_against(settings):
    html = render(
        f"So $a_{{10}} \\approx {{{{ {A10} = softmax(scores=[1, 0]).out[0] }}}}$, and "
        "the weights sum to {{ 1 = sum(softmax(scores=[1, 0]).out) }}."
    )
    assert "{{" not in html and "softmax(scores" not in html.split('title="')[0]
    assert f"<mn>{A10}</mn>" in html
    assert html.count('class="claim"') == 2 and 'tabindex="0"' in html
    assert (
        "Checked by the engine: 0.731059 = softmax(scores=[1, 0]).out[0], to 6 significant "
        "figures, as written" in html
    )
    assert "sum to 1<span" in html


def test_no_text_can_forge_a_mark():
    html = render("Trust me \ue0000\ue001 and \ue000")
    assert 'class="claim"' not in html


@pytest.mark.parametrize(
    ("typed", "expression", "status"),
    [
        (A10, "softmax(scores=[1, 0]).out[0]", "verified"),
        ("0.7311", "softmax(scores=[1, 0]).out[0]", "verified"),
        ("0.7312", "softmax(scores=[1, 0]).out[0]", "mismatch"),  # off in the 4th figure
        ("0.731159", "softmax(scores=[1, 0]).out[0]", "mismatch"),  # off in the 4th figure
        (A10, "softmax(scores=[1, 0]).out[1]", "mismatch"),  # the wrong selector
        ("1", "0.996", "mismatch"),  # never looser than 3 figures, however few are typed
        ("1", "1.0004", "verified"),
        ("0", "1e-17", "mismatch"),  # a number, not float noise: its own rounding is 1e-33
        ("0", "0.1 + 0.2 - 0.3", "verified"),  # float noise: 5.6e-17, within its rounding
        ("0", "0.001", "mismatch"),
        ("(0.731059, 0.268941)", "softmax(scores=[1, 0]).out", "verified"),
        ("(0.731059, 0.268941)", "softmax(scores=[[1, 0], [0, 0]]).out", "mismatch"),  # 4 numbers
        ("2736", "attention_cost(seq_len=4, width=8, heads=2).flops", "verified"),
        ("2737", "attention_cost(seq_len=4, width=8, heads=2).flops", "mismatch"),
    ],
)
def test_the_engine_decides_a_claim_at_the_precision_it_is_written(typed, expression, status):
    (claim,) = claims_in(f"{{{{ {typed} = {expression} }}}}")
    decided = outcome("claim", claim.spec)
    assert decided.status == status, decided.message
    if status == "mismatch":
        assert decided.message


def test_a_claim_reads_its_problems_inputs_and_outputs():
    context = {"operation": "softmax", "inputs": {"scores": [[1, 0]]}}
    (right,) = claims_in(f"{{{{ {A10} = outputs.out[0, 0] }}}}")
    (wrong,) = claims_in("{{ 0.5 = outputs.out[0, 0] }}")
    (unknown,) = claims_in("{{ 0.5 = outputs.nothing[0] }}")
    assert outcome("claim", right.spec | {"context": context}).status == "verified"
    assert outcome("claim", wrong.spec | {"context": context}).status == "mismatch"
    assert outcome("claim", unknown.spec | {"context": context}).status == "error"


def test_a_claim_reads_a_problems_outputs_only_where_computing_them_is_claim_sized(books, settings):
    """Each claim on a problem's outputs computes the problem again: a hostile test's 20 such
    claims on one large problem took 84 s of a worker, past every claim's LIMIT_CLAIM_WORK."""
    document = with_claim(f"So {{{{ {A10} = outputs.out[0, 0] }}}}.", where="steps")
    context = {"operation": "softmax", "inputs": {"scores": [[1, 0]]}}
    (claim,) = claims_in(f"{{{{ {A10} = outputs.out[0, 0] }}}}")
    settings.LIMIT_CLAIM_WORK = 10
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    [error] = refused.value.errors
    assert error.startswith("problems[0].solution.steps: claim {{ 0.731059 = outputs.out[0, 0]")
    assert "computing them needs at most LIMIT_CLAIM_WORK (10) of engine work" in error
    stored = outcome("claim", claim.spec | {"context": context})  # stored before the limit
    assert stored.status == "error" and "LIMIT_CLAIM_WORK" in stored.message
    settings.LIMIT_CLAIM_WORK = 10**8
    assert outcome("claim", claim.spec | {"context": context}).status == "verified"


def test_a_wrong_claim_blocks_publishing_with_a_reason_quoting_it(books):
    chapter = imported(with_claim("Here $a = {{ 0.7312 = softmax(scores=[1, 0]).out[0] }}$."))
    (reason,) = reasons(chapter)
    assert reason.startswith("strands.basics.items[1].body: claim 0.7312 = softmax(")
    assert "is not verified (mismatch: 0.7312 typed, the engine gives 0.7310585786" in reason
    with pytest.raises(Exception, match="0.7312"):
        chapter_publish(chapter=chapter)


def test_a_right_claim_is_verified_and_the_chapter_publishes(books):
    chapter = imported(with_claim(f"Here $a = {{{{ {A10} = softmax(scores=[1, 0]).out[0] }}}}$."))
    assert reasons(chapter) == []
    release = chapter_publish(chapter=chapter)
    assert release.snapshot["derived"]["checks"] == {
        "claims": 1,
        "claims_verified": 1,
        "properties": 0,
        "properties_verified": 0,
    }
    html = release.snapshot["strands"]["basics"]["items"][1]["body_html"]
    assert f"<mn>{A10}</mn>" in html and 'class="claim"' in html


def test_a_claim_in_a_draft_part_blocks_nothing(books):
    chapter = imported(with_claim("{{ 5 = 2 + 2 }}", published=False))
    assert reasons(chapter) == []
    (row,) = claim_rows(code="II.7")
    assert row.state == "mismatch" and not row.visible


def test_a_claim_in_a_proposition_title_is_listed_checked_and_shown_marked(books):
    """A title is Markdown as a statement is: its claims were neither found nor checked."""
    document = sketch()
    document["propositions"] = [{"title": "Half is {{ 0.5 = 1/3 }}", "statement": "It is."}]
    chapter = imported(document)
    (row,) = claim_rows(code="II.7")
    assert (row.path, row.state, row.visible) == ("propositions[0].title", "mismatch", True)
    (reason,) = reasons(chapter)
    assert reason.startswith("propositions[0].title: claim 0.5 = 1/3")
    html = chapter_for_reader(code="II.7").snapshot["propositions"][0]["title_html"]
    assert ">✗</span>" in html and "{{" not in html


def test_an_edited_claim_is_decided_again_and_blocks_until_it_is(books):
    chapter = imported(with_claim(f"{{{{ {A10} = softmax(scores=[1, 0]).out[0] }}}}"))
    assert reasons(chapter) == []
    item = StrandItem.objects.get(chapter=chapter, title="Checked")
    item.body = "{{ 0.7312 = softmax(scores=[1, 0]).out[0] }}"
    item.save()
    chapter = Chapter.objects.get(pk=chapter.pk)
    assert any("is not verified (pending)" in r for r in reasons(chapter))
    verify_now(chapter)
    assert any("is not verified (mismatch" in r for r in reasons(chapter))


def test_a_claim_in_a_problem_is_stale_when_its_inputs_change(books):
    steps = "The first weight is {{ 0.5 = outputs.out[0, 0] }}."
    chapter = imported(with_claim(steps, where="problem"))
    assert reasons(chapter) == []
    document = with_claim(steps, where="problem")
    document["problems"][0]["inputs"]["scores"] = [[1.0, 0.0]]
    document["problems"][0]["solution"]["answer"] = [[0.7310585786300049, 0.2689414213699951]]
    chapter = imported(document)
    (reason,) = reasons(chapter)
    assert "problems[0].solution.steps: claim 0.5 = outputs.out[0, 0] is not verified" in reason


def test_the_import_refuses_a_malformed_claim_and_an_unknown_name_with_their_paths(books):
    document = with_claim("{{ 0.5 = outputs.out[0, 0] }}")  # prose has no outputs
    document["problems"][1]["statement"] = "Find {{ 0.5 = outputs.weights[0] }}."
    document["problems"][2]["solution"]["steps"] = "Then {{ 0.5 == 1 }}."
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    errors = refused.value.errors
    assert any(
        e.startswith("strands.basics.items[1].body: claim {{ 0.5 = outputs.out")
        and "no value named outputs.out here" in e
        for e in errors
    ), errors
    assert any(
        e.startswith("problems[1].statement: claim") and "outputs.weights" in e for e in errors
    ), errors
    assert any(e.startswith("problems[2].solution.steps:") and "or a claim" in e for e in errors), (
        errors
    )
    assert not Chapter.objects.filter(code="II.7").exists()


def test_every_claim_in_the_seed_is_verified_and_shown_marked(seeded):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    rows = claim_rows(code="II.3")
    claims = [row for row in rows if row.kind == "claim"]
    assert len(claims) >= 30 and all(row.verified for row in rows), [
        (row.path, row.said, row.message) for row in rows if not row.verified
    ]
    page = chapter_for_reader(code="II.3").snapshot
    steps = page["problems"][0]["solution"]["steps_html"]
    assert "<mn>0.268941</mn>" in steps and "{{" not in steps
    assert page["derived"]["checks"]["claims"] == len(claims)


def test_a_claim_counts_once_whatever_shares_it(books):
    body = f"{{{{ {A10} = softmax(scores=[1, 0]).out[0] }}}}"
    imported(with_claim(body, code="II.7"))
    imported(with_claim(body, code="II.8"))
    assert ClaimVerdict.objects.count() == 1


def test_found_claims_follow_the_document_and_its_paths():
    document = copy.deepcopy(with_claim("{{ 1 = 1 }} and {{ 2 = 1 + 1 }}"))
    found = found_in(document)
    assert [f.path for f in found] == ["strands.basics.items[1].body"] * 2
    assert len({f.fingerprint for f in found}) == 2
    assert CLAIM.search("{{ inputs.x }}") is None  # a placeholder is never a claim


def test_a_generated_problems_statement_may_not_type_instance_0s_numbers(books):
    document = sketch()
    document["problems"][1]["inputs"] = {
        "scores": {"generate": "normal", "shape": [1, 2], "seed": 3}
    }
    document["problems"][1]["statement"] = "Its first weight is {{ 0.5 = outputs.out[0, 0] }}."
    document["problems"][1]["solution"]["steps"] = "So {{ 0.5 = outputs.out[0, 0] }}."
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    errors = [e for e in refused.value.errors if "shown for every instance" in e]
    assert [e.split(":")[0] for e in errors] == [
        "problems[1].solution.steps",
        "problems[1].statement",
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{{ 0.2691 = softmax(scores=[1, 0]).out[1] | digits 3 }}", "written to 4 significant"),
        ("{{ 0.2690 = softmax(scores=[1, 0]).out[1] | rtol 5e-4 atol 0 }}", "written to 4"),
        ("{{ 1216.0 = 1216.5 | rtol 5e-4 atol 0 }}", "1216.0 is written to 5 significant"),
        # float64 holds 15 to 17 figures: a hostile test had this verified, checked to 15
        ("{{ 9007199254740993 = 9007199254740992 }}", "more than float64 holds"),
        ("{{ 100000000000000000001 = 10**20 }}", "more than float64 holds"),
        ("{{ 1 = 1 | rtol nan atol 0 }}", "write digits N, or rtol R atol A"),
        ("{{ 1 = 1 | rtol 1e-4 atol nan }}", "write digits N, or rtol R atol A"),
        ("{{ 1 = 1 | rtol 1e999 atol 0 }}", "finite number of at least 0"),
        ("{{ 1 = 1 | rtol -1 atol 0 }}", "finite number of at least 0"),
        ("{{ 0.2\u09ea = 0.24 }}", "is not a claim"),  # a Bengali four, which reads as 8
        ("{{ +0.269 = 0.269 }}", "is not a claim"),
        ("{{ inf = exp(1000) }}", "is not a claim"),
        ("`{{ 5 = 3 }}`", "a claim inside code"),
        ("[a](http://x/{{0.5=0.5}})", "a claim inside a link"),
        ("![{{ 0.25 = 0.25 }}](x.png)", "a claim inside an image"),
        ("[t](http://x.org/{{ 1 = 2 }})", "a claim inside a link"),
        ('[t](http://x.org/ "{{ 1 = 2 }}")', "a claim inside a link"),
        ("[t][r]\n\n[r]: http://x.org/{{ 1 = 2 }}", "a claim inside a link"),
        ('![a](x.png "{{1=2}}")', "a claim inside an image"),
        ("{{ 1 = 1 | digits \u0664 }}", "write digits N, or rtol R atol A"),
    ],
)
def test_what_would_show_a_number_the_check_does_not_hold_to_is_refused(text, said):
    errors = claim_errors(text)
    assert errors and any(said in error for error in errors), errors


def test_the_page_marks_each_claim_with_what_the_engine_said(books):
    body = (
        f"Right {{{{ {A10} = softmax(scores=[1, 0]).out[0] }}}}, wrong "
        "{{ 0.7312 = softmax(scores=[1, 0]).out[0] }}."
    )
    chapter_import(document=with_claim(body))
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][1]["body_html"]
    assert html.count(">?</span>") == 2 and "Not yet checked by the engine" in html
    chapter = Chapter.objects.get(code="II.7")
    revision = chapter.revision
    verify_now(chapter)
    assert Chapter.objects.get(pk=chapter.pk).revision > revision  # its pages move
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][1]["body_html"]
    assert html.count(">✓</span>") == 1 and html.count(">✗</span>") == 1
    assert 'class="claim claim-unverified"' in html and "The engine disagrees (mismatch)" in html


QK_PAST = "q=[[{n}, 1]], k=[[{n}, 1], [{n}, 0]], v=[[2**40], [0]]"


@pytest.mark.parametrize(
    ("typed", "factor"),
    [
        ("549755813888", "2**30"),  # float64's value; the exact one is 7.364e11
        ("736410611322", "2**30"),  # exact, yet past 2**64 extended precision rounds too
        ("549755813888", "2**33"),  # float64 and longdouble alike drop the + 1
    ],
)
def test_a_claim_on_an_engine_value_neither_precision_computes_is_an_error(typed, factor):
    """Whole numbers whose products pass 2**53 round inside the engine, 2^30 * (2^30 + 1) to
    2^60: a score difference of 1 becomes 0, and float64's value, a quarter off, was verified
    (past 2**64, in longdouble too). The engine's call is held as answers are, and refused."""
    expression = f"scaled_dot_product_attention({QK_PAST.format(n=factor)}).out[0][0]"
    (claim,) = claims_in(f"{{{{ {typed} = {expression} }}}}")
    decided = outcome("claim", claim.spec)
    assert decided.status == "error", decided
    assert "the engine cannot compute the value[0, 0] at these magnitudes" in decided.message


@pytest.mark.parametrize(
    ("typed", "expression"),
    [
        ("0", "(1e20 + 1000) - 1e20"),  # float64 gives 0; it is 1000
        ("0", "(100000000000000000000 + 1000) - 100000000000000000000"),  # whole, past 2**53
        ("1000", "(1e20 + 1000) - 1e20"),  # right, yet float64 cannot say so
        ("0", "exp(40) + 1 - exp(40)"),
        ("0", "sum([1e20, 1000, -1e20])"),  # a sum rounds at each addend
        ("0", "mean([1e20, 1000, -1e20])"),
        ("0", "[1e20, 1000, -1e20] @ [1, 1, 1]"),
        ("0", "9007199254740992 + 1 - 9007199254740992"),  # 2**53 + 1 rounds
        ("0", "(1e10 + 1e-6) - 1e10"),  # past the precision 1e-6 is written to
        ("0.25", "var([4503599627370497, 4503599627370498])"),
    ],
)
def test_a_claim_float64_rounding_decides_is_an_error_never_verified(typed, expression):
    """A hostile author had {{ 0 = (1e20 + 1000) - 1e20 }} verified: the expression is moved as
    rounding moves it, and where that could change the verdict the engine says it cannot tell."""
    (claim,) = claims_in(f"{{{{ {typed} = {expression} }}}}")
    decided = outcome("claim", claim.spec)
    assert decided.status == "error", decided
    assert "the engine cannot tell whether" in decided.message
    assert "float64's rounding may" in decided.message


@pytest.mark.parametrize(
    ("typed", "expression"),
    [
        ("0", "0.1 + 0.2 - 0.3"),
        ("0", "1e20 - 1e20"),  # a number written twice is read alike
        ("1000", "(1e6 + 1000) - 1e6"),
        ("0", "mean(layer_norm(x=[0.1, 0.7, 0.4]).out)"),
        ("0.4", "var([0.1, 0.7, 0.4]) * 3 / 0.45"),
    ],
)
def test_a_claim_rounding_cannot_move_past_its_figures_is_decided(typed, expression):
    (claim,) = claims_in(f"{{{{ {typed} = {expression} }}}}")
    assert outcome("claim", claim.spec).status == "verified"


@pytest.mark.parametrize(
    "expression",
    ["exp(-30)", "softmax(scores=[0, -30]).out[1]", "1e-13", "2 ** -60"],
)
def test_a_typed_0_for_a_small_number_is_a_mismatch_not_float_noise(expression):
    """A typed 0 holds only within float64's rounding of the value: e^-30 is 9.4e-14, a number,
    as an answer of 0 for it is refused (a tester had {{ 0 = exp(-30) }} verified)."""
    (claim,) = claims_in(f"{{{{ 0 = {expression} }}}}")
    decided = outcome("claim", claim.spec)
    assert decided.status == "mismatch", decided
    assert "further from 0 than float64's rounding of it" in decided.message


@pytest.mark.parametrize(
    "claim",
    [
        "{{ 2.71828182845905 = exp(1.0) }}",  # 15 figures copied from numpy
        "{{ 7.38905609893065 = exp(2.0) }}",
        "{{ 0.973403006423134 = softmax(scores=[1.4, -2.2]).out[0] }}",
        "{{ 0.30000000000000004 = 0.1 + 0.2 }}",  # 17
        "{{ 0 = mean(layer_norm(x=[1, 0], eps=1e-300).out) }}",  # eps is a setting
    ],
)
def test_true_claims_typed_as_numpy_prints_them_are_verified(claim):
    """A third hostile round had these refused: a move of a few units in the last place is
    float64's own precision, and a keyword's number (eps=1e-300) is a setting, not a number
    the claim is written to."""
    (parsed,) = claims_in(claim)
    assert outcome("claim", parsed.spec).status == "verified"


@pytest.mark.parametrize(
    "expression",
    [
        "1.0000000000000002e300 - 1e300",
        "1.0000000000000004e20 - 1e20",
        "10000000000000004 - 10000000000000000",
        "sum([1.0000000000000002e300, -1e300])",
    ],
)
def test_a_typed_0_is_never_verified_within_a_band_wider_than_2_to_the_minus_8(expression):
    """Reading numbers of 1e300 moves their difference by 1e284: a typed 0 within that says
    nothing (a third hostile round had all four verified)."""
    (claim,) = claims_in(f"{{{{ 0 = {expression} }}}}")
    decided = outcome("claim", claim.spec)
    assert decided.status == "error", decided
    assert "the engine cannot tell whether" in decided.message


def test_a_claim_reads_a_problems_outputs_as_an_answer_is_held():
    """A claim read a problem's outputs as float64 computes them: with factors of 2^27 the score
    difference of 1 rounds away, and float64's value, a quarter off, was verified. The outputs
    are held as an answer to the problem is, and where no precision settles them, refused."""
    n = 2**27
    inputs = {"q": [[n, 1]], "k": [[n, 1], [n, 0]], "v": [[2**40], [0]]}
    context = {"operation": "scaled_dot_product_attention", "inputs": inputs}
    for typed in ("549755813888", "736410611322"):  # float64's value; the exact one
        (claim,) = claims_in(f"{{{{ {typed} = outputs.out[0, 0] }}}}")
        decided = outcome("claim", claim.spec | {"context": context})
        assert decided.status == "error", decided
        assert "the engine cannot compute the value[0, 0] at these magnitudes" in decided.message


def test_a_claims_moves_are_keyed_by_the_servers_secret(settings):
    """A claim was moved under two fixed seeds anyone could read, so an author could search
    offline for numbers whose moves cancel. Its moves are keyed by SECRET_KEY: one server moves
    a claim alike every time, another otherwise."""
    (claim,) = claims_in("{{ 0 = 1.1e20 * 3.3 - 3.63e20 }}")  # the message says the moves' size
    said = {}
    for key in ("first-" * 10, "second-" * 10, "first-" * 10, "third-" * 10):
        settings.SECRET_KEY = key
        decided = outcome("claim", claim.spec)
        assert decided.status == "error"
        assert said.setdefault(key, decided.message) == decided.message
    assert len(set(said.values())) > 1


def test_a_claim_on_a_problems_output_that_underflows_is_an_error():
    """Weights of e^-800 are 0 in float64: scaled up, 0 was verified for 3.7e252."""
    inputs = {"q": [[1]], "k": [[0], [800]], "v": [[1, 1], [0, 1]]}
    context = {"operation": "scaled_dot_product_attention", "inputs": inputs}
    (claim,) = claims_in("{{ 0 = outputs.weights[0, 0] * 1e300 * 1e300 }}")
    decided = outcome("claim", claim.spec | {"context": context})
    assert decided.status == "error" and "underflows" in decided.message, decided


@pytest.mark.parametrize(
    "claim",
    [
        "{{ 1.414213562373099 = sqrt(2) }}",  # 1.4142135623730951: wrong in its 16th figure
        "{{ 2.718281828459049 = exp(1) }}",  # 2.718281828459045
    ],
)
def test_a_claim_typed_past_15_figures_is_held_to_float64s_value_not_to_15(claim):
    """A second hostile round had these verified "to 15 significant figures, as written": a
    number typed to 16 or 17 says float64's value, and must be it to a few units in the last
    place (as 0.30000000000000004 = 0.1 + 0.2 is)."""
    (parsed,) = claims_in(claim)
    decided = outcome("claim", parsed.spec)
    assert decided.status == "mismatch", decided
    assert "units in the last place" in decided.message
    assert parsed.words().startswith("to float64's own value, as written to 16")
