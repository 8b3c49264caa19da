"""A virtual pyusb backend: simulated devices on a virtual USB bus.

:class:`VirtualUsbBackend` implements :class:`usb.backend.IBackend`, so the real pyusb code
paths (``usb.core.find``, descriptors, ``set_configuration``, claiming, bulk transfers, string
descriptors through control transfers) run unchanged against a sans-IO simulated device::

    backend = VirtualUsbBackend()
    port = backend.plug(SimulatedShoe(...), vendor_id=0x1209, product_id=0xC0DE, serial="S1")
    device = usb.core.find(idVendor=0x1209, idProduct=0xC0DE, backend=backend)
    port.act(lambda shoe: shoe.draw())       # a physical action, under the bus lock
    port.unplug(); port.replug()             # transfers on old handles fail with ENODEV

Each plugged device shows one configuration with one vendor-specific interface holding a
bulk IN (0x81) and a bulk OUT (0x02) endpoint of 64-byte packets. Bytes written to bulk OUT go
to ``device.receive``; a bulk IN read returns what ``device.transmit`` produced, waiting (up to
the transfer's timeout) until the device has something or its next deadline passes. The clock
is :func:`time.monotonic`. Every call into the simulated device holds the backend's lock, so a
host thread, a test thread and the device never race.
"""

from __future__ import annotations

import array
import errno
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import usb.backend
import usb.core

T = TypeVar("T")

EP_IN = 0x81
EP_OUT = 0x02
MAX_PACKET = 64
CONFIGURATION_VALUE = 1
LANGID_EN_US = 0x0409

_DESC_DEVICE = 1
_DESC_CONFIG = 2
_DESC_STRING = 3
_DESC_INTERFACE = 4
_DESC_ENDPOINT = 5
_GET_DESCRIPTOR = 0x06
_GET_STATUS = 0x00
_BULK = 0x02

# libusb's error codes, so callers see what they would see on real hardware
_LIBUSB_ERROR_NO_DEVICE = -4
_LIBUSB_ERROR_TIMEOUT = -7
_LIBUSB_ERROR_PIPE = -9
_LIBUSB_ERROR_NOT_FOUND = -5


class SansIODevice(Protocol):
    """What the backend needs of a simulated device (firmware_sim's SimulatedDevice)."""

    def receive(self, data: bytes, now: float) -> None: ...
    def transmit(self, now: float) -> bytes: ...
    def next_deadline(self) -> float | None: ...
    def connect(self, now: float) -> None: ...
    def disconnect(self) -> None: ...


def _no_device() -> usb.core.USBError:
    return usb.core.USBError(
        "No such device (it may have been disconnected)", _LIBUSB_ERROR_NO_DEVICE, errno.ENODEV
    )


