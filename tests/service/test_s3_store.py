"""Media in an S3-compatible bucket (service/s3_store.py), checked against an in-process S3
(moto): the same library behaviour as the data folder — SOUND-CONF-4 limits, content
addressing, byte ranges for playback, metadata."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from lepromafia.service.media import MediaError, MediaErrorCode, MediaLibrary, MediaLimits
from lepromafia.service.s3_store import S3BlobStore

from . import audio_files as audio
from .test_media import ingest, running_table


@pytest.fixture
def library():
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="lepromafia-media")
        yield MediaLibrary(S3BlobStore("lepromafia-media", client=client), MediaLimits())


def test_a_3_00_recording_is_stored_in_the_bucket_and_a_3_01_one_is_rejected(
        library: MediaLibrary, tmp_path: Path) -> None:
    """SOUND-CONF-4 on the S3 store; the object is content-addressed and served by ranges."""
    state = running_table().game
    ok = ingest(library, state, audio.wav(tmp_path / "ok.wav", 180))
    assert ok.duration_seconds == 180 and library.blobs.exists(ok.media_id)
    original = (tmp_path / "ok.wav").read_bytes()
    assert library.blobs.size(ok.media_id) == len(original)
    assert b"".join(library.blobs.read(ok.media_id, 10, 99)) == original[10:100]
    assert library.info(ok.media_id) == ok  # metadata round-trips through the bucket
    again = ingest(library, state, audio.wav(tmp_path / "again.wav", 180))
    assert again.media_id == ok.media_id  # the same bytes are one object
    with pytest.raises(MediaError) as err:
        ingest(library, state, audio.wav(tmp_path / "long.wav", 181))
    assert err.value.code is MediaErrorCode.TOO_LONG
    assert not library.blobs.exists("0" * 64)
