"""0.MC.07: gradient problems checked by the backward operations; the entry stays publishable."""

from curriculum.domain.gate import chapter_publish, publish_reasons
from curriculum.domain.selectors import chapter_with_parts
from curriculum.models import Chapter, Verdict
from tests.conftest import verify_now


def test_the_chain_rule_entry_has_three_verified_gradient_problems_and_is_released(books):
    chapter = Chapter.objects.get(code="0.MC.07")
    problems = list(chapter.problems.order_by("position"))
    assert [p.operation for p in problems] == [
        "scaled_dot_product_attention_backward",
        "multi_head_attention_backward",
        "scaled_dot_product_attention_backward",
    ]
    assert all(p.kind == "worked" and p.solution.steps for p in problems)

    verify_now(chapter)

    statuses = Verdict.objects.filter(solution__problem__chapter=chapter).values_list(
        "status", flat=True
    )
    assert list(statuses) == ["verified"] * 3
    assert publish_reasons(chapter_with_parts(code="0.MC.07")) == []
    assert chapter_publish(chapter=chapter).number == 1
