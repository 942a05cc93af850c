"""One codec for the model's dataclasses as JSON values: how a result crosses the warm path's
socket (`daemon/wire.py`, `warm/ops.py`).

`encode` writes every field of a dataclass by name (nested dataclasses, lists and tuples as
lists, datetimes as ISO 8601, enums as their values), less the fields named in `skip`;
`decode` reads it back into the class by its field types (a tuple field gets a tuple again, an
`X | None` field None or an X), so a field added to a model crosses the socket without a line
here, and a forwarded answer equals the in-process one. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")


def encode(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    """`value` as a JSON value; `skip`: field names left out (at every depth)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: encode(getattr(value, f.name), skip)
            for f in dataclasses.fields(value)
            if f.name not in skip
        }
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [encode(v, skip) for v in value]
    if isinstance(value, dict):
        return {k: encode(v, skip) for k, v in value.items()}
    return value


def decode(cls: type[T], data: Any) -> T:
    """An instance of dataclass `cls` from `encode`'s value; a field left out gets its
    default (a field without one: TypeError, as a request that lacks it)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__} must be a JSON object")
    hints = _hints(cls)
    found = {name: _as(hints[name], data[name]) for name in hints if name in data}
    return cls(**found)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """Each field's type (resolved once per class)."""
    found = _HINTS.get(cls)
    if found is None:
        names = {f.name for f in dataclasses.fields(cls)}
        hints = typing.get_type_hints(cls)
        found = _HINTS[cls] = {k: v for k, v in hints.items() if k in names}
    return found


def _as(hint: Any, raw: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if raw is None:
            return None
        chosen = [a for a in typing.get_args(hint) if a is not type(None)]
        return _as(chosen[0], raw) if len(chosen) == 1 else raw
    if raw is None:
        return None
    if origin is tuple:
        return tuple(_as(typing.get_args(hint)[0], v) for v in raw)
    if origin is list:
        return [_as(typing.get_args(hint)[0], v) for v in raw]
    if hint is datetime:
        return datetime.fromisoformat(raw)
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint(raw)
        if dataclasses.is_dataclass(hint):
            return decode(hint, raw)
        if hint is float:
            return float(raw)
        if hint is int and not isinstance(raw, bool):
            return int(raw)
    return raw
