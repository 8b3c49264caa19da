"""The virtual pyusb backend, through pyusb's own API and through UsbTransport."""

import threading
import time

import pytest
import usb.core
import usb.util

from drivers.errors import ConnectionLost, PortNotFoundError, TransportError
from drivers.transport import UsbTransport, transport_for_url
from firmware_sim.usb_backend import EP_IN, EP_OUT, VirtualUsbBackend

VID, PID = 0x1209, 0xC0DE


class EchoDevice:
    """A sans-IO device that answers every write with its bytes reversed, and logs calls."""

    def __init__(self):
        self.pending = bytearray()
        self.calls = []
        self.deadline = None

    def receive(self, data, now):
        self.pending += data[::-1]

    def transmit(self, now):
        if self.deadline is not None and now >= self.deadline:
            self.deadline = None
            self.pending += b"tick"
        out, self.pending = bytes(self.pending), bytearray()
        return out

    def next_deadline(self):
        return self.deadline

    def connect(self, now):
        self.calls.append("connect")
        self.pending += b"HELLO"

    def disconnect(self):
        self.calls.append("disconnect")
        self.pending.clear()


@pytest.fixture
def bus():
    backend = VirtualUsbBackend()
    device = EchoDevice()
    port = backend.plug(device, vendor_id=VID, product_id=PID, serial="SHOE-42")
    return backend, device, port


def test_find_reads_descriptors_and_strings_through_pyusb(bus):
    backend, _, _ = bus
    dev = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    assert dev is not None
    assert (dev.idVendor, dev.idProduct, dev.bcdUSB) == (VID, PID, 0x0200)
    assert dev.serial_number == "SHOE-42"
    assert dev.manufacturer == "Luck of the Irish tables"
    cfg = dev[0]
    intf = cfg[(0, 0)]
    assert intf.bInterfaceClass == 0xFF
    assert [e.bEndpointAddress for e in intf] == [EP_IN, EP_OUT]
    assert all(usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK for e in intf)
    assert usb.core.find(idVendor=VID, idProduct=PID + 1, backend=backend) is None
    raw = dev.ctrl_transfer(0x80, 0x06, 0x0100, 0, 18)
    assert bytes(raw[:2]) == b"\x12\x01" and raw[8] | raw[9] << 8 == VID
    assert "SHOE-42" in str(dev)  # pyusb's full descriptor dump works


def test_bulk_transfers_reach_the_sans_io_device(bus):
    backend, _, _ = bus
    dev = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    dev.set_configuration()
    assert bytes(dev.read(EP_IN, 64, timeout=100)) == b"HELLO"
    assert dev.write(EP_OUT, b"abc", timeout=100) == 3
    assert bytes(dev.read(EP_IN, 64, timeout=100)) == b"cba"
    with pytest.raises(usb.core.USBTimeoutError):
        dev.read(EP_IN, 64, timeout=20)


def test_read_wakes_at_the_device_deadline_and_on_actions(bus):
    backend, _, port = bus
    dev = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    dev.set_configuration()
    dev.read(EP_IN, 64, timeout=100)
    port.act(lambda d: setattr(d, "deadline", time.monotonic() + 0.05))
    start = time.monotonic()
    assert bytes(dev.read(EP_IN, 64, timeout=1000)) == b"tick"
    assert 0.04 <= time.monotonic() - start < 0.5
    threading.Timer(0.05, lambda: port.act(lambda d: d.pending.extend(b"card"))).start()
    assert bytes(dev.read(EP_IN, 64, timeout=1000)) == b"card"


def test_unplug_fails_old_handles_and_replug_gets_a_new_address(bus):
    backend, device, port = bus
    dev = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    dev.set_configuration()
    first_address = dev.address
    port.unplug()
    assert device.calls == ["connect", "disconnect"]
    with pytest.raises(usb.core.USBError) as caught:
        dev.read(EP_IN, 64, timeout=100)
    assert caught.value.errno == 19  # ENODEV, as libusb reports it
    assert usb.core.find(idVendor=VID, idProduct=PID, backend=backend) is None
    port.replug()
    again = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    assert again.address != first_address
    again.set_configuration()
    assert bytes(again.read(EP_IN, 64, timeout=100)) == b"HELLO"


def test_usb_transport_opens_reads_and_reports_unplug(bus):
    backend, _, port = bus
    transport = UsbTransport(VID, PID, serial_number="SHOE-42", backend=backend)
    transport.open()
    assert transport.read() == b"HELLO"
    transport.write(b"xyz")
    assert transport.read() == b"zyx"
    assert transport.read() == b""
    port.unplug()
    with pytest.raises(ConnectionLost, match="usb 1209:c0de serial SHOE-42"):
        transport.read()
    transport.close()
    with pytest.raises(PortNotFoundError, match="no such USB device is plugged in"):
        transport.open()
    port.replug()
    transport.open()
    assert transport.read() == b"HELLO"
    transport.close()


def test_usb_transport_matches_the_serial_number(bus):
    backend, _, _ = bus
    other = UsbTransport(VID, PID, serial_number="SHOE-99", backend=backend)
    with pytest.raises(PortNotFoundError, match="serial SHOE-99"):
        other.open()


def test_usb_transport_names_an_interface_the_device_lacks(bus):
    backend, _, _ = bus
    transport = transport_for_url("usb://1209:c0de?interface=1", backend=backend)
    with pytest.raises(TransportError, match="usb 1209:c0de: the device has no interface 1"):
        transport.open()
    assert not transport.is_open
    other = UsbTransport(VID, PID, backend=backend)
    other.open()  # the device is still usable
    other.close()


def test_usb_url_is_parsed_with_clear_errors():
    transport = transport_for_url("usb://1209:c0de?serial=S1&interface=0")
    assert (transport.vendor_id, transport.product_id, transport.serial_number) == (
        VID,
        PID,
        "S1",
    )
    with pytest.raises(Exception, match="written usb://VID:PID"):
        transport_for_url("usb://1209")
    with pytest.raises(Exception, match="not a hexadecimal number"):
        transport_for_url("usb://12g9:c0de")
    with pytest.raises(Exception, match="unknown option"):
        transport_for_url("usb://1209:c0de?speed=9")
