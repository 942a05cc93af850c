"""A real S3 protocol on 127.0.0.1 for tests and benchmarks: moto's server, a counting (and
fault-injecting) proxy in front of it, and a test broker that issues STS credentials.

Every server binds 127.0.0.1 on a free port; nothing talks to any other address.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"
TEST_KEY = "testing"  # moto accepts any key while IAM enforcement is off
REGION = "us-east-1"

logging.getLogger("werkzeug").setLevel(logging.ERROR)


def use_moto(monkeypatch: Any, endpoint: str, bucket: str, prefix: str, tmp_path: Any) -> None:
    """Point this test's graphit at `bucket`/`prefix` on a moto server, with the test key and
    no AWS setting of the machine's (no credentials file, config file or instance metadata)."""
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    values = {
        "GRAPHIT_PROVIDER": "s3",
        "GRAPHIT_S3_BUCKET": bucket,
        "GRAPHIT_S3_PREFIX": prefix,
        "GRAPHIT_S3_ENDPOINT": endpoint,
        "AWS_ACCESS_KEY_ID": TEST_KEY,
        "AWS_SECRET_ACCESS_KEY": TEST_KEY,
        "AWS_REGION": REGION,
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)


@contextmanager
def refused_endpoint() -> Iterator[str]:
    """An http:// endpoint on 127.0.0.1 that refuses every connection while the block runs.

    The port stays bound (never listening) until the end, so no other server, in this process
    or in another test worker, can take it in the meantime and answer instead."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        yield f"http://{HOST}:{sock.getsockname()[1]}"


_PUT_LOCK = threading.Lock()
_PATCHED = False


def _atomic_conditional_puts() -> None:
    """Make moto's object PUT one step, as S3's is. moto checks `If-None-Match: *` (and
    `If-Match`) and then stores the object, with no lock between: in its threaded server two
    racing conditional PUTs of one key can both succeed, which S3 never allows. lance commits
    every version after the first by such a PUT of its manifest (`If-None-Match: *`, seen on
    the wire), so two writers could both commit one version and one write be lost: a fault of
    the test server's, not of the code under test. Patched once per process."""
    from moto.s3.responses import S3Response

    global _PATCHED
    with _PUT_LOCK:
        if _PATCHED:
            return
        _PATCHED = True
    unlocked = S3Response.put_object

    def put_object(self: Any) -> Any:
        with _PUT_LOCK:
            return unlocked(self)

    S3Response.put_object = put_object