@dataclass
class _Descriptor:
    """A descriptor as pyusb reads it: fields as attributes."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class _Handle:
    port: VirtualUsbPort
    plug_id: int
    claimed: set[int] = field(default_factory=set)


class VirtualUsbPort:
    """One simulated device's place on the virtual bus; it may be unplugged and replugged."""

    def __init__(
        self,
        backend: VirtualUsbBackend,
        device: SansIODevice,
        *,
        vendor_id: int,
        product_id: int,
        serial: str,
        manufacturer: str,
        product: str,
        bcd_device: int,
        port_number: int,
    ) -> None:
        self.backend = backend
        self.device = device
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.strings = (manufacturer, product, serial)
        self.bcd_device = bcd_device
        self.port_number = port_number
        self.plugged = False
        self.plug_id = 0
        self.address = 0
        self.configuration = 0
        self._in_fifo = bytearray()

    # --- the test's side ------------------------------------------------------------------

    def act(self, action: Callable[[Any], T]) -> T:
        """Run ``action(device)`` (a physical action, a fault setting) under the bus lock."""
        with self.backend.lock:
            result = action(self.device)
            self.backend.lock.notify_all()
            return result

    def unplug(self) -> None:
        """Pull the cable: the device stops, its host handles fail with ENODEV."""
        with self.backend.lock:
            if not self.plugged:
                return
            self.plugged = False
            self.configuration = 0
            self._in_fifo.clear()
            self.device.disconnect()
            self.backend.lock.notify_all()

    def replug(self) -> None:
        """Plug the cable back in: a new address, the device says HELLO again."""
        with self.backend.lock:
            if self.plugged:
                return
            self.plugged = True
            self.plug_id = self.backend.next_plug_id()
            self.address = self.backend.next_address()
            self.device.connect(time.monotonic())
            self.backend.lock.notify_all()

    # --- descriptors ----------------------------------------------------------------------

    def device_descriptor(self) -> _Descriptor:
        return _Descriptor(
            {
                "bLength": 18,
                "bDescriptorType": _DESC_DEVICE,
                "bcdUSB": 0x0200,
                "bDeviceClass": 0,
                "bDeviceSubClass": 0,
                "bDeviceProtocol": 0,
                "bMaxPacketSize0": MAX_PACKET,
                "idVendor": self.vendor_id,
                "idProduct": self.product_id,
                "bcdDevice": self.bcd_device,
                "iManufacturer": 1,
                "iProduct": 2,
                "iSerialNumber": 3,
                "bNumConfigurations": 1,
                "address": self.address,
                "bus": 1,
                "port_number": self.port_number,
                "port_numbers": (self.port_number,),
                "speed": 2,  # full speed
            }
        )

    def device_descriptor_bytes(self) -> bytes:
        d = self.device_descriptor()
        return struct.pack(
            "<BBHBBBBHHHBBBB",
            d.bLength,
            d.bDescriptorType,
            d.bcdUSB,
            d.bDeviceClass,
            d.bDeviceSubClass,
            d.bDeviceProtocol,
            d.bMaxPacketSize0,
            d.idVendor,
            d.idProduct,
            d.bcdDevice,
            d.iManufacturer,
            d.iProduct,
            d.iSerialNumber,
            d.bNumConfigurations,
        )

    def string_descriptor(self, index: int, langid: int) -> bytes:
        if index == 0:
            body = struct.pack("<H", LANGID_EN_US)
        elif 1 <= index <= len(self.strings) and langid == LANGID_EN_US:
            body = self.strings[index - 1].encode("utf-16-le")
        else:
            raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        return bytes([2 + len(body), _DESC_STRING]) + body

    # --- the host's side (called with the lock held) --------------------------------------

    def check(self, handle: _Handle) -> None:
        if not self.plugged or handle.plug_id != self.plug_id:
            raise _no_device()

    def pump(self, now: float) -> None:
        """Collect what the device has due now into the IN endpoint's FIFO."""
        self._in_fifo += self.device.transmit(now)

    def take_in(self, size: int) -> bytes:
        data = bytes(self._in_fifo[:size])
        del self._in_fifo[:size]
        return data


def _configuration_descriptor() -> _Descriptor:
    return _Descriptor(
        {
            "bLength": 9,
            "bDescriptorType": _DESC_CONFIG,
            "wTotalLength": 9 + 9 + 7 + 7,
            "bNumInterfaces": 1,
            "bConfigurationValue": CONFIGURATION_VALUE,
            "iConfiguration": 0,
            "bmAttributes": 0x80,  # bus powered
            "bMaxPower": 50,  # 100 mA
            "extra_descriptors": [],
        }
    )


def _interface_descriptor() -> _Descriptor:
    return _Descriptor(
        {
            "bLength": 9,
            "bDescriptorType": _DESC_INTERFACE,
            "bInterfaceNumber": 0,
            "bAlternateSetting": 0,
            "bNumEndpoints": 2,
            "bInterfaceClass": 0xFF,  # vendor specific
            "bInterfaceSubClass": 0,
            "bInterfaceProtocol": 0,
            "iInterface": 0,
            "extra_descriptors": [],
        }
    )


