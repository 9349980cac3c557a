"""Error responses: every 4xx says what to fix, and nothing leaks a traceback.

FastAPI's 422 body keeps its shape (a `detail` list of loc/msg/type), but each `msg`
is rewritten to name the field, say what is wrong and give the allowed values, which
are read from the same pydantic constraints that produced the error.
"""

from __future__ import annotations

import logging
import types
import typing
from enum import Enum
from typing import Any

import annotated_types as at
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from starlette.exceptions import HTTPException as StarletteHTTPException

from advisor.storage.store import StoreUnavailable

log = logging.getLogger("api")

_FASTAPI_BODY_ERROR = "There was an error parsing the body"
INTERNAL_ERROR = "Internal error; it has been logged. Please retry, and report it if it persists."


def install(app: FastAPI) -> None:
    """Register the handlers on app."""
    # Starlette types a handler's exception as Exception; these take the class they are registered for
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(StoreUnavailable, store_unavailable)
    app.add_exception_handler(Exception, unexpected_error)


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    route = request.scope.get("route")
    items = [_readable(route, e) for e in exc.errors()]
    content_type = request.headers.get("content-type", "")
    if "json" not in content_type and any(i["loc"] == ["body"] for i in items):
        for item in items:
            if item["loc"] == ["body"]:
                item["msg"] += f" (sent as {content_type or 'no Content-Type'}; send Content-Type: application/json)"
    return JSONResponse(status_code=422, content={"detail": items})


async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if exc.status_code == 400 and exc.detail == _FASTAPI_BODY_ERROR:
        # FastAPI's answer to a body it cannot decode (not UTF-8, say): report it like
        # any other malformed JSON, a 422 that says what to send
        cause = exc.__cause__
        why = f"{type(cause).__name__}: {cause}" if cause else "undecodable"
        issue = {
            "loc": ["body"],
            "msg": f"body: not valid JSON ({why}); send a UTF-8 JSON object",
            "type": "json_invalid",
        }
        return JSONResponse(status_code=422, content={"detail": [issue]})
    headers = getattr(exc, "headers", None)
    return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail}, headers=headers)


async def store_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """PostgreSQL (or the SQLite file) cannot be reached: a 503 that says so; the next
    request tries again."""
    log.warning("%s %s: %s", request.method, request.url.path, exc)
    return JSONResponse(status_code=503, content={"detail": f"{exc}; retry shortly"}, headers={"Retry-After": "5"})


async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    """Last resort: log the traceback here, send the client a JSON 500 without it."""
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse(status_code=500, content={"detail": INTERNAL_ERROR})


# ------------------------------------------------------------------- readable messages


def _readable(route: Any, error: dict[str, Any]) -> dict[str, Any]:
    loc = [p if isinstance(p, int) else str(p) for p in error.get("loc", ())]
    kind = str(error.get("type", "value_error"))
    try:
        loc, msg = _message(route, loc, kind, error)
    except Exception:  # a message we cannot improve must not turn a 422 into a 500
        log.debug("could not rewrite validation error %r", error, exc_info=True)
        msg = str(error.get("msg", "invalid value"))
    return {"loc": loc, "msg": msg, "type": kind}


def _message(route: Any, loc: list[str | int], kind: str, error: dict[str, Any]) -> tuple[list[str | int], str]:
    msg = str(error.get("msg", "invalid value"))
    ctx = error.get("ctx") or {}
    value = error.get("input")
    field_path = [p for p in loc[1:] if isinstance(p, str)]
    name = ".".join(str(p) for p in loc[1:]) or str(loc[0] if loc else "body")

    if kind == "json_invalid":
        return (
            loc,
            f"body: not valid JSON ({ctx.get('error', 'decode error')} at character {loc[-1]}); send a JSON object",
        )
    if kind == "value_error":
        # model validators phrase their own message as "<field>: what to do"
        text = msg.removeprefix("Value error, ")
        head = text.split(":", 1)[0]
        if head.isidentifier() and not field_path:
            loc = [*loc, head]
        return loc, text if head.isidentifier() else f"{name}: {text}"

    info = _field_info(route, loc)
    allowed = _allowed(info)
    hint = f"; allowed: {allowed}" if allowed else ""
    if kind == "missing":
        if loc == ["body"]:
            return loc, f"body: required; send a JSON object{_object_hint(route, loc)}"
        return loc, f"{name}: required{hint}"
    if kind == "extra_forbidden":
        fields = _model_fields(route, loc[:-1])
        known = f"; known fields: {', '.join(fields)}" if fields else ""
        return loc, f"{name}: unknown field{known}"
    if kind in _COMPARISONS:
        key, phrase = _COMPARISONS[kind]
        bound = ctx.get(key)
        problem = f"must be {phrase} {_num(bound)}" if bound is not None else _lower(msg)
        return loc, f"{name}: {problem} (got {_show(value)}){hint}"
    if kind in _LENGTHS:
        key, phrase = _LENGTHS[kind]
        bound = ctx.get(key)
        unit = ("character" if kind.startswith("string") else "item") + ("" if bound == 1 else "s")
        problem = f"must be {phrase} {_num(bound)} {unit}" if bound is not None else _lower(msg)
        got = f" (got {len(value):,})" if isinstance(value, (str, list)) else ""
        return loc, f"{name}: {problem}{got}{hint}"
    if kind in {"model_attributes_type", "dict_type", "model_type"} and not field_path:
        return loc, f"{name}: send a JSON object{_object_hint(route, loc)}"
    return loc, f"{name}: {_lower(msg)} (got {_show(value)}){hint}"


