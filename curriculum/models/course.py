"""Books and chapters, and the apparatus links from a chapter to Book 0 entries."""

import re

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.safestring import mark_safe

from curriculum.domain.descriptions import description_html
from curriculum.domain.ladder import MATURITY_CHOICES, STRAND_CHOICES

from .fields import LFTextField
from .validators import validate_bibliography, validate_description, validate_markdown

# Codes are ASCII: [0-9], never \d (which takes Arabic-Indic digits), and \Z, never $ (which
# matches before a final newline). One rule for validation and the database's CHECK.
NUMERAL_FORM = r"(0|[IVXLC]+)"
CODE_FORM = r"(0\.[A-Z]{2}\.[0-9]{2}|[IVXLC]+\.[1-9][0-9]*)"  # II.3, never II.03: one address
NUMERAL_RE = rf"^{NUMERAL_FORM}\Z"
CODE_RE = rf"^{CODE_FORM}\Z"
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def numeral_value(numeral: str) -> int:
    """Order books by value, so Book IX comes before Book X."""
    total = 0
    for here, after in zip(numeral, numeral[1:] + " ", strict=True):
        value = ROMAN.get(here, 0)
        total += -value if ROMAN.get(after, 0) > value else value
    return total


APPARATUS_PREFIX = "0."  # Book 0 entries (0.LA.01): the apparatus every chapter may lean on


def is_apparatus_code(code: str) -> bool:
    return code.startswith(APPARATUS_PREFIX)


def number_from_code(code: str) -> int | None:
    """II.4 is chapter 4 and 0.MC.07 entry 7: the code carries the number."""
    suffix = code.rsplit(".", 1)[-1]
    return int(suffix) if suffix.isdigit() else None


def code_number_mismatch(code: str, number: int) -> str | None:
    """II.4 is "Chapter 4": a number that disagrees would show two different chapters."""
    suffix = code.rsplit(".", 1)[-1] if not is_apparatus_code(code) else ""
    if suffix.isdigit() and number != int(suffix):
        return f"the code {code} says chapter {int(suffix)}, but number is {number}"
    return None


def code_book_mismatch(code: str, numeral: str) -> str | None:
    """II.4 is a chapter of Book II: a code that does not start with its book's numeral would
    give the chapter an address its book does not have."""
    if not code.startswith(f"{numeral}."):
        return f"a chapter of Book {numeral} has a code starting {numeral}."
    return None


def state_after_edit(state: str, *, released: bool) -> str:
    """A released chapter stays published while its working copy is edited; only draft
    withdraws it. Every writer (admin, files, API) passes the state it was given through here."""
    return "published" if released and state == "in_progress" else state


def state_refusal(state: str, *, released: bool) -> str | None:
    """Only publishing makes a chapter published; an edit may keep a released one so."""
    return (
        "published is reached only by publishing" if state == "published" and not released else None
    )


class Book(models.Model):
    numeral = models.CharField(
        max_length=10,
        unique=True,
        help_text='Roman numeral (I, II, …); "0" is the apparatus.',
        validators=[RegexValidator(NUMERAL_RE, "a roman numeral (I, II, …), or 0")],
    )
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = LFTextField(
        blank=True,
        help_text="Markdown, shown on the home page and the book's page; no claims.",
        validators=[validate_description],
    )
    bibliography = LFTextField(
        blank=True,
        help_text="The book's library, in BibTeX: its chapters cite a work by its key "
        "(@cite:vaswani2017).",
        validators=[validate_bibliography],
    )
    position = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(numeral__regex=NUMERAL_RE), name="book_numeral_roman_or_0"
            )
        ]

    def __str__(self) -> str:
        return f"Book {self.numeral}: {self.title}"

    def save(self, *args, **kwargs):
        self.position = numeral_value(self.numeral)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        stored = Book.objects.filter(pk=self.pk).values_list("numeral", flat=True).first()
        if (
            stored is not None
            and stored != self.numeral
            and self.chapters.filter(releases__isnull=False).exists()
        ):
            raise ValidationError(
                {
                    "numeral": f"the numeral cannot change (it is {stored}): chapters of this "
                    "book have releases, and their codes start with it"
                }
            )

    @property
    def description_html(self) -> str:
        """The description as readers see it (`descriptions.description_html`, sanitised)."""
        return mark_safe(description_html(self.description))  # cleaned there


