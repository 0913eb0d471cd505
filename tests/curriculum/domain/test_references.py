"""Cross-references: a label in the text becomes a link showing the target's current number;
one naming nothing, or a draft, is refused with its path; a release keeps its numbers."""

import re

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.documents import chapter_document
from curriculum.domain.editing import ChapterDelete, ChapterSave, ChapterWithdraw
from curriculum.domain.gate import ChapterPublish, PublishRefused, chapter_publish
from curriculum.domain.reading import chapter_for_reader, chapter_freshness
from curriculum.domain.references import references_in
from curriculum.domain.selectors import chapters_with_parts
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now

SHIFT = {
    "number": 2,
    "label": "shift",
    "title": "Softmax ignores a shift.",
    "statement": "It does.",
}


def with_text(body: str, code: str = "II.7", propositions=None, **changes) -> dict:
    document = sketch(code, **changes)
    document["strands"]["basics"]["items"][0]["body"] = body
    document["propositions"] = propositions if propositions is not None else [dict(SHIFT)]
    return document


def links(code: str) -> list[str]:
    html = chapter_for_reader(code=code).snapshot["strands"]["basics"]["items"][0]["body_html"]
    return re.findall(r'<a href="([^"]*)"(?: title="([^"]*)")?[^>]*>([^<]*)</a>', html)


def test_a_reference_links_the_target_by_its_current_number(books):
    chapter_import(document=with_text("By @prop:shift, and again by @prop:2, and @problem:p2."))
    assert links("II.7") == [
        ("#prop-2", "Softmax ignores a shift.", "Prop. 2"),
        ("#prop-2", "Softmax ignores a shift.", "Prop. 2"),
        ("#problem-p2", "", "Exercise 1"),  # its variant is a slug for authors: no title
    ]


def test_a_link_hovers_a_title_holding_a_claim_as_its_number_and_stays_one_link(books):
    """The claim's mark had been placed inside the link's title attribute, breaking it open:
    readers saw `✓">Prop. 2` and the mark's attributes joined the link (a hostile round)."""
    titled = SHIFT | {"title": "A shift of {{ 2 = 1 + 1 }} is *ignored*."}
    chapter_import(document=with_text("By @prop:shift.", propositions=[titled]))
    assert links("II.7") == [("#prop-2", "A shift of 2 is *ignored*.", "Prop. 2")]
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert html.count("<a ") == 1 and "claim" not in html


def test_a_renumbering_changes_every_link_and_a_release_keeps_its_numbers(books):
    chapter_import(document=with_text("By @prop:shift."))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    release = chapter_publish(chapter=chapter)
    chapter_import(document=with_text("By @prop:shift.", propositions=[SHIFT | {"number": 5}]))
    assert links("II.7") == [("#prop-2", "Softmax ignores a shift.", "Prop. 2")]  # the release
    working = chapter_for_reader(code="II.7", staff=True, preview=True)
    assert "Prop. 5" in working.snapshot["strands"]["basics"]["items"][0]["body_html"]
    kept = release.snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert ">Prop. 2</a>" in kept


@pytest.mark.parametrize(
    ("reference", "said"),
    [
        (
            "@prop:nothing",
            "reference @prop:nothing: II.7 has no proposition nothing (it has: 2, shift)",
        ),
        ("@fig:4", "reference @fig:4: II.7 has no figure 4 (it has: none)"),
        ("@II.99/prop:1", "reference @II.99/prop:1: there is no chapter II.99"),
        ("@II.3/prop:9", "reference @II.3/prop:9: II.3 has no proposition 9 (it has: 1, 2,"),
    ],
)
def test_a_reference_that_names_nothing_is_refused_with_its_path(seeded, reference, said):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_text(f"See {reference}."))
    (error,) = refused.value.errors
    assert error.startswith(f"strands.basics.items[0].body: {said}"), error
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_reference_to_another_chapter_and_a_book_0_entry_links_there(seeded):
    chapter_import(document=with_text("As @II.3/prop:score-variance says; see @0.LA.01."))
    variance, _entry = links("II.7")  # the entry's link has no title to hover
    assert _entry[1] == ""
    assert variance == (
        "/chapters/II.3/#prop-2",
        "Scaling keeps score variance at one.",
        "II.3 Prop. 2",
    )
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert '<a href="/chapters/0.LA.01/"' in html and "0.LA.01 " in html


