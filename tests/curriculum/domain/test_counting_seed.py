"""The seed chapter counts exactly as the seed page says."""

from django.core.management import call_command

from curriculum.domain.counting import chapter_counts
from curriculum.domain.selectors import chapter_with_parts

SEED_STRANDS = [
    ("basics", 2, 11),
    ("concept", 2, 2),
    ("theory", 0, 4),
    ("mathematics", 0, 15),
    ("practice", 0, 9),
]


def test_ii4_counts_as_the_seed_page(seeded):
    counts = chapter_counts(chapter_with_parts(code="II.4"))
    assert counts.level.label == "M3 Load-bearing"
    assert [(s.kind, s.done, s.target) for s in counts.strands] == SEED_STRANDS
    assert (counts.worked, counts.variants, counts.exercises) == (0, 0, 0)
    assert counts.owes == 15
    assert counts.debt_sentence == (
        "Not yet written. At M3 this chapter owes 5 worked problems across 4 distinct "
        "variants, and 10 exercises, every one with a published solution."
    )


def test_export_of_ii4_carries_the_seed_targets(seeded, capsys):
    call_command("export_chapter", "II.4")
    out = capsys.readouterr().out
    for kind, _, target in SEED_STRANDS:
        assert f"  {kind}:\n    target: {target}\n" in out
    assert "maturity: M3\n" in out and "apparatus:\n- 0.LA.01\n- 0.MC.07\n" in out


def test_ii3_is_fully_solved_and_passes_the_gate_once_verified(seeded):
    from curriculum.domain.gate import publish_reasons
    from tests.conftest import verify_now

    chapter = chapter_with_parts(code="II.3")
    verify_now(chapter)
    chapter = chapter_with_parts(code="II.3")
    assert publish_reasons(chapter) == []
    counts = chapter_counts(chapter)
    assert (counts.worked, counts.exercises, counts.owes) == (3, 6, 0)
