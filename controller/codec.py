"""Frozen dataclasses to JSON values and back, by their type hints: the one codec the
journal's device events, the table's inputs and the HIL scenarios' values share.

The JSON form: a dataclass is an object of its compared fields; a ``StrEnum`` its value;
another ``Enum`` its name in lower case; ``bytes`` hexadecimal text; a tuple or frozenset a
list; a type in ``scalars`` whatever its pair of functions make of it (a card is its name:
``"4c"``); ``None``, numbers and text themselves. Reading checks every value against its
hint and raises :class:`CodecError` naming where the value was and what it should be; an
object may leave out a field that has a default (written before the field existed) and may
not hold one the dataclass does not have. A hint ``Annotated[T, check, ...]`` is read as
``T``, then each callable ``check`` gives the value kept or raises ValueError (the free-text
rule of ``controller.text``); a codec made with ``checks=False`` reads ``T`` only (a journal
is read as it was written, whatever rules came after it).

A small module of its own rather than a general library's: the journal's form is fixed
(journals written years ago must read), and each reading error must say where, in the
table's words.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, fields, is_dataclass
from enum import Enum, StrEnum
from functools import partial
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from luck_errors import LuckTableError

#: How a type that is one JSON value is written and read: (write, read); ``read`` raises
#: ValueError (or a subclass) with the reason for a value it refuses.
Scalar = tuple[Callable[[Any], Any], Callable[[Any], Any]]
#: Reads a JSON value (the value, where it was) as one type.
Reader = Callable[[object, str], Any]
#: How one field of a dataclass is read: its name, its reader, whether it must be there.
_FieldPlan = tuple[str, Reader, bool]


class CodecError(LuckTableError, ValueError):
    """A JSON value that does not fit its type: ``where`` it was, ``what`` is wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where, self.what = where, what


class Codec:
    """Dataclasses to JSON values and back; ``scalars``: types written as one JSON value;
    ``checks``: whether reading applies the checks of ``Annotated`` hints."""

    def __init__(
        self, scalars: Mapping[type, Scalar] | None = None, *, checks: bool = True
    ) -> None:
        self._scalars = dict(scalars or {})
        self._checks = checks
        self._writers: dict[type[Any], Callable[[Any], Any]] = {}  # by type, found on use
        self._readers: dict[Any, Reader] = {}  # by type hint, found on use
        self._plans: dict[type[Any], tuple[tuple[_FieldPlan, ...], frozenset[str]]] = {}

    def encode(self, value: Any) -> Any:
        """The JSON value of ``value``."""
        kind = type(value)
        write = self._writers.get(kind)
        if write is None:
            write = self._writers[kind] = self._writer_of(kind)
        return write(value)

    def _writer_of(self, kind: type[Any]) -> Callable[[Any], Any]:
        """How a value of type ``kind`` is written (found once for each type)."""
        scalar = self._scalars.get(kind)
        if scalar is not None:
            return scalar[0]
        if issubclass(kind, StrEnum):
            return _enum_value
        if issubclass(kind, Enum):
            return _enum_name
        if issubclass(kind, bytes):
            return bytes.hex
        if issubclass(kind, tuple | frozenset):
            return self._list
        if is_dataclass(kind):
            return self.fields
        return _itself

    def _list(self, items: tuple[Any, ...] | frozenset[Any]) -> list[Any]:
        return [self.encode(item) for item in items]

    def fields(self, value: Any, *, leave: frozenset[str] = frozenset()) -> dict[str, Any]:
        """A dataclass's compared fields, encoded, but those named in ``leave``."""
        return {
            spec.name: self.encode(getattr(value, spec.name))
            for spec in _compared(type(value))
            if spec.name not in leave
        }

    def build(self, cls: type[Any], data: object, where: str) -> Any:
        """An instance of the dataclass ``cls`` from a JSON object."""
        if not isinstance(data, Mapping):
            raise CodecError(where, f"{data!r} is not an object")
        plan, names = self._plan(cls)
        if not names.issuperset(data):
            unknown = sorted(set(data) - names)
            raise CodecError(where, f"unknown field {unknown[0]!r}")
        values: dict[str, Any] = {}
        for name, read, required in plan:
            if name in data:
                values[name] = read(data[name], f"{where}.{name}")
            elif required:
                raise CodecError(where, f"missing field {name!r}")
        return cls(**values)

    def decode(self, hint: Any, value: object, where: str) -> Any:
        """The value of type ``hint`` a JSON value stands for."""
        return self._reader(hint)(value, where)

    def _plan(self, cls: type[Any]) -> tuple[tuple[_FieldPlan, ...], frozenset[str]]:
        """How each compared field of the dataclass ``cls`` is read (made once for each
        class), and their names."""
        made = self._plans.get(cls)
        if made is None:
            hints = _hints(cls)
            plan = tuple(
                (
                    spec.name,
                    self._reader(hints[spec.name]),
                    spec.default is MISSING and spec.default_factory is MISSING,
                )
                for spec in _compared(cls)
            )
            made = self._plans[cls] = plan, frozenset(name for name, _, _ in plan)
        return made

    def _reader(self, hint: Any) -> Reader:
        read = self._readers.get(hint)
        if read is None:
            read = self._readers[hint] = self._reader_of(hint)
        return read

    def _reader_of(self, hint: Any) -> Reader:
        """How a JSON value of type ``hint`` is read (found once for each hint)."""
        origin = get_origin(hint)
        if origin is Annotated:
            kind, *extras = get_args(hint)
            read = self._reader(kind)
            checks = tuple(extra for extra in extras if callable(extra)) if self._checks else ()
            return partial(_checked, read, checks) if checks else read
        if origin in (Union, types.UnionType):
            optional = type(None) in get_args(hint)
            (hint,) = (arg for arg in get_args(hint) if arg is not type(None))
            read = self._reader(hint)
            return partial(_optional, read) if optional else read
        if origin in (tuple, frozenset):
            return partial(self._collection, hint)
        if hint is Any or hint is object:
            return _as_it_is
        scalar = self._scalars.get(hint)
        if scalar is not None:
            return partial(_scalar, scalar[1])
        if isinstance(hint, type) and is_dataclass(hint):
            return partial(self.build, hint)
        if isinstance(hint, type) and issubclass(hint, Enum):
            return partial(_member, hint)
        return partial(_plain, hint)

    def _collection(self, hint: Any, value: object, where: str) -> Any:
        if not isinstance(value, list | tuple):
            raise CodecError(where, f"{value!r} is not a list")
        kinds = get_args(hint)
        if get_origin(hint) is frozenset or kinds[-1] is Ellipsis:
            items = [self.decode(kinds[0], item, f"{where}[{i}]") for i, item in enumerate(value)]
            return frozenset(items) if get_origin(hint) is frozenset else tuple(items)
        if len(value) != len(kinds):
            raise CodecError(where, f"{value!r} does not hold {len(kinds)} values")
        return tuple(
            self.decode(kind, item, f"{where}[{i}]")
            for i, (kind, item) in enumerate(zip(kinds, value, strict=True))
        )


