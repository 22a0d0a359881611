"""Where stored files live: the file system under the var folder (the embedded default), or an S3 bucket.

Run uploads and their conversions, corpus texts, guides (the ``default`` storage) and gold (the ``gold``
storage, kept apart) all go through Django's storage API, so the choice is this one setting. With
``PARSEVAL_STORAGE=s3`` every web process and worker reads and writes the same bucket, and machines share
nothing but the database, the broker and the store (docs/deployment.md, "Object storage").

Objects are private: the bucket is never public, nothing asks for a public ACL, and the app never hands a
storage URL to anyone. Every download goes through a view that checks permissions and streams the file
from the store. Query-string signing stays on with a short expiry, so that a URL made by mistake is
signed and dies within minutes instead of naming an object anyone could fetch.

Built from the environment by a plain function (:func:`storages_from_env`), so the settings, the worker
processes the tests start and the tests themselves build the same configuration from the same names.
"""
from __future__ import annotations

from typing import Mapping

FILESYSTEM, S3 = "filesystem", "s3"
STATICFILES = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
# Above this an S3 file being read spools to a temporary file instead of memory (django-storages keeps the
# whole object in memory by default; a run may be 200 MiB).
SPOOL_BYTES = 8 * 1024 * 1024
SIGNED_URL_SECONDS = 300


def storages_from_env(env: Mapping[str, str]) -> dict:
    """The ``STORAGES`` setting for the environment ``env``; ``ValueError`` names what is missing or wrong."""
    kind = (env.get("PARSEVAL_STORAGE") or FILESYSTEM).strip().lower()
    if kind == FILESYSTEM:
        return {
            # MEDIA_ROOT and GOLD_ROOT, read when the storage is built (the tests move them)
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "gold": {"BACKEND": "annotations.models.GoldFileSystemStorage"},
            "staticfiles": STATICFILES,
        }
    if kind != S3:
        raise ValueError(f"PARSEVAL_STORAGE={kind!r}: expected {FILESYSTEM!r} (the default) or {S3!r}")
    bucket = (env.get("PARSEVAL_S3_BUCKET") or "").strip()
    if not bucket:
        raise ValueError("PARSEVAL_STORAGE=s3 needs PARSEVAL_S3_BUCKET (the bucket of the stored files)")
    common = {
        "default_acl": None,  # the bucket's own (private) policy; never public-read
        "querystring_auth": True,
        "querystring_expire": SIGNED_URL_SECONDS,
        # Names are chosen by the app (checksums, document names); an existing one gets a suffix, as on disk.
        "file_overwrite": False,
        "max_memory_size": SPOOL_BYTES,
        "signature_version": "s3v4",
    }
    endpoint = (env.get("PARSEVAL_S3_ENDPOINT_URL") or "").strip()
    if endpoint:
        common["endpoint_url"] = endpoint
    region = (env.get("PARSEVAL_S3_REGION") or "").strip()
    if region:
        common["region_name"] = region
    # Self-hosted stores (SeaweedFS, Ceph, Garage) answer at path-style addresses; AWS picks its own.
    common["addressing_style"] = (env.get("PARSEVAL_S3_ADDRESSING_STYLE") or ("path" if endpoint else "auto")).strip()
    key, secret = env.get("PARSEVAL_S3_ACCESS_KEY_ID") or "", env.get("PARSEVAL_S3_SECRET_ACCESS_KEY") or ""
    if bool(key) != bool(secret):
        raise ValueError("give both PARSEVAL_S3_ACCESS_KEY_ID and PARSEVAL_S3_SECRET_ACCESS_KEY, or neither "
                         "(then boto3 finds credentials itself: AWS_ACCESS_KEY_ID, an instance role)")
    if key:
        common.update(access_key=key, secret_key=secret)
    gold_bucket = (env.get("PARSEVAL_S3_GOLD_BUCKET") or "").strip() or bucket
    backend = "storages.backends.s3.S3Storage"
    return {
        "default": {"BACKEND": backend, "OPTIONS": {**common, "bucket_name": bucket, "location": "media"}},
        "gold": {"BACKEND": backend, "OPTIONS": {**common, "bucket_name": gold_bucket, "location": "gold"}},
        "staticfiles": STATICFILES,
    }


def store_faults() -> tuple[type[BaseException], ...]:
    """The object store's errors (unreachable, timing out, refusing a request): faults of the system, which the
    worker retries and the web answers with 503, as it does a file system's ``OSError``."""
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # no S3 client installed: no such errors either
        return ()
    return (BotoCoreError, ClientError)
