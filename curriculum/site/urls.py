"""The readers' site: books, chapters, every chapter's earlier releases, and a signed-in
reader's own account pages (allauth's sign-up and log-in pages are under /accounts/)."""

from django.urls import path, register_converter

from . import account, book_lists, media, practice, printing, search, views, wayfinding


class Word:
    """A code, numeral or problem key as addresses hold them: ASCII letters, digits, dots,
    dashes and underscores. Anything else (a NUL, which PostgreSQL refuses) is a plain 404."""

    regex = r"[A-Za-z0-9._-]{1,80}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class Number:
    """A release number as its address writes it: ASCII digits, no leading zero, so one release
    has one address (/releases/01/ is a 404, as /releases/1.0/ is)."""

    regex = r"[1-9][0-9]{0,8}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(Word, "word")
register_converter(Number, "number")

app_name = "site"
urlpatterns = [
    path("", views.home, name="home"),
    path("books/<word:numeral>/", views.book, name="book"),
    path("books/<word:numeral>/bibliography/", book_lists.bibliography, name="bibliography"),
    path("books/<word:numeral>/glossary/", book_lists.glossary, name="glossary"),
    path("books/<word:numeral>/pdf", printing.book_pdf_view, name="book_pdf"),
    path("search/", search.search_page, name="search"),
    path("chapters/<word:code>/", views.chapter, name="chapter"),
    path("chapters/<word:code>/releases/", wayfinding.releases, name="releases"),
    path("chapters/<word:code>/problems/<word:key>/", practice.practice_page, name="practice"),
    path(
        "chapters/<word:code>/problems/<word:key>/report/",
        practice.report,
        name="practice_report",
    ),
    path("chapters/<word:code>/releases/<number:number>/", views.release, name="release"),
    path(
        "chapters/<word:code>/releases/<number:number>/pdf",
        printing.release_pdf_view,
        name="release_pdf",
    ),
    path("media/<word:name>", media.media_file_view, name="media"),
    path("operations/", views.operations, name="operations"),
    path("account/", account.account, name="account"),
    path("account/export/", account.export, name="account_export"),
    path("account/delete/", account.delete, name="account_delete"),
    path("account/deleted/", account.deleted, name="account_deleted"),
]
