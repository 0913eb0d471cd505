"""/operations/: the reference authors read, generated from the registry, linked from every page."""

import re

import pytest
from django.test import Client
from django.urls import reverse

import attention
from curriculum.domain.answers import answer_figures, answer_lint, default_digits
from curriculum.domain.chapter_files.yaml_form import load_yaml
from curriculum.domain.operations import operations_reference
from curriculum.domain.placeholders import SHOWN_DIGITS


@pytest.fixture
def page(db):
    response = Client().get("/operations/")
    assert response.status_code == 200
    return response.content.decode()


def test_every_registered_operation_has_a_section_with_its_inputs_outputs_and_example(page):
    for name, operation in attention.OPERATIONS.items():
        section = page.split(f'<section class="operation" id="{name}"', 1)[1].split("</section>")[0]
        for param in operation.parameters:
            assert f"<code>{param.name}</code>" in section
        for output in operation.outputs:
            assert f"<code>{output}</code>" in section
        assert f"operation: {name}" in section


def test_each_example_on_the_page_is_a_problem_an_author_can_paste_and_it_verifies():
    """At the tolerance a file without one gets (the figures the answer is written to), and
    written as an author writes it: no 16-digit answer copied from the engine."""
    for doc in operations_reference():
        problem = load_yaml(doc.example.source)  # as the importer reads a chapter file
        answer = problem["solution"]["answer"]
        value = attention.evaluate(problem["operation"], problem["inputs"], problem["ask"])
        assert attention.compare(value, answer, digits=default_digits(answer)).ok, doc.name
        assert max(answer_figures(answer).values(), default=0) <= SHOWN_DIGITS, doc.name
        assert answer_lint(answer=answer, digits=default_digits(answer), rtol=0, atol=0) == []


def test_selectors_shown_are_the_ones_ask_accepts():
    docs = {d.name: d for d in operations_reference()}
    weights = next(o for o in docs["multi_head_attention"].outputs if o.name == "weights")
    assert weights.selectors == ("head", "row", "col")
    loss = next(o for o in docs["cross_entropy"].outputs if o.name == "loss")
    assert loss.selectors == ()


def test_the_footer_of_every_page_links_to_the_reference(db):
    home = Client().get("/").content.decode()
    assert f'href="{reverse("site:operations")}"' in home


def test_the_api_lists_the_same_reference(db):
    response = Client().get("/api/v1/operations")
    assert response.status_code == 200
    page = response.json()
    body = page["items"]  # paged as every list is; one page holds them all
    assert [op["name"] for op in body] == list(attention.OPERATIONS)
    assert (page["count"], page["next"]) == (len(attention.OPERATIONS), None)
    gqa = next(op for op in body if op["name"] == "grouped_query_attention")
    assert [p["name"] for p in gqa["inputs"]][:7] == [
        "x",
        "w_q",
        "w_k",
        "w_v",
        "w_o",
        "heads",
        "kv_heads",
    ]
    assert attention.compare(gqa["example"]["value"], gqa["example"]["answer"], digits=4).ok
    ffn = next(op for op in body if op["name"] == "feed_forward")
    assert next(p for p in ffn["inputs"] if p["name"] == "activation")["choices"] == [
        "gelu",
        "relu",
        "gelu_tanh",
    ]


def test_the_problem_form_in_admin_links_each_operation_to_the_reference(db, client, alice):
    client.force_login(alice)
    html = client.get(reverse("admin:curriculum_problem_add")).content.decode()
    for name in attention.OPERATIONS:
        assert re.search(rf'href="/operations/#{name}"[^>]*><code>{name}</code>', html)
