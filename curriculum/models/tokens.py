"""API tokens: a bearer secret for a staff user, stored only as its SHA-256 digest.

The secret is shown once, when it is issued; afterwards only its prefix identifies it.
A token carries its scopes (every token reads; `write` and `publish` add what they name), never
more than its user's role allows now, and expires (`domain/tokens.py` decides all of this).
"""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What the token is for, e.g. 'CI import'.")
    prefix = models.CharField(
        max_length=16, editable=False, help_text="Shown to tell tokens apart."
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    scopes = models.JSONField(
        default=list, editable=False, help_text="What it may do: read, write, publish."
    )
    expires_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="None: issued before tokens expired."
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"
        permissions = [
            ("manage_apitoken", "See and revoke every user's API tokens"),
            ("issue_any_apitoken", "Issue API tokens for other staff"),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"
