"""The blocking side of the PC/SC readers: one thread that watches readers through
pcsc-lite's ``pcscd`` with pyscard and says what it sees, as :data:`Seen` records.

PC/SC's ``SCardGetStatusChange`` blocks until a watched reader's state changes (a card
comes into its field or leaves it, the reader goes) or the reader list changes (pcsc-lite's
``\\\\?PnP?\\Notification``); ``SCardCancel`` from another thread wakes it. When a tag
comes into a field the thread connects to it and asks its UID (``FF CA 00 00 00``, PC/SC
part 3's GET DATA), then lets it go. A tag that stays in the field is one tag: nothing more
is said of it until it leaves. Tags in a field when the thread first looks (at start, after
pcscd or the reader came back) are said as :class:`Present`, not :class:`Arrived`: the
thread cannot know when they came.

pyscard is imported here only, when a :class:`Watcher` starts: a machine without it (or
without pcsc-lite) gets a :class:`PcscUnavailable` error that says what to install.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import DriverError

#: PC/SC part 3, GET DATA with P1 = 00: the UID of the card in the field.
GET_UID = [0xFF, 0xCA, 0x00, 0x00, 0x00]
#: pcsc-lite's name for the reader-list "reader" that changes when readers come and go.
PNP = "\\\\?PnP?\\Notification"
#: How long one SCardGetStatusChange waits (ms) before the thread looks at its stop flag
#: (SCardCancel ends it sooner).
WAIT_MS = 1000
#: The environment variable pcsc-lite's client library reads once, at its first use in a
#: process, for the path of pcscd's socket (default /run/pcscd/pcscd.comm).
SOCKET_VARIABLE = "PCSCLITE_CSOCK_NAME"


class PcscUnavailable(DriverError):
    """pyscard or pcsc-lite's library is not installed."""


@dataclass(frozen=True)
class Arrived:
    """A tag came into the field of the reader of ``key``: its UID, or ``uid`` None and
    ``why`` when it could not be read (gone again before it answered, no answer)."""

    key: str
    uid: bytes | None
    why: str = ""


@dataclass(frozen=True)
class Left:
    """The field of the reader of ``key`` is empty again."""

    key: str


@dataclass(frozen=True)
class Present:
    """When the thread began to watch the reader of ``key``, a tag was already in its field."""

    key: str


@dataclass(frozen=True)
class Readers:
    """The watched readers pcscd has now, by key (their names), and why any are missing:
    said at every change of the list, and when pcscd goes (``service`` False)."""

    found: Mapping[str, str]
    service: bool
    detail: str


Seen = Arrived | Left | Present | Readers


def use_socket(path: str) -> None:
    """Talk to the pcscd listening on ``path`` (before the first use of PC/SC in this
    process: pcsc-lite's library reads it once)."""
    os.environ[SOCKET_VARIABLE] = path


def _scard() -> Any:
    try:
        from smartcard import scard  # noqa: PLC0415  (optional: the `pcsc` extra)
    except ImportError as error:
        raise PcscUnavailable(
            "PC/SC readers need pyscard (pip install 'luck-table[pcsc]', which builds with "
            f"Debian's swig and libpcsclite-dev) and pcscd: {error}"
        ) from None
    return scard


def reader_names() -> list[str]:
    """The readers pcscd has now (raises DriverError when pcscd does not answer)."""
    scard = _scard()
    hr, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    if hr != scard.SCARD_S_SUCCESS:
        raise DriverError(f"pcscd does not answer: {scard.SCardGetErrorMessage(hr)}")
    try:
        hr, names = scard.SCardListReaders(context, [])
        if hr == scard.SCARD_E_NO_READERS_AVAILABLE:
            return []
        if hr != scard.SCARD_S_SUCCESS:
            raise DriverError(f"pcscd lists no readers: {scard.SCardGetErrorMessage(hr)}")
        return list(names)
    finally:
        scard.SCardReleaseContext(context)


def match_readers(patterns: Mapping[str, str], names: list[str]) -> tuple[dict[str, str], str]:
    """Each key's reader: the one name its pattern (a regular expression, searched) matches
    among ``names``; and what is wrong when a key has none or more than one."""
    found: dict[str, str] = {}
    problems: list[str] = []
    for key, pattern in patterns.items():
        matches = [name for name in names if re.search(pattern, name)]
        if len(matches) == 1:
            found[key] = matches[0]
        elif matches:
            problems.append(f"{key}: {len(matches)} readers match {pattern!r}: {matches}")
        else:
            problems.append(f"{key}: no reader matches {pattern!r}")
    return found, "; ".join(problems)