class MotoServer:
    """moto's S3/STS/IAM server in this process, bound to 127.0.0.1."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        _atomic_conditional_puts()

        # Port 0: the kernel picks a free port at bind time, so servers started at once (test
        # workers in parallel) never race for one picked in advance.
        self._server = ThreadedMotoServer(ip_address=HOST, port=0, verbose=False)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]
        self.endpoint = f"http://{HOST}:{self.port}"
        self._enforcing = False

    def client(self, service: str, key: str = TEST_KEY, secret: str = TEST_KEY, **kw: Any) -> Any:
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            aws_access_key_id=key,
            aws_secret_access_key=secret,
            region_name=REGION,
            **kw,
        )

    def enforce_iam(self) -> None:
        """From now on every request needs valid IAM credentials (moto's reset-auth).

        moto keeps this setting per process, for every server in it: `stop` turns it off
        again, so the next test's server (on this worker) accepts the default test keys."""
        self._reset_auth(b"0")
        self._enforcing = True

    def _reset_auth(self, after: bytes) -> None:
        import urllib.request

        request = urllib.request.Request(
            self.endpoint + "/moto-api/reset-auth",
            data=after,
            headers={"Content-Type": "text/plain"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as response:  # a hang bound
            assert response.status == 200

    def stop(self) -> None:
        if self._enforcing:
            self._reset_auth(b"inf")
            self._enforcing = False
        self._server.stop()


def moto_with_bucket(bucket: str) -> Any:
    """A module's moto server with `bucket` made, as a module-scoped fixture (`moto =
    moto_with_bucket("name")` at the module's top): one server per module, stopped with it
    (skipped without moto's server, the dev extra)."""
    import pytest

    @pytest.fixture(scope="module")
    def moto() -> Iterator[MotoServer]:
        pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")
        server = MotoServer()
        server.client("s3").create_bucket(Bucket=bucket)
        yield server
        server.stop()

    return moto


# --- a counting, fault-injecting proxy ----------------------------------------------------

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")
EXPIRED_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ExpiredToken</Code>'
    b"<Message>The provided token has expired.</Message></Error>"
)
_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"}


def operation(method: str, path: str) -> str:
    """S3 operation name for the counters (LIST, GET, HEAD, PUT, DELETE, POST)."""
    if method == "GET" and "list-type=" in path:
        return "LIST"
    return method


class Proxy:
    """HTTP proxy on 127.0.0.1 in front of an S3 endpoint.

    Counts requests per operation, can answer `ExpiredToken` for chosen access keys (after
    a number of their requests), and can be stopped and restarted on the same port to play
    an endpoint that goes down mid-run.
    """

    def __init__(self, upstream_port: int, port: int | None = None) -> None:
        self.upstream_port = upstream_port
        self.port = port or 0  # 0 until the first bind picks a free port (kept on restart)
        self.counts: Counter[str] = Counter()
        # (operation, path, Range header) per request, when set
        self.log: list[tuple[str, str, str]] | None = None
        self._lock = threading.Lock()
        self._expire: dict[str, int] = {}  # access key -> requests still allowed
        self._server: ThreadingHTTPServer | None = None
        self._sockets: set[socket.socket] = set()
        self.start()

    # controls
    def reset_counts(self) -> Counter[str]:
        with self._lock:
            before = Counter(self.counts)
            self.counts.clear()
        return before

    def expire(self, access_key: str, after: int = 0) -> None:
        """Answer ExpiredToken to `access_key` once it has made `after` more requests."""
        with self._lock:
            self._expire[access_key] = after

    def _expired(self, headers: Any) -> bool:
        found = _CREDENTIAL.search(headers.get("Authorization", ""))
        if not found:
            return False
        with self._lock:
            left = self._expire.get(found.group(1))
            if left is None:
                return False
            if left > 0:
                self._expire[found.group(1)] = left - 1
                return False
            return True

    def start(self) -> None:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with proxy._lock:
                    proxy._sockets.add(self.connection)

            def finish(self) -> None:
                with proxy._lock:
                    proxy._sockets.discard(self.connection)
                super().finish()

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().strip().split(b";")[0], 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                    return b"".join(chunks)
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _relay(self) -> None:
                body = self._body()
                with proxy._lock:
                    proxy.counts[operation(self.command, self.path)] += 1
                    if proxy.log is not None:
                        entry = (operation(self.command, self.path), self.path)
                        proxy.log.append((*entry, self.headers.get("Range", "")))
                if proxy._expired(self.headers):
                    self.send_response(400)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(EXPIRED_BODY)))
                    self.end_headers()
                    self.wfile.write(EXPIRED_BODY)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                if self.headers.get("Transfer-Encoding"):
                    headers["Content-Length"] = str(len(body))
                upstream = http.client.HTTPConnection(HOST, proxy.upstream_port, timeout=120)
                try:
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    self.send_response(response.status)
                    for key, value in response.getheaders():
                        if key.lower() not in _HOP and key.lower() != "content-length":
                            self.send_header(key, value)
                    length = response.getheader("Content-Length")
                    if self.command == "HEAD" and length is not None:
                        self.send_header("Content-Length", length)
                    else:
                        self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    upstream.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _relay

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                # A client that hangs up mid-request (a cut connection, an aborted retry) is
                # not news; the default prints a traceback into the stderr a test asserts on.
                pass

        self._server = Server((HOST, self.port), Handler)
        self.port = int(self._server.server_address[1])
        self.endpoint = f"http://{HOST}:{self.port}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Go down like a dead endpoint: stop listening and cut every open connection."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            for sock in list(self._sockets):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._sockets.clear()
        self._server = None

    def restart(self) -> None:
        for _ in range(50):
            try:
                self.start()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"could not rebind {self.endpoint}")


# --- a test broker ------------------------------------------------------------------------