def released_naming_ii4(committed) -> str:
    """II.2 released naming II.4, in progress and never released, beside II.3 and a Book 0
    entry (II.2 is no neighbour of II.4, whose neighbours move with it); the release's ETag."""
    text = "Compare @II.4 with @II.3; see @0.LA.01."  # a part of either is refused: below
    committed(lambda: chapter_import(document=with_text(text, code="II.2")))  # its references
    chapter = Chapter.objects.get(code="II.2")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    return chapter_freshness(code="II.2").tag


ALL_LINKED = ["/chapters/II.4/", "/chapters/II.3/", "/chapters/0.LA.01/"]


def test_a_release_no_longer_links_a_chapter_withdrawn_since_until_it_is_shown_again(
    seeded, erin, committed
):
    released = released_naming_ii4(committed)
    assert [link[0] for link in links("II.2")] == ALL_LINKED

    ChapterWithdraw(chapter=Chapter.objects.get(code="II.4"), user=erin).execute()

    withdrawn = chapter_freshness(code="II.2").tag
    assert withdrawn != released  # no cached body keeps the link
    assert [link[0] for link in links("II.2")] == ALL_LINKED[1:]
    body = chapter_for_reader(code="II.2").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert "Compare II.4 " in body and 'href="/chapters/II.4/' not in body

    shown = Chapter.objects.get(code="II.4")
    shown.state = Chapter.State.IN_PROGRESS
    ChapterSave(chapter=shown, user=erin).execute()
    assert chapter_freshness(code="II.2").tag not in (released, withdrawn)
    assert [link[0] for link in links("II.2")] == ALL_LINKED


def test_a_release_keeps_linking_a_chapter_deleted_since_as_one_made_again_is_the_same_link(
    seeded, erin, committed
):
    """A chapter made again under a deleted one's code need not move what named the old one
    (its stored references went with it): the release links the code whichever is there, so
    no body under one ETag can outlive the other (the API had kept an unlinked body while the
    chapter was back)."""
    released_naming_ii4(committed)
    document = chapter_document(chapters_with_parts().get(code="II.4"))
    ChapterDelete(chapter=Chapter.objects.get(code="II.4"), user=erin).execute()
    assert [link[0] for link in links("II.2")] == ALL_LINKED

    chapter_import(document=document)

    assert [link[0] for link in links("II.2")] == ALL_LINKED


def test_a_reference_in_code_or_escaped_is_shown_as_written_and_names_nothing(seeded):
    """An author shows the syntax itself in code, or escapes its @ as Markdown does: neither
    is linked nor refused, whatever it names (a code span had shown Markdown link source)."""
    text = (
        "Write `@II.3` or ``@II.99/prop:1`` for a chapter, as in:\n\n"
        "```\nsee @prop:nothing and @cite:nobody\n```\n\n"
        "    @term:indented\n\n"
        "An escaped \\@II.98 is words too; but @II.3 links."
    )
    chapter_import(document=with_text(text))
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert [link[0] for link in links("II.7")] == ["/chapters/II.3/"]
    assert "<code>@II.3</code>" in html and "<code>@II.99/prop:1</code>" in html
    assert "see @prop:nothing and @cite:nobody" in html and "@term:indented" in html
    assert "An escaped @II.98 is words too" in html


@pytest.mark.parametrize(
    ("text", "made"),
    [
        ("a ` @II.3 unclosed", ["@II.3"]),  # a run that nothing closes is a backtick shown
        ("``x`` @II.3 `y`", ["@II.3"]),
        ("`` `@II.3` ``", []),
        ("``a` @II.3 `` b", []),  # closed by the next run as long, not the next run
        ("`a\n\nb` @II.3", ["@II.3"]),  # a span ends with its paragraph
        ("```\n@II.3\n```\n@II.4", ["@II.4"]),
        ("- item\n\n      @II.3 in a list's code block\n", []),
        ("\\@II.3 and x@II.3", []),
    ],
)
def test_code_as_commonmark_reads_it_holds_no_reference(text, made):
    assert [found.group() for found in references_in(text)] == made


