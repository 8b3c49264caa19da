"""Fault injection for a simulated device: what happens on the wire and at the table.

Every setting can be changed while the device runs. All randomness comes from
one seeded generator, so a run is reproducible from its seed and its inputs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

from luck_errors import LuckTableError

RATES = (
    "corrupt_rate",
    "corrupt_frame_rate",
    "drop_rate",
    "duplicate_rate",
    "unreadable_rate",
    "misplace_rate",
)


class FaultSettingError(LuckTableError, ValueError):
    """A fault setting with a value it cannot take; the setting is left as it was."""


@dataclass
class FaultInjector:
    """Settable faults.

    - ``corrupt_rate``: probability that each byte the device sends is corrupted
      (XOR with a random non-zero value; the delimiter too);
    - ``corrupt_frame_rate``: probability that a frame gets one such corrupted byte;
    - ``drop_rate``: probability that a frame is lost on the wire;
    - ``duplicate_rate``: probability that a frame arrives twice;
    - ``delay``: seconds every frame spends on the wire (order is kept);
    - ``unreadable_rate``: shoe, probability that a card drawn is unreadable;
    - ``misplace_rate``: seat board, probability that a card lands at a
      neighbouring seat instead of the intended one.
    """

    corrupt_rate: float = 0.0
    corrupt_frame_rate: float = 0.0
    drop_rate: float = 0.0
    duplicate_rate: float = 0.0
    delay: float = 0.0
    unreadable_rate: float = 0.0
    misplace_rate: float = 0.0
    seed: int = 0
    rng: random.Random = field(init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: object) -> None:
        if name in RATES:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise FaultSettingError(f"{name} must be a number 0..1, not {value!r}")
            if not 0.0 <= value <= 1.0:
                raise FaultSettingError(f"{name} must be 0..1, not {value}")
            value = float(value)
        elif name == "delay":
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise FaultSettingError(f"delay must be a number of seconds >= 0, not {value!r}")
            value = float(value)
        elif name == "seed":
            if isinstance(value, bool) or not isinstance(value, int):
                raise FaultSettingError(f"seed must be an integer, not {value!r}")
            object.__setattr__(self, "rng", random.Random(value))
        elif name == "rng":
            raise FaultSettingError("rng is derived from seed; set seed instead")
        object.__setattr__(self, name, value)

    def settings(self) -> dict[str, float]:
        """The current settings by name (not the generator)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rng"}

    def update(self, **settings: Any) -> None:
        """Change several settings; all are checked before any is applied."""
        known = set(self.settings())
        unknown = sorted(set(settings) - known)
        if unknown:
            raise FaultSettingError(f"unknown fault setting {unknown[0]!r}; known: {sorted(known)}")
        trial = replace(self, **settings)
        for name in settings:
            object.__setattr__(self, name, getattr(trial, name))
        if "seed" in settings:
            object.__setattr__(self, "rng", trial.rng)

    def chance(self, rate: float) -> bool:
        return rate > 0.0 and self.rng.random() < rate

    def on_wire(self, frame: bytes) -> list[bytes]:
        """What arrives at the host when the device sends ``frame``: 0, 1 or 2 copies."""
        if self.chance(self.drop_rate):
            return []
        copies = 2 if self.chance(self.duplicate_rate) else 1
        return [self._corrupt(frame) for _ in range(copies)]

    def _corrupt(self, frame: bytes) -> bytes:
        if self.corrupt_rate <= 0.0 and self.corrupt_frame_rate <= 0.0:
            return frame
        data = bytearray(frame)
        if self.corrupt_rate > 0.0:
            for i in range(len(data)):
                if self.rng.random() < self.corrupt_rate:
                    data[i] ^= self.rng.randrange(1, 256)
        if self.chance(self.corrupt_frame_rate):
            data[self.rng.randrange(len(data))] ^= self.rng.randrange(1, 256)
        return bytes(data)
