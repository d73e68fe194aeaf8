"""URL normalization as agentscope stores URLs.

agentscope types ``URLSource.url`` as pydantic's ``AnyUrl``, which parses with
the Rust ``url`` crate, an implementation of the WHATWG URL Standard
(https://url.spec.whatwg.org/), and keeps the serialized result. wire applies
the same parsing rules to the parts a URL in an agent's reply has, so that a
URL wire writes is the URL agentscope reads back:

* tabs and newlines are removed, and C0 controls and spaces trimmed at the ends;
* the scheme is lower-cased;
* for the special schemes (http, https, ws, wss, ftp, file): a backslash is a
  slash, slashes after the scheme are optional (``https:example.com``), the
  host is percent-decoded, IDNA-encoded and lower-cased, IPv4 and IPv6
  addresses are written canonically, the default port is dropped, ``.`` and
  ``..`` path segments are resolved, and an empty path becomes ``/``;
* characters outside each part's allowed set are percent-encoded as UTF-8.

A URL it cannot parse (no scheme, an empty or forbidden host, a bad port)
raises ValueError, as pydantic does.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata

__all__ = ("normalize_url",)

_SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")

# The percent-encode sets of the standard (§1.3), beyond C0 controls and non-ASCII.
_FRAGMENT = frozenset(' "<>`')
_QUERY = frozenset(' "#<>')
_SPECIAL_QUERY = _QUERY | {"'"}
_PATH = _QUERY | frozenset("?`{}")
_USERINFO = _PATH | frozenset("/:;=@[\\]^|")
# Code points a host may not hold (§3.1 forbidden host code points, plus %
# after percent-decoding a domain).
_FORBIDDEN_HOST = frozenset(" #%/:<>?@[\\]^|\x7f") | frozenset(map(chr, range(0x20)))


def _encode(text: str, unsafe: frozenset[str]) -> str:
    if text.isascii() and not any(c in unsafe or c < " " or c == "\x7f" for c in text):
        return text
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
        if c in unsafe or c < " " or c >= "\x7f" else c
        for c in text
    )


def _decode_percent(text: str) -> str:
    if "%" not in text:
        return text
    raw = re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode("utf-8"))
    return raw.decode("utf-8")  # invalid UTF-8 raises UnicodeDecodeError, a ValueError


def _ipv4_number(part: str) -> int | None:
    """One dotted part of an IPv4 address in decimal, hex (0x) or octal (0)."""
    if part[:2].lower() == "0x":
        digits, base = part[2:] or "0", 16
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    try:
        return int(digits, base) if digits.isalnum() and digits.isascii() else None
    except ValueError:
        return None


def _host(host: str, url: str) -> str:
    if host.startswith("["):
        if not host.endswith("]"):
            raise ValueError(f"unclosed IPv6 address in URL: {url!r}")
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            raise ValueError(f"invalid IPv6 address in URL: {url!r}") from None
    domain = _decode_percent(host)
    domain = domain.lower()
    if not domain.isascii():
        # IDNA label by label (UTS 46 without its mapping table): NFC, then
        # Punycode for each label that is not ASCII.
        domain = ".".join(
            label if label.isascii() else "xn--" + unicodedata.normalize("NFC", label).encode("punycode").decode()
            for label in domain.split(".")
        )
    if not domain or any(c in _FORBIDDEN_HOST for c in domain):
        raise ValueError(f"invalid host in URL: {url!r}")
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    if not (last.isascii() and last.isdigit()) and _ipv4_number(last) is None:
        return domain
    # The last label is a number: the host is an IPv4 address (§3.5).
    numbers = [_ipv4_number(p) for p in parts]
    if len(numbers) > 4 or any(n is None for n in numbers):
        raise ValueError(f"invalid IPv4 address in URL: {url!r}")
    *head, tail = [n for n in numbers if n is not None]
    if any(n > 255 for n in head) or tail >= 256 ** (5 - len(numbers)):
        raise ValueError(f"invalid IPv4 address in URL: {url!r}")
    value = tail + sum(n << (8 * (3 - i)) for i, n in enumerate(head))
    return str(ipaddress.IPv4Address(value))


def _path(path: str) -> str:
    """A special URL's path with ``.`` and ``..`` resolved, as the standard does."""
    segments: list[str] = []
    parts = path.split("/")[1:] if path.startswith("/") else path.split("/")
    for i, segment in enumerate(parts):
        last = i == len(parts) - 1
        lowered = segment.lower()
        if lowered in ("..", ".%2e", "%2e.", "%2e%2e"):
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif lowered in (".", "%2e"):
            if last:
                segments.append("")
        else:
            segments.append(_encode(segment, _PATH))
    return "/" + "/".join(segments)


def normalize_url(url: str) -> str:
    """The URL as pydantic's ``AnyUrl`` (so agentscope) stores it.

    >>> normalize_url("HTTPS://Example.com:443/a b/../ü?x=a b")
    'https://example.com/%C3%BC?x=a%20b'
    """
    text = url.strip("".join(map(chr, range(0x21)))).replace("\t", "").replace("\n", "").replace("\r", "")
    scheme, sep, rest = text.partition(":")
    if not sep or not _SCHEME.fullmatch(scheme):
        raise ValueError(f"not an absolute URL: {url!r}")
    scheme = scheme.lower()
    rest, hash_, fragment = rest.partition("#")
    fragment_part = hash_ + _encode(fragment, _FRAGMENT)
    special = scheme in _SPECIAL_PORTS
    rest, qmark, query = rest.partition("?")
    if special:
        rest = rest.replace("\\", "/")  # before the query only
    query_part = qmark + _encode(query, _SPECIAL_QUERY if special else _QUERY)
    if not special and not rest.startswith("//"):
        # No host: a path (s3:/a/../b) or an opaque path (mailto:, data:) in
        # which only controls are encoded.
        path = _path(rest) if rest.startswith("/") else _encode(rest, frozenset())
        return f"{scheme}:{path}{query_part}{fragment_part}"
    if special and scheme != "file":
        rest = "//" + rest.lstrip("/")  # https:example.com and https:///example.com name a host
    elif scheme == "file" and not rest.startswith("//"):
        rest = "///" + rest.lstrip("/")  # file:x and file:/x have an empty host
    authority, slash, path = rest[2:].partition("/")
    path = slash + path
    userinfo, at, hostport = authority.rpartition("@")
    if at:
        user, _, password = userinfo.partition(":")
        userinfo = _encode(user, _USERINFO) + (":" + _encode(password, _USERINFO) if password else "")
        userinfo = userinfo + "@" if userinfo else ""  # an empty userinfo is dropped
    host, port = hostport, ""
    if not hostport.endswith("]") and ":" in hostport:
        host, _, port = hostport.rpartition(":")
    if port and (not port.isdigit() or not port.isascii() or int(port) > 65535):
        raise ValueError(f"invalid port in URL: {url!r}")
    if special:
        if scheme == "file":
            host = "" if host.lower() == "localhost" else host
            host = _host(host, url) if host else ""
        else:
            host = _host(host, url)
        if port and int(port) == _SPECIAL_PORTS[scheme]:
            port = ""
        path = _path(path)
    else:
        if host and any(c in _FORBIDDEN_HOST - {"%"} for c in host):
            raise ValueError(f"invalid host in URL: {url!r}")
        if not host and (at or hostport != host):
            raise ValueError(f"URL has credentials or a port but no host: {url!r}")
        host = _encode(host, frozenset())
        path = _path(path) if path else ""
    port = f":{int(port)}" if port else ""
    return f"{scheme}://{userinfo}{host}{port}{path}{query_part}{fragment_part}"
