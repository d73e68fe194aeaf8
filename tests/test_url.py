"""URL normalization against pydantic's ``AnyUrl``, the type agentscope
gives ``URLSource.url``: wire stores the URL pydantic would store, and a URL
pydantic refuses, wire refuses. These need pydantic alone, not agentscope."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import wire
from tests.strategies import urls

pydantic = pytest.importorskip("pydantic")

_any_url = pydantic.TypeAdapter(pydantic.AnyUrl)


def pydantic_url(url: str) -> str | None:
    try:
        return str(_any_url.validate_python(url))
    except pydantic.ValidationError:
        return None


def wire_url(url: str) -> str | None:
    try:
        return wire.URLSource(url=url, media_type="x").url
    except ValueError:
        return None


AGREED_URLS = [
    "https://EXAMPLE.com", "https://example.com/a b.png", "HTTPS://Example.com:443/Path/ü?x=a b",
    "http://example.com:080/", "ftp://Ex.com:21/x", "ws://a.com:80", "https://example.com?q='x'",
    "https://example.com/a#f g", "https://example.com/{}", "https://example.com/?a=`", "https://example.com/a%2",
    "data:image/png;base64,AAAA", "file:///tmp/a b", "mailto:A@B.com", "s3://Bucket/Key With Space",
    "https://[::1]:8080/x", "https://1.2.3.4/", "https://u:p@a.com:443/", "https://example.com:/x",
    "not a url", "https://", "https://example.com:99999/", "  https://example.com/trim  ",
]


# Forms the WHATWG parser treats specially; each was a difference once.
WHATWG_URLS = [
    "https://example.com/a/../b", "https://example.com/./a", "https://例え.jp/x", "data:text/plain,hello world",
    "http://a:0/", "https://exa mple.com/", "https://example.com/\tx", "https://example.com/a\\b",
    "https://user:p w@example.com/", "https://ex%41mple.com/", "https:example.com", "https://[0:0:0:0:0:0:0:1]/",
    "https://0x7f.1/", "file://Host/x", "file://localhost/etc", "https://example.com/a/%2e%2E/b",
    "https://example.com/a/..", "https://256.1.1.1/", "https://1.2.3/", "http://[::1/", "https://a.com:08080/",
    "s3://bucket/a/../b", "HTTP://U@A.com", "https://example.com/?q=a b#frag`x",
]


@pytest.mark.parametrize("url", AGREED_URLS + WHATWG_URLS)
def test_urls_are_normalized_as_pydantic_anyurl_does(url: str) -> None:
    assert wire_url(url) == pydantic_url(url)


@settings(max_examples=300, deadline=None)
@given(url=urls)
def test_generated_urls_normalize_as_pydantic_and_are_stable(url: str) -> None:
    normalized = wire_url(url)
    assert normalized == pydantic_url(url)
    assert normalized is not None and wire_url(normalized) == normalized
