"""Media library images come from the site's own origin, typed by their content, cached, and
a chapter that shows tables, footnotes, code and an image keeps every word its author wrote."""

import re

from curriculum.domain.chapter_files import chapter_import
from tests.conftest import png, sketch
from tests.curriculum.site.test_views_chapter_page import visible_text

BODY = """Two heads split the width[^w], ~~roughly~~ as the table says:

| heads | width each |
|------:|:----------:|
| 2 | 32 |
| 4 | 16 |

![two attention heads side by side](media:heads.png "Heads, side by side")

```python
def split(d_model, heads):
    return d_model // heads  # the width of each
```

[^w]: The model width is fixed at 64.
"""


def test_an_image_is_served_with_its_type_an_etag_and_an_hours_caching(client, heads):
    response = client.get("/media/heads.png")
    assert response.status_code == 200 and response.content == png()
    assert response["Content-Type"] == "image/png"
    assert response["Cache-Control"] == "public, max-age=3600"
    assert response["X-Content-Type-Options"] == "nosniff"
    again = client.get("/media/heads.png", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_an_unknown_or_malformed_name_is_a_plain_404(client, heads):
    for path in ("/media/tails.png", "/media/..%2Fsecret", "/media/a%00b"):
        assert client.get(path).status_code == 404, path
    assert client.post("/media/heads.png").status_code in (403, 405)


def test_a_chapter_with_a_table_footnote_struck_text_image_and_code_keeps_every_word(
    client, books, heads
):
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0]["body"] = BODY
    chapter_import(document=document)
    html = client.get("/chapters/II.7/").content.decode()
    text = visible_text(html)
    for words in (
        "Two heads split the width",
        "as the table says:",
        "heads width each 2 32 4 16",
        "def split ( d_model , heads ): return d_model // heads # the width of each",
        "The model width is fixed at 64.",
    ):
        assert words in text, words
    assert (
        '<img class="media" src="/media/heads.png" alt="two attention heads side by side" '
        'title="Heads, side by side"' in html
    )
    assert "<s>roughly</s> as the table says" in html and "~~" not in text
    assert '<span class="k">def</span>' in html and "site/code.css" in html
    assert re.search(r'<sup class="footnote-ref"><a href="#fn-[0-9a-f]+-1"', html)
    assert "[^w]" not in text and "|" not in text and "```" not in text
