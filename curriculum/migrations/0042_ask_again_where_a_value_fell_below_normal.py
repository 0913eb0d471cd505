from django.db import migrations

PENDING = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}
MEASURED: dict[str, object] = {
    "max_abs_error": None,
    "max_rel_error": None,
    "duration_ms": None,
    "warnings": [],
}
SMALLEST = 2.2250738585072014e-308  # float64's smallest normal number (attention.tiny)
GELU = ("feed_forward", "transformer_block")  # the operations with a GELU (their default)


def _zero_or_below_normal(value) -> bool:
    """Whether an engine value (numbers, lists of them, or named ones) holds a 0 or a nonzero
    number smaller than SMALLEST in size: where engine 1.4.3 may have held float64's 0 or
    subnormal for a value below the normal range."""
    if isinstance(value, dict):
        return any(map(_zero_or_below_normal, value.values()))
    if isinstance(value, list):
        return any(map(_zero_or_below_normal, value))
    return isinstance(value, float | int) and not isinstance(value, bool) and abs(value) < SMALLEST


def ask_again(apps, schema_editor):
    """Engine 1.4.4 refuses a value below float64's normal range, as it refuses such an input
    or answer: 1.4.3 held float64's own 0 or subnormal there (the softmax of [-800, 0] as
    [0, 1], verified; of [-720, 0] as [2.03e-313, 1], which no answer may write). Decided
    verdicts whose stored engine value holds a 0 or such a number go back to pending
    (fingerprint, requested_at and decided_status kept: the sweep sends them), as do those of
    problems whose operation has a GELU; any other was decided as 1.4.4 decides it."""
    Verdict = apps.get_model("curriculum", "Verdict")
    rows = Verdict.objects.exclude(status="pending").exclude(engine_value__isnull=True)
    found = rows.only("pk", "engine_value").iterator(chunk_size=2000)
    again = [v.pk for v in found if _zero_or_below_normal(v.engine_value)]
    # and 1.4.4 computes GELU without cancelling (erfc; the logistic form of 1 + tanh): 1.4.3
    # gave 0 for -7.6e-23 at -10, and verified 0
    decided = Verdict.objects.exclude(status="pending")
    again += decided.filter(solution__problem__operation__in=GELU).values_list("pk", flat=True)
    Verdict.objects.filter(pk__in=again).update(
        **PENDING, engine_value=None, attempts=0, **MEASURED
    )
    # a claim's engine call is no longer refused when a step of it underflows (rms_norm squares
    # 1e151 on its way to 1): only its value is, where it is held
    ClaimVerdict = apps.get_model("curriculum", "ClaimVerdict")
    refused = ClaimVerdict.objects.filter(status="error", message__contains="underflows")
    refused.update(**PENDING, engine_value=None, attempts=0)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0041_schedule_unreleased"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
