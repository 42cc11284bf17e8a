"""The server's plain HTTP side, over real sockets: GET and HEAD only (405 with ``Allow`` for any
other method, a body or not), HEAD answered as GET without the body, and If-None-Match as
RFC 9110 §13.1.2 has it (``*``, lists, weak comparison) answered 304."""

from __future__ import annotations

import asyncio
import http.client
import socket
from urllib.parse import urlsplit

import pytest

from server.app import ArenaServer
from server.config import ServerConfig

#: Headers that differ between two answers to the same request.
_VARYING = {"date"}


@pytest.fixture
async def address():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        where = urlsplit(server.url)
        yield where.hostname, where.port


def _request(address, method: str, path: str = "/", headers: dict[str, str] | None = None, body: bytes | None = None):
    """One request on its own connection: (status, headers with lower-case names, body)."""
    conn = http.client.HTTPConnection(*address, timeout=5)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


async def request(address, method: str, path: str = "/", **kwargs):
    return await asyncio.to_thread(_request, address, method, path, **kwargs)


def _raw(address, data: bytes) -> bytes:
    """Send ``data`` on a raw socket and read everything until the server closes."""
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("method", ["POST", "TRACE", "FOO", "PUT", "DELETE", "OPTIONS"])
@pytest.mark.parametrize("path", ["/", "/healthz", "/static/index.html"])
async def test_a_method_other_than_get_and_head_gets_405_with_allow(address, method, path):
    status, headers, body = await request(address, method, path)
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert method.encode() in body and b"<html" not in body.lower()


async def test_a_post_with_a_body_gets_405_too(address):
    answer = await asyncio.to_thread(
        _raw, address, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello=world"
    )
    head = answer.split(b"\r\n\r\n", 1)[0].decode()
    assert head.startswith("HTTP/1.1 405 ")
    assert "\r\nAllow: GET, HEAD" in head


@pytest.mark.parametrize("path", ["/", "/r/AB12CD", "/api/games", "/sw.js", "/rules/klondike", "/healthz", "/nowhere"])
async def test_head_answers_as_get_without_the_body(address, path):
    get_status, get_headers, get_body = await request(address, "GET", path)
    head_status, head_headers, head_body = await request(address, "HEAD", path)
    assert head_status == get_status
    assert {k: v for k, v in head_headers.items() if k not in _VARYING} == {
        k: v for k, v in get_headers.items() if k not in _VARYING
    }
    assert int(head_headers["content-length"]) == len(get_body) > 0
    assert head_body == b""
    # On the wire, not through http.client (which reads no body after a HEAD anyway):
    raw = await asyncio.to_thread(_raw, address, f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert raw.endswith(b"\r\n\r\n") and raw.count(b"\r\n\r\n") == 1


async def test_if_none_match_in_every_form_rfc_9110_allows(address):
    status, headers, body = await request(address, "GET", "/api/games")
    etag = headers["etag"]
    assert status == 200 and etag.startswith('"') and body
    for header in ("*", etag, f'"nope", {etag}', f'"a", "b",{etag} , "c"', f"W/{etag}", f'"x", W/{etag}'):
        status, headers, body = await request(address, "GET", "/api/games", headers={"If-None-Match": header})
        assert (status, headers["etag"], body) == (304, etag, b""), header
        assert "content-type" not in headers
        status, headers, body = await request(address, "HEAD", "/api/games", headers={"If-None-Match": header})
        assert (status, body) == (304, b""), header
    for header in ('"nope"', '"a", "b"', 'W/"nope"', etag.strip('"')):
        status, headers, body = await request(address, "GET", "/api/games", headers={"If-None-Match": header})
        assert status == 200 and len(body) == int(headers["content-length"]) > 0, header


async def test_if_none_match_applies_to_every_resource_with_an_etag(address):
    for path in ("/", "/static/index.html", "/manifest.webmanifest", "/sw.js", "/rules/golf"):
        status, headers, _ = await request(address, "GET", path)
        assert status == 200, path
        status, _, body = await request(address, "GET", path, headers={"If-None-Match": f'W/{headers["etag"]}, "x"'})
        assert (status, body) == (304, b""), path
