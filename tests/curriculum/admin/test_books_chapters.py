"""Admin, the chapter page: the author sees what a chapter owes before trying, edits every part
of it in the seed page's order, and Publish goes through the gate after saying what it will do."""

import re

import pytest
from django.core.management import call_command
from django.forms import CheckboxInput
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import ProblemDelete
from curriculum.models import Book, Chapter, Figure, Problem, Release
from tests.conftest import sketch, verify_now


@pytest.fixture
def admin_client_for(client):
    def login(user):
        client.force_login(user)
        return client

    return login


def change_url(chapter):
    return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def publish_url(chapter):
    return reverse("admin:curriculum_chapter_publish", args=[chapter.pk])


def resubmitted(page) -> dict:
    """What a browser sends back from an admin form page when the author changes nothing."""
    forms = [page.context["adminform"].form]
    data = {}
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data.update({management.add_prefix(k): v for k, v in management.initial.items()})
        forms += inline.formset.forms
    for form in forms:
        for name, field in form.fields.items():
            value = form[name].value()
            if isinstance(field.widget, CheckboxInput):
                if value:
                    data[form.add_prefix(name)] = "on"
            elif value is not None:
                data[form.add_prefix(name)] = value
    return data


def shown_errors(page) -> str:
    """The error text the admin shows beside fields, inline forms and at the top."""
    return " ".join(
        re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page.content.decode(), flags=re.S)
    )


def test_ii4_change_page_shows_the_seed_counts_and_debt(seeded, admin_client_for, erin):
    page = admin_client_for(erin).get(change_url(Chapter.objects.get(code="II.4")))
    text = page.content.decode()
    assert page.status_code == 200
    for fragment in (
        "M3 Load-bearing",
        "<strong>basics</strong> 2/11",
        "<strong>concept</strong> 2/2",
        "<strong>theory</strong> 0/4",
        "<strong>mathematics</strong> 0/15",
        "<strong>practice</strong> 0/9",
        "0/5 problems · 0/4 variants · 0/10 exercises · owes 15 more",
        "At M3 this chapter owes 5 worked problems across 4 distinct variants, and "
        "10 exercises, every one with a published solution.",
    ):
        assert fragment in text


def test_the_author_is_told_what_the_chapter_owes_before_trying_to_publish(
    seeded, admin_client_for, alice
):
    text = admin_client_for(alice).get(change_url(Chapter.objects.get(code="II.4"))).content
    text = text.decode()
    status = text.index("Before you publish")
    assert status < text.index('name="title"'), "the list comes before the form fields"
    assert "Publish would be refused for 8 reasons:" in text
    assert "<li>strand practice: 0 of 9 done (build it, break it, read the papers)</li>" in text


def test_the_parts_come_in_the_seed_pages_order(seeded, admin_client_for, alice):
    page = admin_client_for(alice).get(change_url(Chapter.objects.get(code="II.4")))
    prefixes = [inline.formset.prefix for inline in page.context["inline_admin_formsets"]]
    assert prefixes == [
        "strand_items",
        "figures",
        "apparatus_links",
        "notation",
        "propositions",
        "problems",
        "releases",
    ]
    symbols = [form.instance.symbol for form in page.context["inline_admin_formsets"][3].formset]
    assert symbols == ["h", "d", "d_k", "Q", "K", "V", "T"]


def test_markdown_and_svg_boxes_are_sized_for_what_they_hold(seeded, admin_client_for, alice):
    text = admin_client_for(alice).get(change_url(Chapter.objects.get(code="II.4"))).content
    text = text.decode()
    assert re.search(r'<textarea name="thesis"[^>]*rows="2"', text)
    assert re.search(r'<textarea name="figures-0-svg"[^>]*class="vLargeTextField code"', text)
    assert 'src="data:image/svg+xml;base64,' in text, "the saved drawing is shown"


def test_admin_pages_need_no_inline_style_or_script(seeded, admin_client_for, erin):
    """The site's CSP allows styles and scripts from 'self' only."""
    client = admin_client_for(erin)
    chapter = Chapter.objects.get(code="II.3")
    for url in (
        change_url(chapter),
        publish_url(chapter),
        reverse("admin:curriculum_chapter_changelist"),
        reverse("admin:curriculum_problem_change", args=[chapter.problems.first().pk]),
    ):
        text = client.get(url).content.decode()
        assert ' style="' not in text, url
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), url
        assert "admin-extra/admin.css" in text, url


