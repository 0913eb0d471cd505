"""The media library's rules: what an upload may be (a PNG, JPEG, GIF or WebP image, known by
its content, within LIMIT_MEDIA_BYTES and LIMIT_MEDIA_SIDE), and which names texts may use.

Types are read from the file's own bytes, never from its name or the browser's word for it;
SVG is refused (a drawing belongs in a figure, whose SVG is sanitised). Who may upload, change
and delete is the roles' table (`roles.py`), decided by the actions here whoever calls them."""

import hashlib
import struct
from dataclasses import dataclass
from typing import ClassVar

from django.conf import settings

from curriculum.models.media import MediaFile

from .actions import Action
from .roles import MEDIA_DELETE_PERMISSION


class UploadRefused(ValueError):
    """An upload the library does not take, with the reason."""


@dataclass(frozen=True)
class Image:
    content_type: str
    width: int
    height: int


def _png(data: bytes) -> Image | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return Image("image/png", width, height)


def _gif(data: bytes) -> Image | None:
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 10:
        return None
    width, height = struct.unpack("<HH", data[6:10])
    return Image("image/gif", width, height)


def _webp(data: bytes) -> Image | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP" or len(data) < 30:
        return None
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return Image("image/webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return Image("image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        return Image("image/webp", width, int.from_bytes(data[27:30], "little") + 1)
    return None


FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
"""JPEG start-of-frame markers: the one that states the image's size."""


def _jpeg(data: bytes) -> Image | None:
    if data[:3] != b"\xff\xd8\xff":
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in FRAMES:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return Image("image/jpeg", width, height)
        if length < 2:
            return None
        at += 2 + length
    return None


def image_of(data: bytes) -> Image:
    """The image the bytes are, or UploadRefused saying why not."""
    limit = settings.LIMIT_MEDIA_BYTES
    if len(data) > limit:
        raise UploadRefused(f"is {len(data):,} bytes; at most {limit:,} (LIMIT_MEDIA_BYTES)")
    head = data[:1024].lstrip().lower()
    if head.startswith((b"<?xml", b"<svg", b"<!doctype svg")) or b"<svg" in head:
        raise UploadRefused(
            "is SVG, which the library does not take: a drawing belongs in a figure, whose SVG "
            "is sanitised"
        )
    for reader in (_png, _jpeg, _gif, _webp):
        if (image := reader(data)) is not None:
            break
    else:
        raise UploadRefused("is not a PNG, JPEG, GIF or WebP image (read from its content)")
    side = settings.LIMIT_MEDIA_SIDE
    if not (0 < image.width <= side and 0 < image.height <= side):
        raise UploadRefused(
            f"is {image.width}×{image.height} pixels; each side at most {side:,} (LIMIT_MEDIA_SIDE)"
        )
    return image


def stored(media: MediaFile, data: bytes) -> MediaFile:
    """The media file holding the upload (UploadRefused if it may not), not yet saved."""
    image = image_of(data)
    media.content_type, media.width, media.height = image.content_type, image.width, image.height
    media.data = data
    media.digest = hashlib.sha256(data).hexdigest()
    return media


def unknown_media(names: set[str]) -> set[str]:
    """The names no media file has."""
    if not names:
        return set()
    return names - set(MediaFile.objects.filter(name__in=names).values_list("name", flat=True))


def media_digest(name: str) -> str | None:
    """The stored file's SHA-256, None if the library has no such name."""
    return MediaFile.objects.filter(name=name).values_list("digest", flat=True).first()


def media_file(name: str) -> MediaFile | None:
    return MediaFile.objects.filter(name=name).only("content_type", "data", "digest").first()


@dataclass(kw_only=True)
class MediaSave(Action):
    """An upload, or a change of a file's name, alt text or image, recorded as its user's."""

    media: MediaFile

    def permissions(self) -> list[str]:
        return [f"curriculum.{'change' if self.media.pk else 'add'}_mediafile"]

    def run(self) -> MediaFile:
        self.media.uploaded_by = self.user
        self.media.full_clean()
        self.media.save()
        return self.media


@dataclass(kw_only=True)
class MediaDelete(Action):
    media: MediaFile
    needs: ClassVar[tuple[str, ...]] = (MEDIA_DELETE_PERMISSION,)
    denied: ClassVar[str | None] = "only Editors delete media files: a text may still show it"

    def run(self) -> None:
        self.media.delete()
