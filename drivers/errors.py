"""Errors raised by the drivers. Every message names the port or device it is about."""

from __future__ import annotations

from drivers.protocol import DeviceKind
from luck_errors import LuckTableError


class DriverError(LuckTableError):
    """Base of every error the drivers raise."""


class TransportError(DriverError):
    """A byte transport could not be opened or used."""


class PortNotFoundError(TransportError):
    """The configured port or device does not exist (wrong path, nothing plugged in)."""


class ConnectionLost(TransportError):
    """An open transport stopped working: cable pulled, device unplugged, socket closed."""


class ProtocolVersionError(DriverError):
    """The device answered with a protocol version this host does not speak."""

    def __init__(self, port: str, device_version: int, host_versions: tuple[int, ...]) -> None:
        spoken = ", ".join(map(str, host_versions))
        super().__init__(
            f"device on {port} speaks protocol version {device_version}; "
            f"this host speaks version{'s' if len(host_versions) > 1 else ''} {spoken}"
        )
        self.port = port
        self.device_version = device_version
        self.host_versions = host_versions


class HandshakeTimeout(DriverError):
    """The port opened but no device said HELLO within the allowed time."""


class WrongDeviceError(DriverError):
    """Another kind of device answered (a seat board on the shoe's port, say): the kind
    ``expected`` and the kind that ``answered``."""

    def __init__(self, port: str, expected: DeviceKind, answered: DeviceKind, serial: str) -> None:
        super().__init__(
            f"{port}: expected a {expected.value}, but a {answered.value} "
            f"(serial {serial}) answered"
        )
        self.expected, self.answered = expected, answered
