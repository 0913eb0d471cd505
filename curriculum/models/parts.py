"""The parts of a chapter a reader reads: strand items, figures, notation, propositions."""

from django.core.exceptions import ValidationError
from django.db import models

from curriculum.domain.claims.properties import property_errors
from curriculum.domain.ladder import MATHEMATICS, STRAND_CHOICES
from curriculum.domain.terms import DEFINES_CHARS

from .course import Chapter
from .fields import LFTextField
from .validators import validate_markdown, validate_svg, validate_terms, validate_title

# Mathematics has no items: its problems count.
ITEM_STRAND_CHOICES = [(c, n) for c, n in STRAND_CHOICES if c != MATHEMATICS]


class StrandItem(models.Model):
    """One piece of teaching in a strand; it counts towards the strand once published."""

    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="strand_items")
    strand = models.CharField(max_length=20, choices=ITEM_STRAND_CHOICES)
    title = models.CharField(max_length=200)
    body = LFTextField(blank=True, validators=[validate_markdown])
    published = models.BooleanField(default=False)
    defines = models.CharField(
        max_length=DEFINES_CHARS,
        blank=True,
        help_text="Glossary terms this item defines, separated by commas (query, key, value); "
        "texts link a use with @term:query.",
        validators=[validate_terms],
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(strand__in=[c for c, _ in ITEM_STRAND_CHOICES]),
                name="item_strand_is_not_mathematics",
            )
        ]

    def __str__(self) -> str:
        return self.title


class Figure(models.Model):
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="figures")
    label = models.CharField(max_length=20, help_text='Numbers the caption: "Fig. 4 — …".')
    caption = LFTextField(validators=[validate_markdown])
    alt = LFTextField(help_text="What the drawing shows, for readers who cannot see it.")
    svg = LFTextField(
        help_text="An SVG drawing; scripts, event handlers, styles and external references are "
        "left out when it is shown.",
        validators=[validate_svg],
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "label"], name="figure_label_once")
        ]

    def __str__(self) -> str:
        return f"Fig. {self.label}"


class Notation(models.Model):
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="notation")
    symbol = models.CharField(max_length=100)
    meaning = LFTextField(validators=[validate_markdown])
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "notation"

    def __str__(self) -> str:
        return self.symbol


class Proposition(models.Model):
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="propositions")
    number = models.PositiveIntegerField()
    label = models.SlugField(
        max_length=50,
        blank=True,
        db_index=False,
        help_text="What references call it (@prop:LABEL); empty: its number (@prop:2).",
    )
    title = models.CharField(max_length=300, validators=[validate_title])
    statement = LFTextField(validators=[validate_markdown])
    proof = LFTextField(blank=True, null=True, validators=[validate_markdown])  # noqa: DJ001 - null is "no proof yet", as in chapter files
    proof_published = models.BooleanField(default=False)
    property_check = models.JSONField(
        null=True,
        blank=True,
        help_text="A property checked numerically on seeded random instances: "
        '{"inputs": {...generated...}, "holds": "expression", "instances": N, '
        '"tolerance": {"rtol": ..., "atol": ...}} (docs/content-format.md).',
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "number"], name="proposition_number_once"),
            models.UniqueConstraint(
                fields=["chapter", "label"],
                condition=~models.Q(label=""),
                name="proposition_label_once",
            ),
            models.CheckConstraint(
                condition=models.Q(proof_published=False)
                | (models.Q(proof__isnull=False) & ~models.Q(proof="")),
                name="published_proof_is_written",
            ),
        ]

    def __str__(self) -> str:
        return f"Prop. {self.number}"

    def clean(self) -> None:
        if self.property_check is not None and (
            found := property_errors(self.property_check, "property_check")
        ):
            raise ValidationError({"property_check": [f"{path}: {msg}" for path, msg in found]})