def test_editing_the_claim_and_a_notation_row_saves_them(seeded, admin_client_for, alice):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(alice)
    data = resubmitted(client.get(change_url(chapter)))
    data.update({"thesis": "Heads are slices of one budget.", "notation-0-meaning": "Heads"})
    page = client.post(change_url(chapter), data)
    assert page.status_code == 302, shown_errors(page)
    chapter.refresh_from_db()
    assert chapter.thesis == "Heads are slices of one budget."
    assert chapter.notation.get(symbol="h").meaning == "Heads"


def summary_refused(client, summary: str) -> str:
    """II.4 renamed with this summary through its change form: the errors shown, once the page
    came back unsaved (the title as it was)."""
    chapter = Chapter.objects.get(code="II.4")
    data = resubmitted(client.get(change_url(chapter)))
    data.update({"title": "Renamed", "summary": summary})
    page = client.post(change_url(chapter), data)
    assert page.status_code == 200
    chapter.refresh_from_db()
    assert chapter.title == "Multi-Head Attention"
    return shown_errors(page)


def test_a_formula_that_does_not_parse_is_shown_and_nothing_is_saved(
    seeded, admin_client_for, alice
):
    shown = summary_refused(admin_client_for(alice), r"One pattern $\frac{1}$ per relation.")
    assert r"formula $\frac{1}$ does not parse: KaTeX parse error" in shown


def test_a_formula_katex_would_show_as_source_and_a_mark_with_no_note_are_shown_unsaved(
    seeded, admin_client_for, alice
):
    shown = summary_refused(admin_client_for(alice), r"See $\href{javascript:alert(1)}{x}$, a[^9].")
    assert r"KaTeX parse error: \href is not supported in a formula" in shown
    assert "footnote mark `[^9]` has no note" in shown


def test_an_svg_with_a_script_is_saved_and_the_author_told_readers_will_not_get_it(
    seeded, admin_client_for, alice
):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(alice)
    data = resubmitted(client.get(change_url(chapter)))
    data["figures-0-svg"] = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        "<script>alert(1)</script></svg>"
    )
    assert client.post(change_url(chapter), data).status_code == 302
    assert "<script>" in Figure.objects.get(chapter=chapter).svg
    page = client.get(change_url(chapter)).content.decode()
    assert "Left out for readers: &lt;script&gt; is not allowed in a figure" in page


def test_a_figure_that_is_not_an_svg_is_refused_and_unchanged(seeded, admin_client_for, alice):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(alice)
    data = resubmitted(client.get(change_url(chapter)))
    data["figures-0-svg"] = "<svg><unclosed></svg>"
    page = client.post(change_url(chapter), data)
    assert page.status_code == 200
    assert "not well-formed XML" in shown_errors(page)
    assert Figure.objects.get(chapter=chapter).svg.startswith("<svg xmlns")


def test_the_chapter_page_links_to_adding_a_problem_for_this_chapter(
    seeded, admin_client_for, alice
):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(alice)
    add = f"{reverse('admin:curriculum_problem_add')}?chapter={chapter.pk}"
    assert f'href="{add}"' in client.get(change_url(chapter)).content.decode()
    form = client.get(add).context["adminform"].form
    assert form["chapter"].value() == str(chapter.pk)
    assert form["key"].value() == "p1"


def test_deleting_a_problem_from_the_chapter_page_goes_through_the_domain(
    seeded, admin_client_for, alice
):
    chapter = Chapter.objects.get(code="II.3")
    before = chapter.updated_at
    client = admin_client_for(alice)
    page = client.get(change_url(chapter))
    problems = page.context["inline_admin_formsets"][5].formset
    data = resubmitted(page)
    data[f"{problems.prefix}-0-DELETE"] = "on"
    response = client.post(change_url(chapter), data)
    assert response.status_code == 302, shown_errors(response)
    assert not Problem.objects.filter(chapter=chapter, key="p1").exists()
    assert Problem.objects.filter(chapter=chapter).count() == 8
    chapter.refresh_from_db()
    assert chapter.updated_at > before


@pytest.mark.parametrize("meanwhile", ["deleted", "abc", "999999", "-1", "1.5", "\x00"])
def test_a_problem_row_gone_or_made_up_since_the_page_opened_is_refused_not_a_500(
    seeded, admin_client_for, alice, meanwhile
):
    """The problem list edits nothing: a row deleted by another writer since the page opened,
    or an id no row has, gets the page back with the refusal and nothing is written."""
    chapter = Chapter.objects.get(code="II.3")
    client = admin_client_for(alice)
    page = client.get(change_url(chapter))
    problems = page.context["inline_admin_formsets"][5].formset
    data = resubmitted(page)
    if meanwhile == "deleted":
        ProblemDelete(problem=chapter.problems.get(key="p1"), user=alice).execute()
    else:
        data[f"{problems.prefix}-0-id"] = meanwhile
    count = Problem.objects.filter(chapter=chapter).count()
    response = client.post(change_url(chapter), data)
    assert response.status_code == 200
    assert shown_errors(response) or "Please correct the error" in response.content.decode()
    assert Problem.objects.filter(chapter=chapter).count() == count


