"""Webhooks in admin: register an endpoint and its events (its secret is shown once), send it
a test event, and read every delivery with its answer; resend one as a new delivery."""

from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from curriculum.domain.webhooks import (
    EndpointRefused,
    webhook_endpoint_check,
    webhook_endpoint_create,
    webhook_ping,
    webhook_resend,
)
from curriculum.models import WebhookDelivery, WebhookEndpoint
from curriculum.models.webhooks import EVENTS


class EndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(choices=EVENTS, widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = WebhookEndpoint
        fields = ("url", "events", "active")

    def clean(self):
        cleaned = super().clean()
        if "url" in cleaned and "events" in cleaned:
            try:
                webhook_endpoint_check(url=cleaned["url"], events=cleaned["events"])
            except EndpointRefused as refused:
                raise forms.ValidationError(str(refused)) from refused
        return cleaned


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ("url", "events_shown", "active", "created_at")
    actions = ["send_test_event"]

    @admin.display(description="events")
    def events_shown(self, endpoint: WebhookEndpoint) -> str:
        """`chapter.published, chapter.withdrawn`, not the stored JSON list."""
        return ", ".join(endpoint.events)

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        endpoint, secret = webhook_endpoint_create(url=obj.url, events=obj.events)
        endpoint.active = obj.active
        endpoint.save(update_fields=["active"])
        obj.pk, request.webhook_secret = endpoint.pk, secret

    def response_add(self, request, obj, post_url_continue=None):
        """The signing secret, once, in this page's body (never a cookie or a cache)."""
        response = TemplateResponse(
            request,
            "admin/curriculum/webhookendpoint/created.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "endpoint": obj,
                "secret": request.webhook_secret,
                "title": "Webhook endpoint registered",
            },
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description="Send a test event (ping)", permissions=["change"])
    def send_test_event(self, request, queryset):
        for endpoint in queryset:
            webhook_ping(endpoint=endpoint)
        messages.success(request, f"Sent a test event to {queryset.count()} endpoint(s).")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "event",
        "endpoint",
        "attempts",
        "status_code",
        "delivered_at",
        "next_attempt_at",
        "created_at",
    )
    list_filter = ("event", ("delivered_at", admin.EmptyFieldListFilter))
    list_select_related = ("endpoint",)
    actions = ["resend"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Resend selected deliveries", permissions=["view"])
    def resend(self, request, queryset):
        for delivery in queryset.select_related("endpoint"):
            webhook_resend(delivery=delivery)
        messages.success(request, f"Resent {queryset.count()} delivery(ies).")
