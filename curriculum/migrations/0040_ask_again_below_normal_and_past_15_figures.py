import re

from django.db import migrations

PENDING = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}
MEASURED: dict[str, object] = {
    "max_abs_error": None,
    "max_rel_error": None,
    "duration_ms": None,
    "warnings": [],
}
SMALLEST = 2.2250738585072014e-308  # float64's smallest normal number (attention.tiny)


def _below_normal(value) -> bool:
    """Whether an answer (numbers, lists of them, or named ones; a few levels deep) holds a
    nonzero number smaller than SMALLEST in size."""
    if isinstance(value, dict):
        return any(map(_below_normal, value.values()))
    if isinstance(value, list):
        return any(map(_below_normal, value))
    return isinstance(value, float) and 0 < abs(value) < SMALLEST


NUMBER = re.compile(r"[-\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _past_15_figures(typed: str) -> bool:
    """Whether a claim types a number to more than the 15 significant figures a comparison
    reads (claims/pattern.py's figures_of, as it stood)."""
    for number in NUMBER.findall(typed):
        mantissa = re.split("[eE]", number.lstrip("-\u2212"))[0]
        digits = mantissa.replace(".", "").lstrip("0")
        if len(digits if "." in mantissa else digits.rstrip("0")) > 15:
            return True
    return False


def ask_again(apps, schema_editor):
    """Engine 1.4.3 refuses an answer holding a number below float64's normal range, as it
    refuses such an input: float64 keeps too few of its figures (2.28705e-320 is held as
    2.287e-320), and 1.4.2 verified answers there that were wrong in their sixth figure, at a
    tolerance of six. The verdicts of such answers, whichever engine decided them, go back to
    pending (fingerprint, requested_at and decided_status kept: the sweep sends them), as do
    verified claims typing a number past 15 significant figures, now held to float64's value;
    every other verdict stands, decided as 1.4.3 would decide it."""
    Verdict = apps.get_model("curriculum", "Verdict")
    rows = Verdict.objects.exclude(status="pending").select_related("solution")
    answers = rows.only("pk", "solution__answer").iterator(chunk_size=2000)
    tiny = [v.pk for v in answers if _below_normal(v.solution.answer)]
    Verdict.objects.filter(pk__in=tiny).update(**PENDING, engine_value=None, attempts=0, **MEASURED)
    # and a claim typed past 15 figures is held to float64's value, not to 15 figures alone
    # (1.414213562373099 = sqrt(2), wrong in its 16th, had been verified)
    ClaimVerdict = apps.get_model("curriculum", "ClaimVerdict")
    claims = ClaimVerdict.objects.filter(kind="claim", status="verified").only("pk", "spec")
    typed = [c.pk for c in claims.iterator(chunk_size=2000) if _past_15_figures(c.spec["typed"])]
    ClaimVerdict.objects.filter(pk__in=typed).update(**PENDING, engine_value=None, attempts=0)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0039_chapter_references"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
