"""The media library: raster images authors upload in admin and texts show as
`![alt](media:name)`, stored in the database (the truth, backed up with the course) and served
from the site's own origin by `site.media`."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from curriculum.domain.markup.rules import MEDIA_NAME


class MediaFile(models.Model):
    name = models.CharField(
        max_length=80,
        unique=True,
        validators=[
            RegexValidator(
                rf"\A{MEDIA_NAME.pattern}\Z",
                "lower-case letters and digits, joined by single dots, dashes or underscores",
            )
        ],
        help_text="How texts name it: ![alt text](media:NAME), e.g. attention-heads.png.",
    )
    alt = models.CharField(
        "alt text",
        max_length=300,
        help_text="What the image shows, for readers who cannot see it; texts write their own.",
    )
    content_type = models.CharField(max_length=20, editable=False)
    width = models.PositiveIntegerField(editable=False)
    height = models.PositiveIntegerField(editable=False)
    data = models.BinaryField(editable=False)
    digest = models.CharField(max_length=64, editable=False)  # SHA-256: the served ETag
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, editable=False
    )
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "media file"

    def __str__(self) -> str:
        return self.name