class Watcher:
    """Watches the readers ``patterns`` names (key -> reader-name pattern) in a thread of
    its own, calling ``report`` (from that thread) with each :data:`Seen`."""

    def __init__(
        self,
        patterns: Mapping[str, str],
        report: Callable[[Seen], None],
        *,
        retry: float = 0.5,
    ) -> None:
        self.patterns = dict(patterns)
        self.report = report
        self.retry = retry
        self._scard = _scard()  # raises before any thread starts
        self._stop = threading.Event()
        self._context: int | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="pcsc-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop watching; returns once the thread has ended."""
        self._stop.set()
        with self._lock:
            if self._context is not None:
                self._scard.SCardCancel(self._context)
        self._thread.join()

    # --- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        scard = self._scard
        while not self._stop.is_set():
            hr, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
            if hr != scard.SCARD_S_SUCCESS:
                self.report(Readers({}, False, f"pcscd: {scard.SCardGetErrorMessage(hr)}"))
                self._stop.wait(self.retry)
                continue
            with self._lock:
                self._context = context
            try:
                while not self._stop.is_set() and self._watch(context):
                    pass  # the reader list changed: look again
            finally:
                with self._lock:
                    self._context = None
                scard.SCardReleaseContext(context)
            if not self._stop.is_set():
                self._stop.wait(self.retry)

    def _lost(self, hr: int) -> bool:
        scard = self._scard
        return hr in (scard.SCARD_E_NO_SERVICE, scard.SCARD_E_SERVICE_STOPPED)

    def _watch(self, context: int) -> bool:
        """Watch the readers found now until the list changes (True) or pcscd goes or the
        watcher stops (False)."""
        scard = self._scard
        hr, names = scard.SCardListReaders(context, [])
        if hr == scard.SCARD_E_NO_READERS_AVAILABLE:
            names = []
        elif hr != scard.SCARD_S_SUCCESS:
            self.report(Readers({}, False, f"pcscd: {scard.SCardGetErrorMessage(hr)}"))
            return False
        found, detail = match_readers(self.patterns, list(names))
        self.report(Readers(found, True, detail))
        keys = {name: key for key, name in found.items()}
        states: list[tuple[str, int]] = [(name, scard.SCARD_STATE_UNAWARE) for name in keys]
        states.append((PNP, scard.SCARD_STATE_UNAWARE))
        first = True
        while not self._stop.is_set():
            hr, changed = scard.SCardGetStatusChange(context, 0 if first else WAIT_MS, states)
            if hr == scard.SCARD_E_TIMEOUT:
                continue
            if hr == scard.SCARD_E_CANCELLED:
                return False
            if hr != scard.SCARD_S_SUCCESS:
                if not self._lost(hr):  # the list changed under the call: look again
                    return True
                self.report(Readers({}, False, f"pcscd: {scard.SCardGetErrorMessage(hr)}"))
                return False
            again = False
            for (name, before), (_, now, _atr) in zip(states, changed, strict=True):
                if name == PNP:
                    again = again or (not first and now & scard.SCARD_STATE_CHANGED)
                    continue
                if now & (scard.SCARD_STATE_UNKNOWN | scard.SCARD_STATE_UNAVAILABLE):
                    again = True  # the reader went
                    continue
                was = bool(before & scard.SCARD_STATE_PRESENT)
                is_ = bool(now & scard.SCARD_STATE_PRESENT)
                if is_ and not was:
                    self.report(
                        Present(keys[name]) if first else self._arrived(context, name, keys[name])
                    )
                elif was and not is_:
                    self.report(Left(keys[name]))
            states = [(name, now & ~scard.SCARD_STATE_CHANGED) for name, now, _ in changed]
            first = False
            if again:
                return True
        return False

    def _arrived(self, context: int, name: str, key: str) -> Arrived:
        """Connect to the tag that came into ``name``'s field and ask its UID."""
        scard = self._scard
        protocols = scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1
        hr, card, protocol = scard.SCardConnect(context, name, scard.SCARD_SHARE_SHARED, protocols)
        if hr != scard.SCARD_S_SUCCESS:
            return Arrived(key, None, f"no connection: {scard.SCardGetErrorMessage(hr)}")
        try:
            hr, response = scard.SCardTransmit(card, protocol, GET_UID)
            if hr != scard.SCARD_S_SUCCESS:
                return Arrived(key, None, f"no answer: {scard.SCardGetErrorMessage(hr)}")
            answer = bytes(response)
            if len(answer) < 3 or answer[-2:] != b"\x90\x00":
                return Arrived(key, None, f"the tag refused its UID ({answer[-2:].hex()})")
            return Arrived(key, answer[:-2])
        finally:
            scard.SCardDisconnect(card, scard.SCARD_LEAVE_CARD)