class Chapter(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", "draft"
        IN_PROGRESS = "in_progress", "in progress"
        PUBLISHED = "published", "published"

    book = models.ForeignKey(Book, on_delete=models.PROTECT, related_name="chapters")
    code = models.CharField(max_length=20, unique=True, help_text="II.4, or 0.LA.01 in Book 0")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    author = models.CharField(max_length=200, blank=True)
    thesis = LFTextField(
        blank=True, help_text="The one-line claim.", validators=[validate_markdown]
    )
    summary = LFTextField(
        blank=True, help_text="The one-line problem.", validators=[validate_markdown]
    )
    maturity = models.CharField(max_length=2, choices=MATURITY_CHOICES, default="M0")
    spine = models.CharField(max_length=20, choices=STRAND_CHOICES, default="mathematics")
    state = models.CharField(max_length=20, choices=State.choices, default=State.DRAFT)
    before_you_start = LFTextField(blank=True, validators=[validate_markdown])
    problem_statement = LFTextField(blank=True, validators=[validate_markdown])
    # Per-chapter strand targets; the mathematics target comes from the maturity ladder.
    basics_target = models.PositiveIntegerField(default=0)
    concept_target = models.PositiveIntegerField(default=0)
    theory_target = models.PositiveIntegerField(default=0)
    practice_target = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)
    # moved by every change to what readers are shown of it (domain/revisions.py)
    revision = models.PositiveBigIntegerField(default=1, editable=False)

    class Meta:
        ordering = ["book__position", "number", "code"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(code__regex=CODE_RE), name="chapter_code_form"
            ),
            models.CheckConstraint(
                condition=models.Q(maturity__in=[c for c, _ in MATURITY_CHOICES]),
                name="chapter_maturity_on_ladder",
            ),
        ]
        permissions = [("publish_chapter", "Can publish a chapter (make a release)")]

    def __str__(self) -> str:
        return f"{self.code} {self.title}"

    def clean_fields(self, exclude=None) -> None:
        """Where the number is not asked (a form without it, as admin's chapter page), the code
        gives it: II.4 is chapter 4; a code that ends in no number leaves the number as it is."""
        if exclude and "number" in exclude and isinstance(self.code, str):
            self.number = number_from_code(self.code) or self.number
        super().clean_fields(exclude)

    def clean(self) -> None:
        if not re.match(CODE_RE, self.code or ""):
            raise ValidationError({"code": "a book numeral, a dot and a number (II.4), or 0.LA.01"})
        released = self.pk is not None and self.releases.exists()
        if released:
            self._keep_identity()
        self.state = state_after_edit(self.state, released=released)
        if refusal := state_refusal(self.state, released=released):
            raise ValidationError({"state": refusal})
        if self.number and (mismatch := code_number_mismatch(self.code, self.number)):
            raise ValidationError({"number": mismatch})
        if self.book_id and (mismatch := code_book_mismatch(self.code, self.book.numeral)):
            raise ValidationError({"code": mismatch})

    def _keep_identity(self) -> None:
        """A release's address is forever: its JSON and every link to it name this code."""
        row = Chapter.objects.filter(pk=self.pk).values(*IDENTITY)[0]
        stored: dict[str, object] = dict(row)
        book = self.book.numeral if self.book_id else None
        now = {"code": self.code, "book__numeral": book, "number": self.number}
        errors: dict[str, list[str]] = {}
        for key, (field, label) in IDENTITY.items():
            if stored[key] != now[key]:
                errors.setdefault(field, []).append(
                    f"the {label} cannot change once the chapter has a release "
                    f"(it is {stored[key]}); make a new chapter instead"
                )
        if errors:
            raise ValidationError(errors)


# What names a released chapter, and the field an error is shown on: the number follows from
# the code (admin has no number field), so its error is shown on the code.
IDENTITY = {
    "code": ("code", "code"),
    "book__numeral": ("book", "book"),
    "number": ("code", "number"),
}


class ApparatusLink(models.Model):
    """A chapter leans on a Book 0 entry: a link, not a gate."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="apparatus_links")
    entry = models.ForeignKey(Chapter, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "entry"], name="apparatus_once_per_chapter")
        ]

    def __str__(self) -> str:
        return self.entry.code

    def clean(self) -> None:
        if self.entry_id and not is_apparatus_code(self.entry.code):
            raise ValidationError({"entry": "apparatus links go to Book 0 entries"})
        if self.entry_id and self.entry_id == self.chapter_id:
            raise ValidationError({"entry": "a chapter cannot lean on itself"})


class ChapterReference(models.Model):
    """A chapter's texts name another chapter (`@II.3`, `@0.LA.01/prop:2`): its page reads that
    chapter's title and numbers and links its latest release, so it is rendered again whenever
    that chapter moves (`revisions.chapters_moved`), as a chapter leaning on an entry is."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="references_made")
    target = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chapter", "target"], name="reference_once_per_chapter")
        ]

    def __str__(self) -> str:
        return f"{self.chapter_id} names {self.target_id}"
