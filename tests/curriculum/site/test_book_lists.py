"""A book's bibliography and glossary pages: what they list, and only what readers may see."""

import re

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import BookSave
from curriculum.models import Book
from tests.conftest import sketch


def test_the_bibliography_lists_every_work_with_the_chapters_citing_it(client, seeded):
    page = client.get("/books/II/bibliography/").content.decode()
    keys = re.findall(r'<li id="ref-([^"]+)">', page)
    assert keys == ["bahdanau2015", "luong2015", "vaswani2017", "milakov2018"]  # library order
    assert 'Cited in <a href="/chapters/II.3/#ref-vaswani2017">II.3 Scaled' in page
    book = client.get("/books/II/").content.decode()
    assert 'href="/books/II/bibliography/"' in book and 'href="/books/II/glossary/"' in book
    assert (
        "Book 0 has no bibliography yet." in client.get("/books/0/bibliography/").content.decode()
    )


def test_the_glossary_lists_terms_readers_can_see_with_their_definition(client, seeded):
    document = sketch("II.7", state="draft")
    document["strands"]["basics"]["items"][0]["defines"] = ["logit"]
    chapter_import(document=document)
    page = client.get("/books/II/glossary/").content.decode()
    terms = re.findall(r'<dt id="term-([^"]+)">', page)
    assert terms == ["attention-weights", "head", "key", "model-width", "query", "score", "value"]
    assert "logit" not in page  # a draft's term is not for readers
    entry = page[page.index('id="term-score"') :]
    assert "is the scaled dot product" in entry[: entry.index("</dd>")]
    assert 'used in <a href="/chapters/II.3/">II.3' in entry[: entry.index("</dd>")]


def test_an_unknown_book_has_neither_page(client, seeded):
    assert client.get("/books/XL/bibliography/").status_code == 404
    assert client.get("/books/XL/glossary/").status_code == 404


def cited_and_shown(client, work: str, key: str) -> list[str]:
    """The work added to Book II's library and cited by II.7: as II.7's References show it, as
    the bibliography page shows it, and II.7's page."""
    book = Book.objects.get(numeral="II")
    book.bibliography += work
    BookSave(book=book).execute()
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0]["body"] = f"As @cite:{key} showed."
    chapter_import(document=document)
    chapter = client.get("/chapters/II.7/").content.decode()
    references = chapter[chapter.index('id="references"') :]
    bibliography = client.get("/books/II/bibliography/").content.decode()
    shown = []
    for page in (references[: references.index("</ol>")], bibliography):
        entry = page[page.index(f'id="ref-{key}"') :]
        shown.append(entry[: entry.index("</li>")])
    return [*shown, chapter]


TEX_WORK = r"""
@article{mueller2020,
  author = {M{\"u}ller, Jana and Roe, Richard},
  title = {{\"U}ber \emph{Attention} in {BERT} -- a \LaTeX\ study of \url{heads}},
  journal = {Journal of \textbf{Examples}},
  year = {2020},
  pages = {1--10}
}
"""


def test_a_title_written_in_tex_reads_as_text_in_references_and_the_bibliography(client, seeded):
    *works, chapter = cited_and_shown(client, TEX_WORK, "mueller2020")
    for work in works:
        work = re.sub(r"<span[^>]*>|</span>", "", work)
        assert "Jana Müller and Richard Roe." in work
        assert "Über <em>Attention</em> in BERT – a LaTeX study of heads." in work
        assert "Journal of <strong>Examples</strong>" in work and "pages 1–10" in work
        assert "\\" not in work and "{" not in work
    assert 'title="Müller and Roe 2020"' in chapter  # the citation's hover


MATH_WORK = r"""
@article{cost2021,
  author = {Doe, Jane},
  title = {Attention for \$5: the score $x^2_{ij}$ per pair},
  journal = {Journal of Examples},
  year = {2021}
}
"""


def test_a_dollar_and_a_formula_in_a_title_read_as_a_dollar_and_typeset_math(client, seeded):
    for work in cited_and_shown(client, MATH_WORK, "cost2021")[:2]:
        assert "Attention for $5: the score " in work and "\\$" not in work
        assert "<msubsup><mi>x</mi><mrow><mi>i</mi><mi>j</mi></mrow><mn>2</mn></msubsup>" in work
        shown = re.sub(r"<annotation[^>]*>.*?</annotation>", "", work)
        assert "$x" not in shown and "x^2" not in shown  # no TeX source outside the annotation
