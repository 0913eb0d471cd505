"""Staff upload images to the media library in admin; a text in admin may show only those.
Authors and Editors upload and change them; only Editors delete one."""

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from curriculum.domain.media import MediaDelete, MediaSave, stored
from curriculum.domain.roles import Forbidden
from curriculum.models import Chapter, MediaFile
from tests.conftest import png
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors

ADD = "admin:curriculum_mediafile_add"


def upload(client, name: str, data: bytes, *, alt: str = "two heads"):
    return client.post(
        reverse(ADD),
        {"name": name, "alt": alt, "upload": SimpleUploadedFile("any.png", data, "image/png")},
    )


def test_staff_upload_an_image_and_see_how_a_text_shows_it(client, root):
    client.force_login(root)
    page = upload(client, "heads.png", png(3, 2))
    assert page.status_code == 302, shown_errors(page)
    media = MediaFile.objects.get(name="heads.png")
    assert (media.content_type, media.width, media.height, media.uploaded_by) == (
        "image/png",
        3,
        2,
        root,
    )
    change = client.get(reverse("admin:curriculum_mediafile_change", args=[media.pk]))
    assert "![two heads](media:heads.png)" in change.content.decode()


def test_svg_a_renamed_script_and_an_empty_alt_are_refused_and_nothing_stored(client, root):
    client.force_login(root)
    svg = upload(client, "drawing.png", b'<svg xmlns="http://www.w3.org/2000/svg"/>')
    assert "is SVG, which the library does not take" in shown_errors(svg)
    script = upload(client, "script.png", b"<script>alert(1)</script>")
    assert "is not a PNG, JPEG, GIF or WebP image" in shown_errors(script)
    no_alt = upload(client, "heads.png", png(), alt="")
    assert "This field is required" in shown_errors(no_alt)
    bad_name = upload(client, "Heads Big.png", png())
    assert "lower-case letters and digits" in shown_errors(bad_name)
    assert not MediaFile.objects.exists()


def test_the_size_limit_is_named_before_the_file_is_read(client, root, settings):
    settings.LIMIT_MEDIA_BYTES = 50
    client.force_login(root)
    page = upload(client, "heads.png", png(20, 20))
    assert "at most 50 (LIMIT_MEDIA_BYTES)" in shown_errors(page)


def test_a_chapter_text_with_an_outside_image_or_unknown_media_is_refused_in_admin(
    seeded, client, alice, heads
):
    chapter = Chapter.objects.get(code="II.4")
    client.force_login(alice)
    data = resubmitted(client.get(change_url(chapter)))
    data["summary"] = "See ![a cat](https://example.org/a.png) and ![x](media:tails.png)."
    page = client.post(change_url(chapter), data)
    errors = shown_errors(page)
    assert page.status_code == 200
    assert "image `https://example.org/a.png` is not in the media library" in errors
    assert "image media:tails.png names nothing in the media library" in errors
    data["summary"] = "See ![two heads](media:heads.png)."
    page = client.post(change_url(chapter), data)
    assert page.status_code == 302, shown_errors(page)


def test_an_author_uploads_changes_and_picks_images_but_only_an_editor_deletes_one(
    client, alice, erin
):
    client.force_login(alice)
    assert client.get(reverse("admin:curriculum_mediafile_changelist")).status_code == 200
    page = upload(client, "heads.png", png(3, 2))
    assert page.status_code == 302, shown_errors(page)
    media = MediaFile.objects.get(name="heads.png")
    assert media.uploaded_by == alice
    change = reverse("admin:curriculum_mediafile_change", args=[media.pk])
    page = client.post(change, {"name": "heads.png", "alt": "", "upload": ""})
    assert "This field is required" in shown_errors(page)  # alt text, as on upload
    page = client.post(change, {"name": "heads.png", "alt": "two heads, side by side"})
    assert page.status_code == 302, shown_errors(page)
    assert "![two heads, side by side](media:heads.png)" in client.get(change).content.decode()
    delete = reverse("admin:curriculum_mediafile_delete", args=[media.pk])
    assert client.get(delete).status_code == 403
    with pytest.raises(Forbidden, match="only Editors delete media files"):
        MediaDelete(media=media, user=alice).execute()  # whoever calls it, not only admin
    client.force_login(erin)
    assert client.post(delete, {"post": "yes"}).status_code == 302
    assert not MediaFile.objects.exists()


def test_staff_without_a_role_may_not_upload(client, db):
    nobody = User.objects.create_user("nobody", is_staff=True)
    client.force_login(nobody)
    assert upload(client, "heads.png", png()).status_code == 403
    with pytest.raises(Forbidden, match="it needs add_mediafile"):
        MediaSave(media=stored(MediaFile(name="heads.png", alt="x"), png()), user=nobody).execute()
    assert not MediaFile.objects.exists()