def test_a_reference_readers_cannot_see_is_refused_and_blocks_publishing(seeded):
    chapter_import(document=with_text("Compare @II.4/prop:1.", code="II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    Chapter.objects.filter(code="II.4").update(state=Chapter.State.DRAFT)  # withdrawn since
    reasons = ChapterPublish(chapter=chapter).check()
    assert (
        "strands.basics.items[0].body: reference @II.4/prop:1: II.4 is a draft, which "
        "readers cannot see" in reasons
    )
    with pytest.raises(ChapterFileError, match="II.4 is a draft"):
        chapter_import(document=with_text("Compare @II.4/prop:1.", code="II.7"))


def test_the_seed_references_its_propositions_by_label_and_number(seeded):
    html = chapter_for_reader(code="II.3").snapshot["strands"]["theory"]["items"][0]["body_html"]
    assert '<a href="#prop-2" title="Scaling keeps score variance at one."' in html
    snapshot = chapter_for_reader(code="II.3").snapshot
    shown = [snapshot["problems"][3]["solution"]["steps_html"], html]
    assert all("@prop" not in part and ">Prop. 1</a>" in shown[0] for part in shown)


def test_labelled_equations_are_numbered_in_order_and_referenced_by_number(books):
    body = (
        "First\n\n$$ s = q \\cdot k $$ (score)\n\nthen\n\n$$ a = e^s $$ (weight)\n\n"
        "By @eq:weight and @eq:score."
    )
    chapter_import(document=with_text(body))
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert '<div id="eq-score" class="math-display"' in html
    assert '<div id="eq-weight" class="math-display"' in html
    assert "<mtext>(1)</mtext>" in html and "<mtext>(2)</mtext>" in html
    assert re.findall(r'<a href="(#eq-\w+)"[^>]*>([^<]*)</a>', html) == [
        ("#eq-weight", "Eq. (2)"),
        ("#eq-score", "Eq. (1)"),
    ]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("$$ a $$ (x)\n\n$$ b $$ (x)", "equation label (x) appears twice"),
        ("$$ a $$ (two words)", "equation label (two words): letters, digits, - and _ only"),
        ("See @eq:none.", "reference @eq:none: II.7 has no equation none (it has: none)"),
        (
            "See @eq:hidden.",
            "reference @eq:hidden: II.7 has no equation hidden (it has: none)",
        ),
    ],
)
def test_a_bad_equation_label_or_reference_is_refused_with_its_path(books, body, said):
    document = with_text(body)
    draft = {"title": "Draft", "body": "$$ h $$ (hidden)", "published": False}
    document["strands"]["basics"]["items"].append(draft)  # its equation is not shown
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert f"strands.basics.items[0].body: {said}" in refused.value.errors


def test_a_reference_inside_a_formula_is_refused(books):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_text("So $x = @prop:shift$."))
    assert (
        "strands.basics.items[0].body: a reference inside a formula breaks it"
        in (refused.value.errors[0])
    )


def test_a_released_chapter_is_linked_at_its_release_whose_numbers_never_change(seeded):
    from tests.curriculum.conftest import release_ii3

    release_ii3()
    chapter_import(document=with_text("As @II.3/prop:score-variance says."))
    (link,) = links("II.7")
    assert link == (
        "/chapters/II.3/releases/1/#prop-2",
        "Scaling keeps score variance at one.",
        "II.3 Prop. 2",
    )


def test_propositions_without_a_number_are_numbered_in_order(books):
    first = {"title": "A.", "statement": "a", "label": "a"}
    third = {"number": 5, "title": "C.", "statement": "c"}
    chapter_import(
        document=with_text(
            "See @prop:a and @prop:6.",
            propositions=[
                first,
                {"title": "B.", "statement": "b"},
                third,
                {"title": "D.", "statement": "d"},
            ],
        )
    )
    numbers = [p.number for p in Chapter.objects.get(code="II.7").propositions.all()]
    assert numbers == [1, 2, 5, 6]
    assert [text for _, _, text in links("II.7")] == ["Prop. 1", "Prop. 6"]


def test_a_reference_in_a_proposition_title_is_refused_with_its_path_or_linked(books):
    """A title is Markdown as a statement is: its references had been neither checked nor
    linked."""
    titled = [SHIFT | {"title": "Softmax ignores a shift, as @prop:nope says."}]
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_text("Means.", propositions=titled))
    assert refused.value.errors == [
        "propositions[0].title: reference @prop:nope: II.7 has no proposition nope "
        "(it has: 2, shift)"
    ]
    titled = [SHIFT | {"title": "Softmax ignores a shift, as @problem:p2 shows."}]
    chapter_import(document=with_text("Means.", propositions=titled))
    html = chapter_for_reader(code="II.7").snapshot["propositions"][0]["title_html"]
    assert '<a href="#problem-p2" rel="noopener noreferrer nofollow">Exercise 1</a>' in html
    assert "@" not in html


def with_practice_text(text: str, where: str) -> dict:
    """The sketch, with `text` as problem p2's first hint or its first feedback's words."""
    document = with_text("Means.")
    p2 = document["problems"][1]
    if where == "hints":
        p2["hints"] = ["Equal scores.", text]
    else:
        p2["feedback"] = [{"answer": [[1.0, 0.0]], "says": text}]
    return document


