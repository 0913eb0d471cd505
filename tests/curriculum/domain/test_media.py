"""The media library takes raster images known by their bytes, within the named limits."""

import struct

import pytest

from curriculum.domain.markup_checks import markup_errors
from curriculum.domain.media import UploadRefused, image_of, stored
from curriculum.models import MediaFile
from tests.conftest import png


def jpeg(width: int = 5, height: int = 4) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    frame = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + frame + b"\xff\xd9"


GIF = (
    b"GIF89a\x07\x00\x06\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
    b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
)
WEBP_LOSSLESS = (
    b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f"
    + ((9 - 1) | ((8 - 1) << 14)).to_bytes(4, "little")
    + b"\x00" * 8
)


@pytest.mark.parametrize(
    ("data", "kind", "size"),
    [
        (png(), "image/png", (3, 2)),
        (jpeg(), "image/jpeg", (5, 4)),
        (GIF, "image/gif", (7, 6)),
        (WEBP_LOSSLESS, "image/webp", (9, 8)),
    ],
)
def test_a_raster_image_is_known_by_its_bytes(data, kind, size):
    image = image_of(data)
    assert (image.content_type, image.width, image.height) == (kind, *size)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "is SVG"),
        (b'  <svg onload="alert(1)"></svg>', "is SVG"),
        (b"<html><script>alert(1)</script></html>", "is not a PNG, JPEG, GIF or WebP"),
        (b"GIF8", "is not a PNG, JPEG, GIF or WebP"),
        (b"", "is not a PNG, JPEG, GIF or WebP"),
        (b"\xff\xd8\xff" + b"\x00" * 20, "is not a PNG, JPEG, GIF or WebP"),
    ],
)
def test_anything_else_is_refused_by_what_it_is(data, said):
    with pytest.raises(UploadRefused, match=said):
        image_of(data)


def test_the_size_and_side_limits_are_named(settings):
    settings.LIMIT_MEDIA_BYTES = 100
    with pytest.raises(UploadRefused, match=r"at most 100 \(LIMIT_MEDIA_BYTES\)"):
        image_of(png(40, 40))
    settings.LIMIT_MEDIA_BYTES = 10**6
    settings.LIMIT_MEDIA_SIDE = 30
    with pytest.raises(
        UploadRefused, match=r"40×2 pixels; each side at most 30 \(LIMIT_MEDIA_SIDE\)"
    ):
        image_of(png(40, 2))
    with pytest.raises(UploadRefused, match="0×2 pixels"):
        image_of(png(0, 2))


def test_a_text_naming_media_the_library_lacks_is_refused_until_it_is_uploaded(db):
    text = "Two heads: ![two heads side by side](media:heads.png)."
    assert markup_errors(text) == [
        "image media:heads.png names nothing in the media library: upload it in admin (Media) first"
    ]
    stored(MediaFile(name="heads.png", alt="two heads"), png()).save()
    assert markup_errors(text) == []


def test_the_heads_fixture_is_in_the_library(heads):
    assert heads.content_type == "image/png" and markup_errors("![x](media:heads.png)") == []