_COMPARISONS = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}


_LENGTHS = {
    "string_too_short": ("min_length", "at least"),
    "string_too_long": ("max_length", "at most"),
    "too_short": ("min_length", "at least"),
    "too_long": ("max_length", "at most"),
}


def _num(value: Any) -> str:
    """1000000 -> '1,000,000'; 1e12 -> '1,000,000,000,000'; 0.5 stays 0.5."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, (int, float)) else str(value)


def _lower(msg: str) -> str:
    """Pydantic's "Input should be ..." reads on after "field: " as "input should be ..."."""
    first = msg.split(" ", 1)[0]
    return msg[:1].lower() + msg[1:] if first.istitle() else msg


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _object_hint(route: Any, loc: list[str | int]) -> str:
    fields = _model_fields(route, loc)
    return f" with the fields {', '.join(fields)}" if fields else ""


def _field_info(route: Any, loc: list[str | int]) -> FieldInfo | None:
    """The pydantic field an error location points at, when the route declares it."""
    if not loc or route is None:
        return None
    where, path = loc[0], [p for p in loc[1:] if isinstance(p, str)]
    if where in {"query", "path", "header"} and path:
        dependant = getattr(route, "dependant", None)
        params = getattr(dependant, f"{where}_params", []) if dependant else []
        for param in params:
            if param.alias == path[0]:
                declared: FieldInfo = param.field_info
                return declared
        return None
    if where != "body" or not path:
        return None
    model = _body_model(route)
    info = None
    for part in path:
        if model is None or part not in model.model_fields:
            return None
        info = model.model_fields[part]
        model = _as_model(info.annotation)
    return info


def _model_fields(route: Any, loc: list[str | int]) -> list[str]:
    """Field names of the object at loc (the body, or a nested model in it)."""
    if not loc or loc[0] != "body":
        return []
    model = _body_model(route)
    for part in (p for p in loc[1:] if isinstance(p, str)):
        if model is None or part not in model.model_fields:
            return []
        model = _as_model(model.model_fields[part].annotation)
    return list(model.model_fields) if model else []


def _body_model(route: Any) -> type[BaseModel] | None:
    body = getattr(route, "body_field", None)
    return _as_model(body.field_info.annotation) if body is not None else None


def _as_model(annotation: Any) -> type[BaseModel] | None:
    """The model inside `Model`, `Model | None` or `Optional[Model]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        for arg in typing.get_args(annotation):
            model = _as_model(arg)
            if model is not None:
                return model
    return None


def _allowed(info: FieldInfo | None) -> str:
    """The allowed values of a field in words, from its constraints or its enum."""
    if info is None:
        return ""
    low: Any = None
    high: Any = None
    low_open = high_open = False
    min_len = max_len = None
    for item in info.metadata:
        if isinstance(item, at.Ge):
            low = item.ge
        elif isinstance(item, at.Gt):
            low, low_open = item.gt, True
        elif isinstance(item, at.Le):
            high = item.le
        elif isinstance(item, at.Lt):
            high, high_open = item.lt, True
        elif isinstance(item, at.MinLen):
            min_len = item.min_length
        elif isinstance(item, at.MaxLen):
            max_len = item.max_length
        else:  # pydantic's own constraint holders carry the same attributes
            min_len = getattr(item, "min_length", None) or min_len
            max_len = getattr(item, "max_length", None) or max_len
    if min_len is not None or max_len is not None:
        return (
            f"{min_len or 0:,} to {max_len:,} characters" if max_len is not None else f"at least {min_len:,} characters"
        )
    if low is not None or high is not None:
        parts = []
        if low is not None:
            parts.append(f"more than {_num(low)}" if low_open else f"at least {_num(low)}")
        if high is not None:
            parts.append(f"less than {_num(high)}" if high_open else f"at most {_num(high)}")
        if not low_open and not high_open and low is not None and high is not None:
            return f"{_num(low)} to {_num(high)}"
        return " and ".join(parts)
    enum = _enum_of(info.annotation)
    if enum is not None:
        return ", ".join(str(m.value) for m in enum)
    return ""


def _enum_of(annotation: Any) -> type[Enum] | None:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return annotation
    for arg in typing.get_args(annotation):
        found = _enum_of(arg)
        if found is not None:
            return found
    return None
