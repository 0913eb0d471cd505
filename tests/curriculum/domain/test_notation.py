"""Notation across a book: a symbol two chapters of one book define differently is a warning on
import (dry run included) and in admin, naming both definitions; the chapter is written anyway."""

from pathlib import Path

import pytest
from django.contrib import messages
from django.core.management import call_command

from curriculum.domain.chapter_files import books_import, chapter_import, file_import
from curriculum.domain.notation import chapter_notation_conflicts, notation_conflicts
from curriculum.models import Chapter
from tests.conftest import CONTENT, sketch
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors

D_K = (
    'notation[2]: d_k is defined differently in II.3 ("Key and query width") and here '
    '("Key and query width inside one attention head")'
)
II = CONTENT / "II"


def notation_warnings(warnings) -> list[str]:
    return [warning for warning in warnings if warning.startswith("notation[")]


def imported(path: Path):
    return file_import(text=path.read_text(encoding="utf-8"))


def test_the_seed_defines_d_k_twice_and_t_once(books):
    assert notation_warnings(imported(II / "II.3.yaml").warnings) == []
    result = imported(II / "II.4.yaml")
    assert notation_warnings(result.warnings) == [D_K]  # T agrees; k and K are two symbols
    assert Chapter.objects.get(code="II.4").notation.get(symbol="d_k").meaning == (
        "Key and query width inside one attention head"
    ), "a warning, not a refusal"


def test_the_command_and_its_dry_run_print_the_warning(books, capsys):
    call_command("import_chapter", str(II / "II.3.yaml"), str(II / "II.4.yaml"), "--dry-run")
    assert f"  warning: {D_K}" in capsys.readouterr().err.splitlines()
    assert not Chapter.objects.filter(code__in=["II.3", "II.4"]).exists()
    call_command("import_chapter", str(II / "II.3.yaml"), str(II / "II.4.yaml"))
    assert f"  warning: {D_K}" in capsys.readouterr().err.splitlines()


def test_a_saved_chapter_is_warned_from_its_rows_in_one_query(seeded, django_assert_num_queries):
    ii3, ii4 = Chapter.objects.select_related("book").filter(code__in=["II.3", "II.4"])
    assert chapter_notation_conflicts(ii4) == [D_K]
    assert chapter_notation_conflicts(ii3) == [
        'notation[3]: d_k is defined differently in II.4 ("Key and query width inside one '
        'attention head") and here ("Key and query width")'
    ]
    with django_assert_num_queries(1):
        notation_conflicts(ii4.book, "II.9", [("d_k", "Other"), ("T", "Time"), ("h", "Heads")])


def notation(*rows: tuple[str, str]) -> list[dict]:
    return [{"symbol": symbol, "meaning": meaning} for symbol, meaning in rows]


def test_meanings_differing_only_in_spacing_case_punctuation_or_dollars_agree(books):
    chapter_import(document=sketch("II.7", notation=notation(("Q", "Query matrix, $T×d_k$"))))
    same = notation((" $Q$ ", "query  MATRIX, T×d_k."), ("q", "A query row"))
    assert notation_warnings(chapter_import(document=sketch("II.8", notation=same)).warnings) == []
    other = notation(("q", "a query row"), ("Q", "Query matrix, T×d_v"))
    assert notation_warnings(chapter_import(document=sketch("II.9", notation=other)).warnings) == [
        'notation[1]: Q is defined differently in II.7, II.8 ("Query matrix, $T×d_k$") and here '
        '("Query matrix, T×d_v")'
    ], "one warning for the chapters that agree, naming each"


def test_another_books_definition_is_no_conflict(books):
    books_import(document={"books": [{"numeral": "III", "title": "Blocks", "slug": "blocks"}]})
    chapter_import(document=sketch("II.7", notation=notation(("d", "Model width"))))
    in_iii = sketch("III.1", book="III", notation=notation(("d", "Depth")))
    assert notation_warnings(chapter_import(document=in_iii).warnings) == []
    in_ii = sketch("II.8", notation=notation(("d", "Depth")))
    assert notation_warnings(chapter_import(document=in_ii).warnings) == [
        'notation[0]: d is defined differently in II.7 ("Model width") and here ("Depth")'
    ]


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def saved(client, chapter, **changes):
    data = resubmitted(client.get(change_url(chapter))) | changes
    page = client.post(change_url(chapter), data, follow=True)
    assert page.redirect_chain, shown_errors(page)
    return [(m.level, m.message) for m in page.context["messages"]]


def test_admin_warns_after_a_save_and_not_once_the_meanings_agree(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    assert (messages.WARNING, D_K) in saved(author, chapter)
    shown = saved(author, chapter, **{"notation-2-meaning": "key and query width."})
    assert [text for level, text in shown if level == messages.WARNING] == []
    assert chapter.notation.get(symbol="d_k").meaning == "key and query width."
