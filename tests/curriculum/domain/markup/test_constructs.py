"""What the page would not show is refused with a reason that says what to write instead."""

import pytest
from django.core.exceptions import ValidationError

from curriculum.domain.markup import construct_errors, media_names
from curriculum.models import Proposition


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("See ![a cat](https://example.org/a.png).", "image `https://example.org/a.png` is not"),
        ("See ![](media:heads.png).", "image media:heads.png needs alt text"),
        ("Bold <b>this</b>.", "raw HTML `<b>` is not shown on the page"),
        ("<div>\nblock\n</div>", "raw HTML `<div> block </div>` is not shown"),
        ("A <!-- note --> here.", "raw HTML `<!-- note -->`"),
        ("As \\eqref{score} shows.", "`\\eqref{score}` is not supported: write @eq:score"),
        ("As $\\eqref{score}$ shows.", "`\\eqref{score}` is not supported: write @eq:score"),
        ("As \\ref{score} shows.", "write @eq:score"),
        ("Get [it](ftp://example.org/x).", "link `ftp://example.org/x` would lose its address"),
        ("Run [x](javascript:alert(1)).", "link `javascript:alert(1)` would show as typed"),
        ("Run [x](https:javascript:alert(1)).", "would lose its address: write https://host/"),
        ("See [x](http:/example.org).", "link `http:/example.org` would lose its address"),
        ("See [x](data:text/html,hi).", "link `data:text/html,hi` would show as typed"),
    ],
)
def test_each_construct_the_page_would_drop_is_refused_with_what_to_write(text, said):
    errors = construct_errors(text)
    assert any(said in error for error in errors), errors


@pytest.mark.parametrize(
    "text",
    [
        "| a | b |\n|--|--|\n| 1 | 2 |\n",
        "Note[^1].\n\n[^1]: It.",
        "```python\nx = '<b>' < 2\n```",
        "Inline `<b>` and $a<b$ and [a link](https://example.org/) and [here](#eq-score).",
        "Mail [us](mailto:a@example.org), see <https://example.org>, @eq:score.",
        "![two heads](media:heads.png)",
        "a < b and c > d, 2 < 3",
        "~~struck~~ and [a link][r].\n\n[r]: https://example.org",
        "> " * 10 + "ten deep, the limit",
        "\n".join("  " * depth + "- level" for depth in range(10)),
    ],
)
def test_what_the_page_shows_is_not_refused(text):
    assert construct_errors(text) == []


def test_media_names_are_read_from_images_only():
    text = "![a](media:heads.png) `![b](media:code.png)` [c](media:link.png) ![d](x.png)"
    assert media_names(text) == {"heads.png"}


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("Bold <b>this</b>", "raw HTML `<b>` is not shown on the page"),
        ("Run [x](javascript:alert(1))", "link `javascript:alert(1)` would show as typed"),
        ("# A heading", "a title is one line of text"),
    ],
)
def test_admin_refuses_in_a_proposition_title_what_a_file_may_not_hold(title, said):
    """The model's field had no validator: admin saved raw HTML in a title files refuse."""
    with pytest.raises(ValidationError) as refused:
        Proposition._meta.get_field("title").run_validators(title)
    assert any(said in message for message in refused.value.messages), refused.value.messages
