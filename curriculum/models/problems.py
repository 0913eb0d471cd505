"""Problems, their solutions, and the verifier's verdict on each solution."""

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

import attention
from attention.answers import answer_problems
from curriculum.domain.claims.syntax import claim_name_errors, known_names
from curriculum.domain.drafts import draft_errors
from curriculum.domain.hints import feedback_errors, hints_errors
from curriculum.domain.judging import tolerance_of
from curriculum.domain.limits import nul_paths
from curriculum.domain.placeholders import (
    MAX_DIGITS,
    SHOWN_DIGITS,
    answer_shown_errors,
    placeholder_errors,
)
from curriculum.domain.tolerances import MAX_RTOL, MIN_DIGITS, tolerance_problems
from curriculum.domain.work_budget import chapter_work_refusal, work_refusal

from .course import Chapter
from .fields import LFTextField
from .validators import validate_markdown

KEY_CHARS = 50
"""A problem's key (p1, attention-weights): as stored, and as every path that names one."""


class Problem(models.Model):
    class Kind(models.TextChoices):
        WORKED = "worked", "worked problem"
        EXERCISE = "exercise", "exercise"

    # No index of their own on chapter, key or variant: the (chapter, key) constraint's index
    # serves every lookup, and each extra index is written on every import of every problem.
    chapter = models.ForeignKey(
        Chapter, on_delete=models.CASCADE, related_name="problems", db_index=False
    )
    key = models.SlugField(
        max_length=KEY_CHARS, db_index=False, help_text="Stable within the chapter: p1, p2, …"
    )
    kind = models.CharField(
        max_length=10,
        choices=Kind.choices,
        help_text="A worked problem is solved step by step in the text; an exercise is left to "
        "the reader. The level sets how many of each the chapter owes.",
    )
    variant = models.SlugField(
        max_length=80,
        db_index=False,
        help_text="The problem's type, such as mha-output. The level counts the distinct "
        "variants among the worked problems: five worked problems of two types are two variants.",
    )
    statement = LFTextField(validators=[validate_markdown])
    operation = models.CharField(max_length=60, help_text="The engine operation that checks it.")
    inputs = models.JSONField(default=dict, help_text="Named scalars and matrices (JSON).")
    ask = models.JSONField(default=dict, help_text='Which result: {"output": "out"}')
    rtol = models.FloatField(default=1e-6)
    atol = models.FloatField(default=1e-9)
    digits = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        default=SHOWN_DIGITS,
        help_text=(
            "Significant figures the answer must agree with the engine's value to "
            f"({MIN_DIGITS} to {MAX_DIGITS}). Empty: compare with rtol and atol instead."
        ),
    )
    hints = models.JSONField(
        default=list,
        blank=True,
        help_text="Markdown hints, shown to a practising reader one at a time (a JSON list).",
    )
    feedback = models.JSONField(
        default=list,
        blank=True,
        help_text="What to tell a reader who gives a specific wrong answer at instance 0: a JSON "
        'list of {"answer": ..., "says": "..."}.',
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["chapter", "key"], name="problem_key_once"),
            models.CheckConstraint(
                condition=models.Q(rtol__gte=0, atol__gte=0),
                name="tolerance_not_negative",
                violation_error_message="rtol and atol are at least 0",
            ),
            models.CheckConstraint(
                condition=models.Q(digits__isnull=True)
                | models.Q(digits__gte=MIN_DIGITS, digits__lte=MAX_DIGITS),
                name="digits_in_range",
            ),
            models.CheckConstraint(condition=models.Q(rtol__lte=MAX_RTOL), name="rtol_bounded"),
        ]

    def __str__(self) -> str:
        return f"{self.chapter.code} {self.key}"

    def names(self) -> frozenset[str]:
        """What a claim in its texts may read: its inputs and its operation's outputs."""
        return known_names({"operation": self.operation, "inputs": self.inputs})

    def _chapter_weighed(self) -> list[tuple[int, Any, Any]]:
        """This problem as it would be saved, then its chapter's others, as
        `chapter_work_refusal` weighs them."""
        others = Problem.objects.filter(chapter_id=self.chapter_id).exclude(pk=self.pk)
        rows = [(self.operation, self.inputs), *others.values_list("operation", "inputs")]
        return [(i, operation, inputs) for i, (operation, inputs) in enumerate(rows)]

    def clean(self) -> None:
        """The engine says whether the inputs fit the operation, before any worker sees them."""
        errors: dict[str, list[str]] = {}
        for path in nul_paths(
            {"inputs": self.inputs, "ask": self.ask, "hints": self.hints, "feedback": self.feedback}
        ):
            field = path.split(".")[0].split("[")[0]
            errors.setdefault(field, []).append(f"{path}: contains a NUL character (\\0)")
        if errors:  # PostgreSQL could not store it; the engine need not look
            raise ValidationError(errors)
        refused, axes = attention.check_planned(self.operation, self.inputs, self.ask)
        for problem in refused:
            field = problem.path.split(".")[0]
            field = field if field in ("operation", "inputs", "ask") else "__all__"
            errors.setdefault(field, []).append(f"{problem.path}: {problem.message}")
        if not errors and (
            too_much := work_refusal(
                operation=self.operation, inputs=self.inputs, ask=self.ask, axes=axes
            )
        ):
            errors[too_much.field] = [f"{too_much.field}: {too_much.message}"]
        elif not errors and (over := chapter_work_refusal(self._chapter_weighed())):
            errors["inputs"] = [f"inputs: {over[1]}"]
        computable = "inputs" not in errors and "operation" not in errors
        if computable and (
            found := placeholder_errors(
                self.statement, operation=self.operation, inputs=self.inputs
            )
            + claim_name_errors(
                self.statement, self.names(), every_instance=attention.is_generated(self.inputs)
            )
            + (answer_shown_errors(self.statement) if self.kind == self.Kind.EXERCISE else [])
        ):
            errors["statement"] = found
        answer = self.solution.answer if self.pk and hasattr(self, "solution") else None
        if computable:
            shown = {
                "operation": self.operation,
                "inputs": self.inputs,
                "ask": self.ask,
                "tolerance": tolerance_of(self),
            }
            for path, message in hints_errors(self.hints, shown) + feedback_errors(
                self.feedback, shown, answer
            ):
                errors.setdefault(path.split("[")[0], []).append(f"{path}: {message}")
        for key, message in tolerance_problems(  # bounded, as everywhere they are written
            rtol=self.rtol, atol=self.atol, digits=self.digits, answer=answer
        ).items():
            errors.setdefault(key, []).append(message)
        if errors:
            raise ValidationError(errors)


