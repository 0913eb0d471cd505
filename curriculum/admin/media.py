"""The media library in admin: Authors and Editors upload raster images (type, size and
dimensions checked from the file's content by `domain.media`, who may by its actions) that texts
show as `![alt](media:name)`."""

from django import forms
from django.conf import settings
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from curriculum.domain.media import MediaDelete, MediaSave, UploadRefused, stored
from curriculum.models import MediaFile


class MediaFileForm(forms.ModelForm):
    upload = forms.FileField(
        required=False,
        help_text="A PNG, JPEG, GIF or WebP image (no SVG: drawings belong in figures).",
    )

    class Meta:
        model = MediaFile
        fields = ("name", "alt")

    def clean_upload(self):
        upload = self.cleaned_data.get("upload")
        if upload is None:
            if self.instance.pk is None:
                raise forms.ValidationError("Choose the image to upload.")
            return None
        if upload.size > settings.LIMIT_MEDIA_BYTES:  # refused before it is read
            raise forms.ValidationError(
                f"The file is {upload.size:,} bytes; at most {settings.LIMIT_MEDIA_BYTES:,} "
                "(LIMIT_MEDIA_BYTES)."
            )
        data = upload.read()
        try:
            stored(self.instance, data)
        except UploadRefused as refusal:
            raise forms.ValidationError(f"The file {refusal}.") from refusal
        return data


@admin.register(MediaFile)
class MediaFileAdmin(admin.ModelAdmin):
    form = MediaFileForm
    list_display = ("name", "alt", "content_type", "width", "height", "uploaded_at")
    search_fields = ("name", "alt")
    readonly_fields = ("written", "preview", "content_type", "width", "height", "uploaded_by")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("name", "alt", "upload")
        return ("name", "alt", "upload", *self.readonly_fields)

    @admin.display(description="In a text")
    def written(self, obj: MediaFile) -> str:
        return format_html("<code>![{}](media:{})</code>", obj.alt, obj.name)

    @admin.display(description="Image")
    def preview(self, obj: MediaFile) -> str:
        src = reverse("site:media", kwargs={"name": obj.name})
        return format_html('<img src="{}" alt="{}" width="320">', src, obj.alt)

    def save_model(self, request, obj, form, change):
        MediaSave(media=obj, user=request.user).execute()

    def delete_model(self, request, obj):
        MediaDelete(media=obj, user=request.user).execute()

    def delete_queryset(self, request, queryset):
        for media in queryset.order_by("pk"):
            MediaDelete(media=media, user=request.user).execute()