def test_publish_asks_first_and_says_what_will_happen(seeded, admin_client_for, erin):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(erin)
    assert f'href="{publish_url(chapter)}"' in client.get(change_url(chapter)).content.decode()
    text = client.get(publish_url(chapter)).content.decode()
    assert "Publishing makes <strong>release 1</strong> of II.4" in text
    assert "the working copy stays editable" in text
    assert '<p class="errornote">The gate refuses to publish II.4 for 8 reasons.' in text
    assert 'value="Publish release 1"' not in text  # no button while the gate refuses
    assert not Release.objects.exists()


def test_publish_button_lists_every_reason(seeded, admin_client_for, erin):
    chapter = Chapter.objects.get(code="II.4")
    page = admin_client_for(erin).post(publish_url(chapter), follow=True)
    text = page.content.decode()
    assert "Publish refused. 8 reasons:" in text
    for reason in (
        "worked problems: 0 of 5",
        "variants: the verified worked problems cover 0",
        "exercises: 0 of 10",
        "strand basics: 2 of 11",
        "strand theory: 0 of 4",
        "strand mathematics: 0 of 15",
        "strand practice: 0 of 9 done",
    ):
        assert reason in text
    assert not Release.objects.exists()


def test_publish_button_makes_a_release_listed_with_who_and_when(seeded, admin_client_for, erin):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    client = admin_client_for(erin)
    assert (
        "Every rule holds: Publish will make release 1."
        in client.get(change_url(chapter)).content.decode()
    )
    confirmation = client.get(publish_url(chapter))
    page = client.post(publish_url(chapter), {"reviewed": reviewed_on(confirmation)}, follow=True)
    assert "Published II.7 as release 1." in page.content.decode()
    releases = client.get(change_url(chapter)).context["inline_admin_formsets"][6]
    row = releases.formset.forms[0].instance
    assert (row.number, row.created_by) == (1, erin)
    text = client.get(change_url(chapter)).content.decode()
    assert '<a href="/chapters/II.7/releases/1/">Release 1</a>' in text
    assert "Publish will make release 2 if readers would see a change since release 1." in text
    again = client.get(publish_url(chapter))
    assert "Nothing readers see changed since <strong>release 1</strong>" in again.content.decode()
    page = client.post(publish_url(chapter), {"reviewed": reviewed_on(again)}, follow=True)
    assert (
        "II.7: nothing readers see changed since release 1; no new release was made."
        in page.content.decode()
    )
    assert Release.objects.count() == 1
    noted = {"reviewed": reviewed_on(client.get(publish_url(chapter))), "notes": "Typo fixed."}
    page = client.post(publish_url(chapter), noted, follow=True)
    unrecorded = "no new release was made. The release notes were not recorded"
    assert unrecorded in page.content.decode()
    assert list(Release.objects.values_list("notes", flat=True)) == [""]


def test_the_release_list_shows_each_title_as_released_and_who_made_it(
    seeded, admin_client_for, erin
):
    """Not the chapter's title now, and never "-" for a release the command line made."""
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    call_command("publish_chapter", "II.7")
    chapter_import(document=sketch(title="A Sketch, Revised", state="published"))
    call_command("publish_chapter", "II.7", user="erin")
    text = admin_client_for(erin).get(reverse("admin:curriculum_release_changelist")).content
    rows = re.findall(r"<tr>.*?</tr>", text.decode(), flags=re.S)
    assert any("A Sketch</td>" in row and "system (publish_chapter)" in row for row in rows)
    assert any("A Sketch, Revised" in row and ">erin<" in row for row in rows)
    listed = admin_client_for(erin).get(change_url(chapter)).content.decode()
    assert "<td>A Sketch</td>\n          <td>system (publish_chapter)</td>" in listed


def reviewed_on(page) -> str:
    """The version of the working copy the Publish confirmation shows (its hidden field)."""
    return page.context["reviewed"]


