"""Webhooks in admin: an endpoint registered shows its secret once; a bad URL, or one that
reaches inside, is refused with its field; the delivery log lists a test event."""

from django.test import Client

from curriculum.models import WebhookDelivery, WebhookEndpoint


def test_staff_register_an_endpoint_see_its_secret_once_and_ping_it(
    admin_client: Client, django_capture_on_commit_callbacks
):
    added = admin_client.post(
        "/admin/curriculum/webhookendpoint/add/",
        {"url": "https://93.184.215.14/hook", "events": ["chapter.published"], "active": "on"},
    )
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.secret in added.content.decode() and "not shown again" in added.content.decode()
    page = admin_client.get(f"/admin/curriculum/webhookendpoint/{endpoint.pk}/change/")
    assert endpoint.secret not in page.content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        admin_client.post(
            "/admin/curriculum/webhookendpoint/",
            {"action": "send_test_event", "_selected_action": [endpoint.pk]},
        )
    assert WebhookDelivery.objects.get().event == "ping"
    log = admin_client.get("/admin/curriculum/webhookdelivery/")
    assert "ping" in log.content.decode()


def test_an_endpoint_that_is_not_http_is_refused_with_its_field(admin_client: Client):
    refused = admin_client.post(
        "/admin/curriculum/webhookendpoint/add/",
        {"url": "ftp://mirror.example.org/hook", "events": ["chapter.published"]},
    )
    assert refused.status_code == 200 and not WebhookEndpoint.objects.exists()
    assert "Enter a valid URL" in refused.content.decode() or "url:" in refused.content.decode()


def test_an_endpoint_on_an_internal_address_is_refused_unless_allowed(admin_client, settings):
    form = {"url": "http://169.254.169.254/latest/meta-data/", "events": ["chapter.published"]}
    refused = admin_client.post("/admin/curriculum/webhookendpoint/add/", form)
    assert refused.status_code == 200 and not WebhookEndpoint.objects.exists()
    assert "169.254.169.254 (link-local)" in refused.content.decode()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["169.254.169.254"]
    admin_client.post("/admin/curriculum/webhookendpoint/add/", form)
    assert WebhookEndpoint.objects.get().url == form["url"]


def test_an_endpoints_events_read_as_words_in_the_list_and_are_ticked_on_its_page(
    admin_client: Client,
):
    events = ["chapter.published", "chapter.withdrawn"]
    endpoint = WebhookEndpoint.objects.create(url="https://93.184.215.14/hook", events=events)
    listing = admin_client.get("/admin/curriculum/webhookendpoint/").content.decode()
    assert "chapter.published, chapter.withdrawn" in listing and "[&quot;" not in listing
    page = admin_client.get(f"/admin/curriculum/webhookendpoint/{endpoint.pk}/change/")
    ticked = page.content.decode().count("checked")
    assert ticked >= 2 and "[&quot;chapter" not in page.content.decode()
