"""Byte transports behind one interface, chosen by URL (the pyserial URL-handler idea).

``transport_for_url(url)``:

- ``usb://VID:PID`` (hex ids), optionally ``?serial=SN&interface=N``: native USB through
  pyusb (:class:`UsbTransport`);
- ``socket://HOST:PORT``: TCP (:class:`TcpTransport`), read in whole chunks;
- anything else goes to pyserial (:class:`SerialTransport`): a device path such as
  ``/dev/ttyUSB0``, a pseudo-terminal path, ``rfc2217://host:port``, ``loop://``.

More schemes can be added with :func:`register_scheme`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from drivers.errors import TransportError
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.tcp import TcpTransport
from drivers.transport.usb import UsbTransport

__all__ = [
    "SerialTransport",
    "TcpTransport",
    "Transport",
    "UsbTransport",
    "register_scheme",
    "transport_for_url",
]

TransportFactory = Callable[..., Transport]

_SCHEMES: dict[str, TransportFactory] = {}


def register_scheme(scheme: str, factory: TransportFactory) -> None:
    """Make ``scheme://...`` URLs open through ``factory(url, **options)``."""
    _SCHEMES[scheme.lower()] = factory


def transport_for_url(url: str, **options: Any) -> Transport:
    """The (not yet opened) transport for a configured port URL or device path."""
    if not isinstance(url, str) or not url.strip():
        raise TransportError(f"a port must be a device path or URL, got {url!r}")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    factory = _SCHEMES.get(scheme, SerialTransport)
    try:
        return factory(url, **options)
    except TypeError:
        names = ", ".join(sorted(options)) or "none"
        raise TransportError(f"{url}: option(s) {names} do not apply to this port") from None


def _parse_hex_id(text: str, what: str, url: str) -> int:
    try:
        value = int(text, 16)
    except ValueError:
        raise TransportError(f"{url}: {what} {text!r} is not a hexadecimal number") from None
    if not 0 <= value <= 0xFFFF:
        raise TransportError(f"{url}: {what} {text!r} is out of range 0000..ffff")
    return value


def usb_transport_for_url(url: str, **options: Any) -> UsbTransport:
    """``usb://VID:PID?serial=SN&interface=N`` -> :class:`UsbTransport`."""
    parts = urlsplit(url)
    ids = parts.netloc.split(":")
    if len(ids) != 2:
        raise TransportError(f"{url}: a USB port is written usb://VID:PID, e.g. usb://1209:c0de")
    query = parse_qs(parts.query)
    unknown = set(query) - {"serial", "interface"}
    if unknown:
        raise TransportError(f"{url}: unknown option(s) {', '.join(sorted(unknown))}")
    serial = query.get("serial", [None])[0]
    interface_text = query.get("interface", ["0"])[0]
    if not interface_text.isdigit():
        raise TransportError(f"{url}: interface {interface_text!r} is not a number")
    return UsbTransport(
        _parse_hex_id(ids[0], "vendor id", url),
        _parse_hex_id(ids[1], "product id", url),
        serial_number=serial,
        interface=int(interface_text),
        **options,
    )


register_scheme("usb", usb_transport_for_url)
register_scheme("socket", TcpTransport)
