"""A compare names exactly the paths that changed, as an author knows them."""

import copy

from curriculum.domain.revision_changes import document_changes
from tests.conftest import problem, sketch


def changed(before: dict, after: dict) -> dict[str, tuple[str, str, str]]:
    return {c.path: (c.kind, c.before, c.after) for c in document_changes(before, after).shown}


def test_only_the_changed_paths_are_listed():
    before = sketch()
    after = copy.deepcopy(before)
    after["title"] = "Another"
    after["strands"]["basics"]["items"][0]["body"] = "<b>Means</b> more."
    after["problems"][2]["solution"]["answer"] = [[0.25, 0.75]]
    assert changed(before, after) == {
        "title": ("changed", "A Sketch", "Another"),
        "strands.basics.items[0].body": ("changed", "Means.", "<b>Means</b> more."),
        "problems[p3].solution.answer": ("changed", "[[0.5, 0.5]]", "[[0.25, 0.75]]"),
    }


def test_problems_added_removed_and_moved_are_named_by_key():
    before = sketch()
    after = sketch(problems=[problem("p3"), problem("p1", "worked"), problem("p4")])
    found = changed(before, after)
    assert found.keys() == {"problems[p2]", "problems[p4]", "problems (order)"}
    assert found["problems[p2]"][0] == "removed" and found["problems[p4]"][0] == "added"
    assert found["problems (order)"][1:] == ('["p1", "p3"]', '["p3", "p1"]')


def test_a_part_added_to_an_empty_list_is_named_by_position():
    after = sketch(notation=[{"symbol": "$d_k$", "meaning": "key width"}])
    assert changed(sketch(), after) == {
        "notation[0]": ("added", "", '{"symbol": "$d_k$", "meaning": "key width"}')
    }


def test_a_long_value_and_many_changes_are_cut_to_the_limits(settings):
    settings.LIMIT_REVISION_VALUE_CHARS, settings.LIMIT_REVISION_CHANGES_SHOWN = 10, 2
    changes = document_changes(sketch(), sketch(title="x" * 25, thesis="Other.", summary="Other."))
    assert changes.total == 3 and changes.left_out == 1
    assert changes.shown[0].after == "xxxxxxxxxx… (15 more characters)"