def _policy(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


TRUST = _policy([{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}])


class Broker:
    """The broker contract of `graphit_cli.access.providers.BrokerClient`, backed by moto.

    `tokens` maps a login token to (subject, grants). One IAM role per root, scoped to that
    root's prefix, is created on first use and assumed with STS for every grant.
    """

    def __init__(
        self,
        moto: MotoServer,
        *,
        admin: tuple[str, str],
        bucket: str,
        prefix: str,
        tokens: dict[str, tuple[str, list[str]]],
        s3_endpoint: str | None = None,
        lifetime: Callable[[], timedelta] = lambda: timedelta(minutes=15),
        rogue_user_grant: str | None = None,
    ) -> None:
        from graphit_cli.access.providers import grant_allows, s3_uri

        self.moto = moto
        self.bucket = bucket
        self.prefix = prefix
        self.tokens = tokens
        self.s3_endpoint = s3_endpoint or moto.endpoint
        self.lifetime = lifetime
        self.rogue_user_grant = rogue_user_grant  # hand out user creds on this grant anyway
        self.issued: list[dict[str, Any]] = []
        self._iam = moto.client("iam", *admin)
        self._sts = moto.client("sts", *admin)
        self._roles: dict[str, str] = {}
        # moto keeps IAM state per process: role names are this broker's own.
        self._role_tag = secrets.token_hex(4)
        self._lock = threading.Lock()
        broker = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _who(self) -> tuple[str, list[str]] | None:
                auth = self.headers.get("Authorization", "")
                token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else ""
                return broker.tokens.get(token)

            def do_GET(self) -> None:
                who = self._who()
                if self.path != "/v1/whoami":
                    return self._reply(404, {"error": "no such endpoint"})
                if who is None:
                    return self._reply(401, {"error": "unknown token"})
                self._reply(200, {"subject": who[0]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path != "/v1/credentials":
                    return self._reply(404, {"error": "no such endpoint"})
                who = self._who()
                if who is None:  # anonymous callers get no S3 credentials
                    return self._reply(401, {"error": "unknown token"})
                subject, grants = who
                root, scope_id = body.get("root"), body.get("id")
                if root == "user":
                    scope_id = subject
                grant = grant_allows(grants, str(root), scope_id)
                if grant is None and root == "user" and broker.rogue_user_grant:
                    grant = broker.rogue_user_grant
                if grant is None:
                    return self._reply(403, {"error": f"no grant for the {root} root"})
                uri = s3_uri(broker.bucket, broker.prefix, str(root), str(scope_id))
                creds = broker.assume(str(root), str(scope_id), subject, uri)
                broker.issued.append(
                    {"subject": subject, "root": root, "id": scope_id, "key": creds["key"]}
                )
                self._reply(
                    200,
                    {
                        "subject": subject,
                        "grant": grant,
                        "topology": {
                            "bucket": broker.bucket,
                            "prefix": broker.prefix,
                            "region": REGION,
                            "endpoint": broker.s3_endpoint,
                        },
                        "credentials": {
                            "access_key_id": creds["key"],
                            "secret_access_key": creds["secret"],
                            "session_token": creds["token"],
                            "expiration": creds["expiration"],
                        },
                    },
                )

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self._server = Server((HOST, 0), Handler)
        self.endpoint = f"http://{HOST}:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def role_for(self, root: str, scope_id: str, uri: str) -> str:
        name = f"graphit-{root}-{scope_id}"[:55] + f"-{self._role_tag}"
        with self._lock:
            if name not in self._roles:
                arn = self._iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
                key_prefix = uri.removeprefix(f"s3://{self.bucket}/")
                self._iam.put_role_policy(
                    RoleName=name,
                    PolicyName="root",
                    PolicyDocument=_policy(
                        [
                            {
                                "Effect": "Allow",
                                "Action": "s3:*",
                                "Resource": f"arn:aws:s3:::{self.bucket}/{key_prefix}*",
                            },
                            {
                                "Effect": "Allow",
                                "Action": "s3:ListBucket",
                                "Resource": f"arn:aws:s3:::{self.bucket}",
                            },
                        ]
                    ),
                )
                self._roles[name] = arn["Role"]["Arn"]
            return self._roles[name]

    def assume(self, root: str, scope_id: str, subject: str, uri: str) -> dict[str, str]:
        arn = self.role_for(root, scope_id, uri)
        found = self._sts.assume_role(RoleArn=arn, RoleSessionName=subject, DurationSeconds=900)
        creds = found["Credentials"]
        expiration = datetime.now(UTC) + self.lifetime()
        return {
            "key": creds["AccessKeyId"],
            "secret": creds["SecretAccessKey"],
            "token": creds["SessionToken"],
            "expiration": expiration.isoformat(),
        }

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def enforced_moto(bucket: str) -> tuple[MotoServer, tuple[str, str]]:
    """A separate moto server with IAM enforcement on, a bucket, and an admin key pair.

    moto keeps IAM state per process, not per server: each call makes its own admin user."""
    import secrets

    moto = MotoServer()
    moto.client("s3").create_bucket(Bucket=bucket)
    iam = moto.client("iam")
    admin = f"broker-{secrets.token_hex(4)}"
    iam.create_user(UserName=admin)
    iam.put_user_policy(
        UserName=admin,
        PolicyName="admin",
        PolicyDocument=_policy([{"Effect": "Allow", "Action": "*", "Resource": "*"}]),
    )
    key = iam.create_access_key(UserName=admin)["AccessKey"]
    moto.enforce_iam()
    return moto, (key["AccessKeyId"], key["SecretAccessKey"])
