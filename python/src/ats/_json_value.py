"""Turns whatever an agent passes (dataclasses, pydantic models, exceptions, datetimes, sets, bytes, cycles, NaN,
lone surrogates, non-string keys) into plain JSON the service accepts, without losing what can be kept. Nothing
here raises."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import traceback
import types
import uuid
from decimal import Decimal
from typing import Any, Dict, List, Optional, Set

JsonObject = Dict[str, Any]

# The service accepts 32 levels; anything deeper is kept as a JSON string one level above.
MAX_DEPTH = 30

_ROUTINES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType)

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False)


def dumps(value: Any) -> str:
    """Compact JSON of an already converted value (what goes on the wire)."""
    return _ENCODER.encode(value)


def well_formed(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (the service accepts well-formed Unicode only)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # Surrogate pairs become the character they encode; a lone surrogate becomes U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _error_to_json(error: BaseException, depth: int, seen: Set[int]) -> JsonObject:
    out: JsonObject = {"name": type(error).__name__, "message": well_formed(str(error))}
    if error.__traceback__ is not None:
        out["stack"] = well_formed("".join(traceback.format_exception(type(error), error, error.__traceback__, chain=False)))
    cause = error.__cause__
    if cause is None and not error.__suppress_context__:
        cause = error.__context__
    if cause is not None:
        out["cause"] = _convert(cause, depth + 1, seen)
    return out


def _depth_limited(value: Any) -> str:
    try:
        return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))
    except Exception:  # noqa: BLE001 - whatever it is, it is not sent as is
        return "[unserializable]"


def _fields_of(value: Any) -> Optional[Dict[Any, Any]]:
    """The fields of an object that has them: a dataclass, a pydantic model, a named tuple, or its ``__dict__``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name, None) for field in dataclasses.fields(value)}
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump) and not isinstance(value, type):
        try:
            dumped = model_dump()
            if isinstance(dumped, dict):
                return dumped
        except Exception:  # noqa: BLE001 - fall back to the attributes
            pass
    as_dict = getattr(value, "_asdict", None)
    if isinstance(value, tuple) and callable(as_dict):
        fields = as_dict()
        if isinstance(fields, dict):
            return dict(fields)
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        return {key: entry for key, entry in attributes.items() if not str(key).startswith("_")}
    return None


def _convert(value: Any, depth: int, seen: Set[int]) -> Any:
    if value is None or value is True or value is False:
        return value
    kind = type(value)
    if kind is str:
        return well_formed(value)
    if kind is int:
        return value
    if kind is float:
        return value if math.isfinite(value) else str(value)
    if isinstance(value, enum.Enum):
        return _convert(value.value, depth, seen)
    if isinstance(value, str):
        return well_formed(str(value))
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"[binary {len(value)} bytes]"
    identity = id(value)
    if identity in seen:
        return "[circular]"
    if depth >= MAX_DEPTH:
        return _depth_limited(value)
    seen.add(identity)
    try:
        if isinstance(value, dict):
            return _mapping(value, depth, seen)
        if isinstance(value, (list, tuple)) and not hasattr(value, "_asdict"):
            return [_convert(entry, depth + 1, seen) for entry in value]
        if isinstance(value, (set, frozenset)):
            return [_convert(entry, depth + 1, seen) for entry in value]
        if isinstance(value, BaseException):
            return _error_to_json(value, depth, seen)
        fields = _fields_of(value)
        if fields is not None:
            return _mapping(fields, depth, seen)
        if isinstance(value, _ROUTINES):
            return None
        try:
            return well_formed(str(value))
        except Exception:  # noqa: BLE001
            return "[unserializable]"
    except Exception:  # noqa: BLE001 - a hostile __getattr__ or __iter__ must not fail the agent
        return "[unserializable]"
    finally:
        seen.discard(identity)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return well_formed(key)
    if isinstance(key, bool) or key is None:
        return json.dumps(key)
    if isinstance(key, enum.Enum):
        return _key(key.value)
    return well_formed(str(key))


def _mapping(mapping: Dict[Any, Any], depth: int, seen: Set[int]) -> JsonObject:
    out: JsonObject = {}
    for key, entry in list(mapping.items()):
        if isinstance(entry, _ROUTINES):
            continue
        out[_key(key)] = _convert(entry, depth + 1, seen)
    return out


def to_json_value(value: Any) -> Any:
    """``value`` as plain JSON data (dicts with string keys, lists, strings, finite numbers, booleans, None)."""
    return _convert(value, 1, set())


def to_json_object(value: Any) -> JsonObject:
    """Any value as a JSON object: a mapping (or an object with fields) as its fields, anything else as
    ``{"value": …}``."""
    converted = _convert(value, 1, set())
    if isinstance(converted, dict):
        return converted
    return {"value": converted}


def to_text(value: Any) -> Optional[str]:
    """A non-empty, well-formed string, or ``None`` (the service refuses empty strings)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    text = well_formed(text)
    return text or None


def json_list(values: List[Any]) -> List[Any]:
    """A list converted entry by entry."""
    return [_convert(entry, 2, set()) for entry in values]