@pytest.mark.parametrize(
    ("where", "path"),
    [("hints", "problems[1].hints[1]"), ("feedback", "problems[1].feedback[0].says")],
)
def test_a_reference_in_a_hint_or_feedback_that_names_nothing_is_refused(books, where, path):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_practice_text("Recall @prop:nope.", where))
    assert refused.value.errors == [
        f"{path}: reference @prop:nope: II.7 has no proposition nope (it has: 2, shift)"
    ]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_hint_may_refer_to_another_chapter(seeded):
    chapter_import(document=with_practice_text("As @II.3/prop:score-variance says.", "hints"))
    assert Chapter.objects.get(code="II.7").problems.get(key="p2").hints[1].startswith("As @II.3")


def test_a_stored_hint_or_feedback_naming_nothing_blocks_publishing(books):
    chapter_import(document=with_practice_text("By @prop:shift.", "hints"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    p2 = chapter.problems.get(key="p2")
    p2.hints = ["By @prop:gone."]  # as a chapter stored before the rule, or a renamed label
    p2.feedback = [{"answer": [[1.0, 0.0]], "says": "See @fig:9."}]
    p2.save(update_fields=["hints", "feedback"])
    reasons = ChapterPublish(chapter=chapter).check()
    assert "problems[1].hints[0]: reference @prop:gone: II.7 has no proposition gone" in " ".join(
        reasons
    )
    assert any(r.startswith("problems[1].feedback[0].says: reference @fig:9") for r in reasons)


def test_a_release_names_a_part_of_another_chapter_only_once_that_chapter_has_a_release(
    seeded, erin
):
    """A release is fixed text; a chapter without a release is its working copy, where a
    proposition may be renumbered or removed and the release's link would land on another."""
    chapter_import(document=with_text("As @II.3/prop:2 says; see @II.4.", code="II.2"))
    chapter = Chapter.objects.get(code="II.2")
    verify_now(chapter)
    with pytest.raises(PublishRefused) as refused:
        chapter_publish(chapter=chapter, user=erin)
    assert refused.value.reasons == [
        "strands.basics.items[0].body: reference @II.3/prop:2: II.3 has no release, so a release "
        "of this chapter would link a proposition its working copy may renumber or remove: "
        "publish II.3 first, or name the chapter alone (@II.3)"
    ]
    ii3 = Chapter.objects.get(code="II.3")
    verify_now(ii3)
    chapter_publish(chapter=ii3, user=erin)
    chapter_publish(chapter=chapter, user=erin)  # now a release's part, fixed for good
    assert ("/chapters/II.3/releases/1/#prop-2", "II.3 Prop. 2") in [
        (href, text) for href, _, text in links("II.2")
    ]


def test_a_title_names_a_part_of_another_chapter_only_once_that_chapter_has_a_release(seeded, erin):
    """The gate's release rule holds in a proposition's title as in every other text."""
    titled = [SHIFT | {"title": "A shift, as @II.3/prop:2 says."}]
    chapter_import(document=with_text("Means.", code="II.2", propositions=titled))
    chapter = Chapter.objects.get(code="II.2")
    verify_now(chapter)
    with pytest.raises(PublishRefused) as refused:
        chapter_publish(chapter=chapter, user=erin)
    assert [reason.split(":")[0] for reason in refused.value.reasons] == ["propositions[0].title"]
    assert "reference @II.3/prop:2: II.3 has no release" in refused.value.reasons[0]


@pytest.mark.parametrize("written", ["@ii.3", "@II.03", "@0.la.01", "@Ii.3/prop:2"])
def test_a_mistyped_code_is_refused_not_left_as_text(seeded, written):
    """@ii.3 had stayed plain text, neither linked nor checked: a typo no one was told of."""
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=with_text(f"Compare {written}."))
    (error,) = refused.value.errors
    assert error == (
        f"strands.basics.items[0].body: reference {written.partition('/')[0]}: a chapter's code "
        r"is written as II.4 or 0.LA.01 (capital numerals, no leading zero); to show it as "
        r"text, write \@"
    )


def test_a_code_in_code_or_escaped_or_in_an_address_is_no_reference(seeded):
    chapter_import(document=with_text(r"Mail a@ii.3, `@ii.3`, \@II.03 and @II.3 stand."))
    assert [link[0] for link in links("II.7")] == ["/chapters/II.3/"]