class Solution(models.Model):
    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="solution")
    steps = LFTextField(blank=True, validators=[validate_markdown])
    answer = models.JSONField(
        null=True,
        blank=True,
        help_text="Scalar, list, nested lists, or a mapping (JSON). Empty: no answer yet, a "
        "draft that counts for nothing (`domain.drafts`).",
    )
    published = models.BooleanField(default=False)
    fingerprint = models.CharField(
        max_length=64,
        editable=False,
        help_text="Of what the problem and this answer now say: a verdict counts for it only.",
    )

    def __str__(self) -> str:
        return f"solution to {self.problem}"

    def clean(self) -> None:
        if nul_paths(self.answer):
            raise ValidationError({"answer": "contains a NUL character (\\0)"})
        errors: dict[str, list[str]] = {}
        if found := draft_errors(answer=self.answer, published=self.published):
            errors["published"] = found
        if self.answer is None:  # a draft: no answer to check
            pass
        elif found := answer_problems(self.answer):
            errors["answer"] = found
        elif self.problem.digits is None:
            loose = tolerance_problems(
                rtol=self.problem.rtol, atol=self.problem.atol, answer=self.answer
            )
            if message := loose.get("atol"):
                errors["answer"] = [f"the problem's atol is too wide for it: {message}"]
        if self.problem_id is not None and (
            found := placeholder_errors(
                self.steps, operation=self.problem.operation, inputs=self.problem.inputs
            )
            + claim_name_errors(
                self.steps,
                self.problem.names(),
                every_instance=attention.is_generated(self.problem.inputs),
            )
        ):
            errors["steps"] = found
        if errors:
            raise ValidationError(errors)


class Verdict(models.Model):
    """What the engine said of exactly one fingerprint of a solution and its problem."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        VERIFIED = "verified", "verified"
        MISMATCH = "mismatch", "mismatch"
        ERROR = "error", "error"

    solution = models.OneToOneField(Solution, on_delete=models.CASCADE, related_name="verdict")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_status = models.CharField(
        max_length=10,
        choices=Status.choices,
        blank=True,
        db_default="",  # the bulk writers' own SQL leaves it out
        help_text="The status the last decision wrote, kept while a new check is pending: a "
        "decision that writes another one is a `verdict.changed` webhook.",
    )
    fingerprint = models.CharField(max_length=64)
    requested_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    max_abs_error = models.FloatField(null=True, blank=True)
    max_rel_error = models.FloatField(null=True, blank=True)
    engine_value = models.JSONField(null=True, blank=True)
    engine_version = models.CharField(max_length=40, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    message = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Engine runs started for this fingerprint (a killed run counts)."
    )
    warnings = models.JSONField(
        default=list,
        blank=True,
        help_text="What the author should know though the answer counts: a misconception that "
        "gives the right answer at an instance (its feedback is not offered there).",
    )

    class Meta:
        indexes = [models.Index(fields=["status", "requested_at"])]

    def __str__(self) -> str:
        return self.status
