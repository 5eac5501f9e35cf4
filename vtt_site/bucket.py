"""The S3-compatible bucket as the platform uses it (MEDIA_STORAGE=s3; vtt_site/storage.py).

Imported only when the bucket is the default storage, so that the filesystem default never loads boto3.
"""

from __future__ import annotations

from typing import Any

from botocore.config import Config  # type: ignore[import-untyped]
from storages.backends.s3 import S3Storage  # type: ignore[import-untyped]

from vtt_site.storage import is_random_key


class BucketStorage(S3Storage):
    """django-storages' S3 storage with the platform's choices: path-style addresses (SeaweedFS, MinIO),
    no ACL, never an object overwritten, short timeouts and one retry (a store that is down is a 503 in
    seconds, not a request that hangs), and presigned URLs made for the address clients reach
    (`public_endpoint_url`), which may differ from the one the platform's processes reach."""

    is_bucket = True  # vtt_site.storage.in_bucket

    def __init__(
        self, *, timeout: float = 5.0, public_endpoint_url: str | None = None, **options: Any
    ) -> None:
        options.setdefault(
            "client_config",
            Config(
                s3={"addressing_style": "path"},
                signature_version="s3v4",
                connect_timeout=timeout,
                read_timeout=timeout,
                retries={"max_attempts": 2, "mode": "standard"},
            ),
        )
        super().__init__(default_acl=None, file_overwrite=False, querystring_auth=True, **options)
        self.public_endpoint_url = public_endpoint_url or self.endpoint_url
        self._public_client: Any = None

    def url(
        self,
        name: str,
        parameters: dict | None = None,
        expire: int | None = None,
        http_method: str | None = None,
    ) -> str:
        """A presigned GET of the object, valid for `expire` seconds (S3_URL_SECONDS), signed for the
        public endpoint. Signing is local: no request to the store."""
        if self._public_client is None:
            self._public_client = self._create_session().client(
                "s3",
                region_name=self.region_name,
                endpoint_url=self.public_endpoint_url,
                config=self.client_config,
            )
        params = {**(parameters or {}), "Bucket": self.bucket_name, "Key": self._normalize_name(name)}
        return self._public_client.generate_presigned_url(
            "get_object", Params=params, ExpiresIn=expire or self.querystring_expire, HttpMethod=http_method
        )

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        """A random key (vtt_site.storage.random_key) is taken as it is: asking the store whether 128
        random bits are taken would cost every upload a round trip. Any other name as Django does."""
        if is_random_key(name):
            return name
        return super().get_available_name(name, max_length)

    def checksum(self, name: str) -> str:
        """The object's ETag without quotes (the MD5 of its bytes for an object put in one part)."""
        head = self.connection.meta.client.head_object(
            Bucket=self.bucket_name, Key=self._normalize_name(name)
        )
        return str(head["ETag"]).strip('"')