def _endpoint_descriptor(address: int) -> _Descriptor:
    return _Descriptor(
        {
            "bLength": 7,
            "bDescriptorType": _DESC_ENDPOINT,
            "bEndpointAddress": address,
            "bmAttributes": _BULK,
            "wMaxPacketSize": MAX_PACKET,
            "bInterval": 0,
            "bRefresh": 0,
            "bSynchAddress": 0,
            "extra_descriptors": [],
        }
    )


def _configuration_bytes() -> bytes:
    c, i = _configuration_descriptor(), _interface_descriptor()
    data = struct.pack(
        "<BBHBBBBB",
        c.bLength,
        c.bDescriptorType,
        c.wTotalLength,
        c.bNumInterfaces,
        c.bConfigurationValue,
        c.iConfiguration,
        c.bmAttributes,
        c.bMaxPower,
    )
    data += struct.pack(
        "<BBBBBBBBB",
        i.bLength,
        i.bDescriptorType,
        i.bInterfaceNumber,
        i.bAlternateSetting,
        i.bNumEndpoints,
        i.bInterfaceClass,
        i.bInterfaceSubClass,
        i.bInterfaceProtocol,
        i.iInterface,
    )
    for address in (EP_IN, EP_OUT):
        e = _endpoint_descriptor(address)
        data += struct.pack(
            "<BBBBHB",
            e.bLength,
            e.bDescriptorType,
            e.bEndpointAddress,
            e.bmAttributes,
            e.wMaxPacketSize,
            e.bInterval,
        )
    return data


class VirtualUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb has no hints
    """A USB bus holding simulated devices; pass it as ``backend=`` to pyusb."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Condition()
        self._ports: list[VirtualUsbPort] = []
        self._plug_ids = 0
        self._addresses = 0

    def next_plug_id(self) -> int:
        self._plug_ids += 1
        return self._plug_ids

    def next_address(self) -> int:
        self._addresses = self._addresses % 127 + 1
        return self._addresses

    def plug(
        self,
        device: SansIODevice,
        *,
        vendor_id: int,
        product_id: int,
        serial: str,
        manufacturer: str = "Luck of the Irish tables",
        product: str = "Simulated table device",
        bcd_device: int = 0x0100,
    ) -> VirtualUsbPort:
        """Plug a simulated device into a new port of the bus and connect it."""
        with self.lock:
            port = VirtualUsbPort(
                self,
                device,
                vendor_id=vendor_id,
                product_id=product_id,
                serial=serial,
                manufacturer=manufacturer,
                product=product,
                bcd_device=bcd_device,
                port_number=len(self._ports) + 1,
            )
            self._ports.append(port)
        port.replug()
        return port

    # --- usb.backend.IBackend -------------------------------------------------------------

    def enumerate_devices(self) -> Iterator[VirtualUsbPort]:
        with self.lock:
            plugged = [p for p in self._ports if p.plugged]
        yield from plugged

    def get_parent(self, dev: VirtualUsbPort) -> None:
        return None  # every port is on the root hub

    def get_device_descriptor(self, dev: VirtualUsbPort) -> _Descriptor:
        return dev.device_descriptor()

    def get_configuration_descriptor(self, dev: VirtualUsbPort, config: int) -> _Descriptor:
        if config != 0:
            raise IndexError(f"configuration index {config} out of range")
        return _configuration_descriptor()

    def get_interface_descriptor(
        self, dev: VirtualUsbPort, intf: int, alt: int, config: int
    ) -> _Descriptor:
        if (config, intf, alt) != (0, 0, 0):
            raise IndexError(f"interface ({intf}, {alt}) of configuration {config} out of range")
        return _interface_descriptor()

    def get_endpoint_descriptor(
        self, dev: VirtualUsbPort, ep: int, intf: int, alt: int, config: int
    ) -> _Descriptor:
        if (config, intf, alt) != (0, 0, 0) or ep not in (0, 1):
            raise IndexError(f"endpoint {ep} of interface ({intf}, {alt}) out of range")
        return _endpoint_descriptor((EP_IN, EP_OUT)[ep])

    def open_device(self, dev: VirtualUsbPort) -> _Handle:
        with self.lock:
            if not dev.plugged:
                raise _no_device()
            return _Handle(dev, dev.plug_id)

    def close_device(self, dev_handle: _Handle) -> None:
        dev_handle.claimed.clear()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self.lock:
            dev_handle.port.check(dev_handle)
            if config_value not in (0, CONFIGURATION_VALUE):
                raise usb.core.USBError("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            dev_handle.port.configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self.lock:
            dev_handle.port.check(dev_handle)
            return dev_handle.port.configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        with self.lock:
            dev_handle.port.check(dev_handle)
            if (intf, altsetting) != (0, 0):
                raise usb.core.USBError("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self.lock:
            dev_handle.port.check(dev_handle)
            if intf != 0:
                raise usb.core.USBError("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            dev_handle.claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self.lock:
            dev_handle.port.check(dev_handle)
            dev_handle.claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        return False  # no kernel driver binds a vendor-specific interface

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        return None  # nothing attached, nothing to detach

    def _ready(self, dev_handle: _Handle, ep: int, intf: int) -> VirtualUsbPort:
        port = dev_handle.port
        port.check(dev_handle)
        if port.configuration != CONFIGURATION_VALUE or intf not in dev_handle.claimed:
            raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        return port

    def bulk_write(
        self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int
    ) -> int:
        with self.lock:
            port = self._ready(dev_handle, ep, intf)
            if ep != EP_OUT:
                raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
            port.device.receive(data.tobytes(), time.monotonic())
            self.lock.notify_all()
            return len(data) * data.itemsize

    def bulk_read(
        self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int
    ) -> int:
        give_up = time.monotonic() + timeout / 1000 if timeout else None
        with self.lock:
            while True:
                port = self._ready(dev_handle, ep, intf)
                if ep != EP_IN:
                    raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
                now = time.monotonic()
                port.pump(now)
                data = port.take_in(len(buff) * buff.itemsize)
                if data:
                    buff[: len(data)] = array.array(buff.typecode, data)
                    return len(data)
                wake = port.device.next_deadline()
                if give_up is not None and now >= give_up:
                    raise usb.core.USBTimeoutError(
                        "Operation timed out", _LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT
                    )
                if give_up is not None:
                    wake = give_up if wake is None else min(wake, give_up)
                self.lock.wait(None if wake is None else max(0.0, wake - now))

    def ctrl_transfer(  # noqa: PLR0917 (pyusb's IBackend signature)
        self,
        dev_handle: _Handle,
        bmRequestType: int,
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array[int],
        timeout: int,
    ) -> int:
        with self.lock:
            port = dev_handle.port
            port.check(dev_handle)
            if bmRequestType == 0x80 and bRequest == _GET_DESCRIPTOR:
                kind, index = wValue >> 8, wValue & 0xFF
                if kind == _DESC_DEVICE:
                    reply = port.device_descriptor_bytes()
                elif kind == _DESC_CONFIG and index == 0:
                    reply = _configuration_bytes()
                elif kind == _DESC_STRING:
                    reply = port.string_descriptor(index, wIndex)
                else:
                    raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
            elif bmRequestType == 0x80 and bRequest == _GET_STATUS:
                reply = b"\x00\x00"  # bus powered, no remote wakeup
            else:
                raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
            reply = reply[: len(data) * data.itemsize]
            data[: len(reply)] = array.array(data.typecode, reply)
            return len(reply)

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        with self.lock:
            dev_handle.port.check(dev_handle)

    def reset_device(self, dev_handle: _Handle) -> None:
        """A port reset re-enumerates the device: like a quick unplug and replug."""
        port = dev_handle.port
        with self.lock:
            port.check(dev_handle)
        port.unplug()
        port.replug()
