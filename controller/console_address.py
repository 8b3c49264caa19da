"""Where a table's console answers on its own machine, from its configuration's ``[api]``:
``https://`` when it has a certificate (``tls_cert``), else ``http://``; a wildcard bind
(``0.0.0.0``, ``::``) is reached at the loopback address. The relay (``luck-table relay
--table-config``) and the kiosk follow it, so that turning TLS on changes them too."""

from __future__ import annotations

import ipaddress

from controller.config_file import Api

WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def console_url(api: Api, port: int | None = None) -> str:
    """The console's URL (``port``: the one it listens at, when the configuration's is 0)."""
    host = WILDCARDS.get(api.bind, api.bind)
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:  # a name
        pass
    scheme = "https" if api.tls_cert is not None else "http"
    return f"{scheme}://{host}:{api.port if port is None else port}"
