"""Webhooks: endpoints staff register for course events, and every delivery made to them.

An endpoint's secret signs each delivery (HMAC-SHA256), so it is kept as given, not digested;
admin shows it once, when the endpoint is made.
"""

from django.db import models

EVENTS = (
    ("chapter.published", "chapter.published: a release was made, or shown again"),
    ("chapter.withdrawn", "chapter.withdrawn: readers no longer see the chapter"),
    ("verdict.changed", "verdict.changed: a decision changed a solution's verdict status"),
)


class WebhookEndpoint(models.Model):
    url = models.URLField(
        max_length=500, help_text="Where deliveries are POSTed (http or https), by the worker."
    )
    events = models.JSONField(default=list, help_text="The events sent to this endpoint.")
    secret = models.CharField(max_length=64, editable=False)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["url"]
        verbose_name = "webhook endpoint"

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.CharField(max_length=40)
    payload = models.JSONField()
    attempts = models.PositiveIntegerField(default=0)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["delivered_at", "next_attempt_at"])]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint_id} (#{self.pk})"
