"""Webhooks in admin: an endpoint registered shows its secret once; a bad URL is refused with
its field; the delivery log lists a test event."""

from django.test import Client

from curriculum.models import WebhookDelivery, WebhookEndpoint


def test_staff_register_an_endpoint_see_its_secret_once_and_ping_it(
    admin_client: Client, django_capture_on_commit_callbacks
):
    added = admin_client.post(
        "/admin/curriculum/webhookendpoint/add/",
        {"url": "https://mirror.example.org/hook", "events": ["chapter.published"], "active": "on"},
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
