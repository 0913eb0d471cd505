"""What readers send back about an exercise, in admin: their reports as a queue, and beside each
problem its open reports and its practice statistics (counts, naming no reader)."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from curriculum.domain.attempts import problem_statistics
from curriculum.domain.problem_reports import reports_open
from curriculum.models import ProblemReport


@admin.register(ProblemReport)
class ProblemReportAdmin(admin.ModelAdmin):
    list_display = ["at", "chapter_code", "problem_key", "release", "instance", "status", "message"]
    list_filter = ["status", "chapter_code"]
    search_fields = ["chapter_code", "problem_key", "message"]
    readonly_fields = [
        "chapter_code",
        "problem_key",
        "release",
        "instance",
        "answer",
        "message",
        "reporter",
        "at",
    ]
    fields = [*readonly_fields, "status"]
    actions = ["resolve"]

    def has_add_permission(self, request) -> bool:
        return False  # readers file reports, from the practice page

    @admin.action(description="Mark the selected reports resolved")
    def resolve(self, request, queryset):
        done = queryset.update(status=ProblemReport.Status.RESOLVED)
        self.message_user(request, f"{done} report{'s' if done != 1 else ''} resolved.")


def reports_beside(problem) -> str:
    """The problem's open reports, each linked to its page in the queue."""
    if problem.pk is None:
        return "—"
    found = reports_open(code=problem.chapter.code, key=problem.key)
    if not found:
        return "No open reports."
    rows = format_html_join(
        "",
        '<li><a href="{}">{}</a>: instance {}, release {}: {}</li>',
        (
            (
                reverse("admin:curriculum_problemreport_change", args=[r.pk]),
                r.at.strftime("%Y-%m-%d %H:%M"),
                r.instance,
                r.release or "working copy",
                r.message[:200],
            )
            for r in found
        ),
    )
    return format_html("<ul>{}</ul>", rows)


def statistics_beside(problem) -> str:
    """Attempts, the share right and the mistakes seen, for every reader together."""
    if problem.pk is None:
        return "—"
    stats = problem_statistics(code=problem.chapter.code, key=problem.key)
    if not stats.attempts:
        return "No answers checked yet."
    mistakes = format_html_join(", ", "{} ({})", stats.mistakes) if stats.mistakes else "none"
    return format_html(
        "{} answers checked, {} right ({}). Mistakes named: {}.",
        stats.attempts,
        stats.right,
        f"{stats.share_right:.0%}",
        mistakes,
    )
