"""Native USB transport through pyusb: one bulk IN and one bulk OUT endpoint.

The device is found by vendor and product id (and optionally its serial number string);
any pyusb backend works: libusb on a real table, :mod:`firmware_sim.usb_backend` in tests.
After an unplug every transfer fails with ConnectionLost; :meth:`UsbTransport.open` finds
the device again once it is plugged back in (the link's reconnect loop calls it).
"""

from __future__ import annotations

import contextlib
import errno
from typing import Any

import usb.core
import usb.util

from drivers.errors import ConnectionLost, PortNotFoundError, TransportError
from drivers.transport.base import Transport

#: Largest single bulk read: many max-size packets, so a burst arrives in one call.
READ_SIZE = 4096


class UsbTransport(Transport):
    """Bulk IN/OUT pipes of the first interface carrying them on a vendor/product id."""

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        *,
        serial_number: str | None = None,
        interface: int = 0,
        backend: Any = None,
        write_timeout: float = 5.0,
    ) -> None:
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.serial_number = serial_number
        self.interface = interface
        self.backend = backend
        self.write_timeout = write_timeout
        suffix = f" serial {serial_number}" if serial_number else ""
        self.name = f"usb {vendor_id:04x}:{product_id:04x}{suffix}"
        self._device: usb.core.Device | None = None
        self._ep_in = 0
        self._ep_out = 0

    @property
    def is_open(self) -> bool:
        return self._device is not None

    def _matches(self, device: usb.core.Device) -> bool:
        if self.serial_number is None:
            return True
        try:
            return bool(device.serial_number == self.serial_number)
        except (usb.core.USBError, ValueError):
            return False

    def open(self) -> None:
        if self._device is not None:
            return
        try:
            device = usb.core.find(
                idVendor=self.vendor_id,
                idProduct=self.product_id,
                backend=self.backend,
                custom_match=self._matches,
            )
        except usb.core.NoBackendError as exc:
            raise TransportError(f"{self.name}: no USB backend (libusb) is available") from exc
        if device is None:
            raise PortNotFoundError(f"{self.name}: no such USB device is plugged in")
        try:
            self._claim(device)
        except usb.core.USBError as exc:
            usb.util.dispose_resources(device)
            if exc.errno == errno.ENODEV:
                raise ConnectionLost(f"{self.name}: unplugged while opening") from exc
            raise TransportError(f"{self.name}: cannot claim the device: {exc}") from exc
        except LookupError:  # pyusb's answer to an interface number the device lacks
            usb.util.dispose_resources(device)
            raise TransportError(
                f"{self.name}: the device has no interface {self.interface}"
            ) from None
        except TransportError:
            usb.util.dispose_resources(device)
            raise
        self._device = device

    def _claim(self, device: usb.core.Device) -> None:
        try:
            if device.is_kernel_driver_active(self.interface):
                device.detach_kernel_driver(self.interface)
        except NotImplementedError:
            pass  # backends without kernel drivers (the simulator, some platforms)
        device.set_configuration()
        setting = device.get_active_configuration()[(self.interface, 0)]
        ins = [e for e in setting if _is_bulk(e, usb.util.ENDPOINT_IN)]
        outs = [e for e in setting if _is_bulk(e, usb.util.ENDPOINT_OUT)]
        if not ins or not outs:
            raise TransportError(
                f"{self.name}: interface {self.interface} has no bulk IN and OUT endpoint pair"
            )
        usb.util.claim_interface(device, self.interface)
        self._ep_in = ins[0].bEndpointAddress
        self._ep_out = outs[0].bEndpointAddress

    def _open_device(self) -> usb.core.Device:
        if self._device is None:
            raise ConnectionLost(f"{self.name} is not open")
        return self._device

    def read(self) -> bytes:
        device = self._open_device()
        try:
            data = device.read(self._ep_in, READ_SIZE, timeout=int(self.poll_interval * 1000))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as exc:
            raise ConnectionLost(f"{self.name}: {exc.strerror or exc}") from exc
        return bytes(data)

    def write(self, data: bytes) -> None:
        device = self._open_device()
        try:
            device.write(self._ep_out, data, timeout=int(self.write_timeout * 1000))
        except usb.core.USBError as exc:
            raise ConnectionLost(f"{self.name}: {exc.strerror or exc}") from exc

    def close(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            with contextlib.suppress(usb.core.USBError):  # the device may already be gone
                usb.util.release_interface(device, self.interface)
            usb.util.dispose_resources(device)


def _is_bulk(endpoint: Any, direction: int) -> bool:
    return bool(
        usb.util.endpoint_type(endpoint.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
        and usb.util.endpoint_direction(endpoint.bEndpointAddress) == direction
    )
