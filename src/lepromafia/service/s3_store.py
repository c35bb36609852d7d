"""Media in an S3-compatible bucket (MinIO, Ceph, AWS): the ``BlobStore`` for several
servers. Selected by ``LEPROMAFIA_MEDIA_S3_BUCKET`` (and ``LEPROMAFIA_MEDIA_S3_ENDPOINT`` for
a non-AWS store); credentials come from the usual AWS environment."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .media import CHUNK, MediaError, MediaErrorCode, is_media_id


class S3BlobStore:
    """Objects ``<prefix><media id>`` (never overwritten) and ``<prefix><media id>.json``."""

    def __init__(self, bucket: str, *, endpoint_url: str | None = None, prefix: str = "media/",
                 client: Any = None) -> None:
        if client is None:
            import boto3  # an optional dependency: only servers that use S3 need it

            client = boto3.client("s3", endpoint_url=endpoint_url)
        self.s3 = client
        self.bucket = bucket
        self.prefix = prefix

    def _key(self, media_id: str, suffix: str = "") -> str:
        if not is_media_id(media_id):
            raise MediaError(MediaErrorCode.NOT_FOUND, media=media_id[:80])
        return f"{self.prefix}{media_id}{suffix}"

    def _head(self, key: str) -> dict[str, Any] | None:
        try:
            head: dict[str, Any] = self.s3.head_object(Bucket=self.bucket, Key=key)
        except self.s3.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return None
            raise
        return head

    def put(self, media_id: str, source: Path) -> None:
        key = self._key(media_id)
        if self._head(key) is None:  # content-addressed: an existing object is the same file
            self.s3.upload_file(str(source), self.bucket, key,
                                ExtraArgs={"ContentType": "application/octet-stream"})

    def exists(self, media_id: str) -> bool:
        return is_media_id(media_id) and self._head(self._key(media_id)) is not None

    def size(self, media_id: str) -> int:
        head = self._head(self._key(media_id))
        if head is None:
            raise MediaError(MediaErrorCode.NOT_FOUND, media=media_id)
        return int(head["ContentLength"])

    def read(self, media_id: str, start: int, end: int) -> Iterator[bytes]:
        body = self.s3.get_object(Bucket=self.bucket, Key=self._key(media_id),
                                  Range=f"bytes={start}-{end}")["Body"]
        while chunk := body.read(CHUNK):
            yield chunk

    def get_meta(self, media_id: str) -> dict[str, Any] | None:
        key = self._key(media_id, ".json")
        if self._head(key) is None:
            return None
        data: dict[str, Any] = json.loads(self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read())
        return data

    def put_meta(self, media_id: str, meta: dict[str, Any]) -> None:
        self.s3.put_object(Bucket=self.bucket, Key=self._key(media_id, ".json"),
                           Body=json.dumps(meta, ensure_ascii=False, sort_keys=True).encode(),
                           ContentType="application/json")