def _optional(read: Reader, value: object, where: str) -> Any:
    return None if value is None else read(value, where)


def _as_it_is(value: object, where: str) -> Any:
    return value


def _scalar(read: Callable[[Any], Any], value: object, where: str) -> Any:
    try:
        return read(value)
    except ValueError as error:
        raise CodecError(where, str(error)) from None


def _checked(
    read: Reader, checks: tuple[Callable[[Any], Any], ...], value: object, where: str
) -> Any:
    kept = read(value, where)
    try:
        for check in checks:
            kept = check(kept)
    except ValueError as error:
        raise CodecError(where, str(error)) from None
    return kept


def _enum_value(member: StrEnum) -> str:
    return member.value


def _enum_name(member: Enum) -> str:
    return member.name.lower()


def _itself(value: Any) -> Any:
    return value


_HINTS: dict[type[Any], dict[str, Any]] = {}
_COMPARED: dict[type[Any], tuple[Field[Any], ...]] = {}


def _compared(cls: type[Any]) -> tuple[Field[Any], ...]:
    """The compared fields of the dataclass ``cls`` (its JSON form's), listed once."""
    if cls not in _COMPARED:
        _COMPARED[cls] = tuple(spec for spec in fields(cls) if spec.compare)
    return _COMPARED[cls]


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The type hints of ``cls``'s fields, resolved once."""
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls, include_extras=True)
    return _HINTS[cls]


def _member(enum: type[Enum], value: object, where: str) -> Enum:
    if issubclass(enum, StrEnum):
        if isinstance(value, str) and value in enum._value2member_map_:
            return enum(value)
        choices = ", ".join(member.value for member in enum)
    else:
        if isinstance(value, str) and value.upper() in enum.__members__:
            return enum[value.upper()]
        choices = ", ".join(name.lower() for name in enum.__members__)
    raise CodecError(where, f"{value!r} is not one of {choices}")


def _plain(hint: Any, value: object, where: str) -> Any:
    if hint is bytes:
        if isinstance(value, str):
            try:
                return bytes.fromhex(value)
            except ValueError:
                pass
        raise CodecError(where, f"{value!r} is not hexadecimal text")
    if hint is bool:
        if not isinstance(value, bool):
            raise CodecError(where, f"{value!r} is not true or false")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise CodecError(where, f"{value!r} is not a whole number")
        return value
    if hint is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise CodecError(where, f"{value!r} is not a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise CodecError(where, f"{value!r} is not text")
        return value
    raise TypeError(f"{where}: the codec cannot read a {hint!r}")