def test_an_editor_confirming_after_an_authors_edit_publishes_nothing_until_reviewed_again(
    seeded, admin_client_for, erin, alice
):
    """The Editor opens "Publish?", an Author edits the thesis, the Editor confirms: refused
    with the reason and back to the confirmation; confirmed again, the release holds the edit."""
    from curriculum.domain.chapter_files import chapter_source

    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    client = admin_client_for(erin)
    confirmation = client.get(publish_url(chapter))
    assert 'name="reviewed"' in confirmation.content.decode()
    chapter_import(
        document=chapter_source(code="II.7") | {"thesis": "An author's late claim."}, user=alice
    )

    notes = {"notes": "Sharper thesis."}
    refused = client.post(publish_url(chapter), {"reviewed": reviewed_on(confirmation)} | notes)
    text = refused.content.decode()
    assert "Not published: the chapter changed since you reviewed it" in text
    assert "Sharper thesis." in text  # the notes typed are kept
    assert not Release.objects.exists()

    again = refused  # the confirmation again, as the chapter now is
    client.post(publish_url(chapter), {"reviewed": reviewed_on(again)})
    assert Release.objects.get().snapshot["thesis"] == "An author's late claim."


def test_the_state_field_offers_no_published_choice(seeded, admin_client_for, erin):
    text = admin_client_for(erin).get(change_url(Chapter.objects.get(code="II.4"))).content.decode()
    assert 'value="in_progress"' in text and 'value="published"' not in text


def test_posting_state_published_by_hand_is_refused(seeded, admin_client_for, erin):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(erin)
    data = resubmitted(client.get(change_url(chapter)))
    data["state"] = "published"
    page = client.post(change_url(chapter), data)
    assert "Select a valid choice. published is not one of the available choices." in (
        shown_errors(page)
    )
    chapter.refresh_from_db()
    assert chapter.state == "in_progress"


def test_every_admin_page_an_author_uses_renders(seeded, admin_client_for, alice):
    client = admin_client_for(alice)
    for name in ("chapter", "problem", "book", "release"):
        assert client.get(reverse(f"admin:curriculum_{name}_changelist")).status_code == 200
    for name in ("chapter", "problem"):
        assert client.get(reverse(f"admin:curriculum_{name}_add")).status_code == 200
    chapter = Chapter.objects.get(code="II.3")
    assert client.get(change_url(chapter)).status_code == 200
    problem = chapter.problems.first()
    assert (
        client.get(reverse("admin:curriculum_problem_change", args=[problem.pk])).status_code == 200
    )


def test_a_chapter_saved_over_a_newer_version_is_refused_with_a_reason(
    seeded, admin_client_for, erin
):
    """A PUT while the chapter page is open rewrites its rows: the page's save names why it
    cannot go through (it used to say only "Please correct the errors below")."""
    from curriculum.domain.chapter_files import chapter_import, chapter_source

    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(erin)
    page = client.get(change_url(chapter))
    data = resubmitted(page) | {"title": "Title from the page"}
    chapter_import(document=chapter_source(code="II.4") | {"summary": "Summary from the API."})

    refused = client.post(change_url(chapter), data)
    assert refused.status_code == 200
    assert "Someone changed this since you opened it" in shown_errors(refused)
    chapter.refresh_from_db()
    assert chapter.summary == "Summary from the API." and chapter.title != "Title from the page"


def test_a_library_save_dropping_a_cited_work_is_refused_on_its_field(
    seeded, admin_client_for, erin
):
    book = Book.objects.get(numeral="II")
    url = reverse("admin:curriculum_book_change", args=[book.pk])
    client = admin_client_for(erin)
    data = resubmitted(client.get(url))
    data["bibliography"] = '[{"id": "vaswani2017", "type": "article-journal"}]'
    page = client.post(url, data)
    assert page.status_code == 200 and "this looks like CSL-JSON" in shown_errors(page)
    start = book.bibliography.index("@inproceedings{vaswani2017")
    data["bibliography"] = book.bibliography[:start]
    page = client.post(url, data)
    assert page.status_code == 200
    assert "vaswani2017: cited by II.3 " in shown_errors(page)
    assert Book.objects.get(numeral="II").bibliography == book.bibliography


def test_removing_a_term_another_chapter_uses_is_refused_in_preview_and_save(
    seeded, admin_client_for, alice
):
    document = sketch("II.10")
    document["strands"]["basics"]["items"][0]["body"] = "The @term:query asks."
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.3")
    client = admin_client_for(alice)
    data = resubmitted(client.get(change_url(chapter)))
    (field,) = [
        name for name, value in data.items() if name.endswith("-defines") and "query" in value
    ]
    data[field] = data[field].replace("query", "question")
    said = "the term query is used by II.10 strands.basics.items[0].body"
    preview = client.post(
        reverse("admin:curriculum_chapter_preview_change", args=[chapter.pk]), data
    )
    assert said in preview.content.decode()
    page = client.post(change_url(chapter), data)
    assert page.status_code == 200 and said in shown_errors(page)
    assert (
        "query"
        in Chapter.objects.get(code="II.3").strand_items.get(position=0, strand="basics").defines
    )
