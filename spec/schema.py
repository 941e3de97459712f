"""The JSON-schema subset sinpe's data files are written in (golden vectors, survey results): one validator.

Supported keywords: ``type`` (a name or a list), ``const``, ``enum``, ``pattern``, ``minimum``,
``required``, ``properties``, ``additionalProperties`` (false or a schema), ``items``, ``minItems``,
``$ref`` to ``#/$defs/NAME``. Anything else in a schema is ignored, so schemas stay readable by
standard tools (the schema is the source, as in Wycheproof).

>>> validate({"a": 1}, {"type": "object", "required": ["a", "b"]})
["$: missing required property 'b'"]
>>> validate([1, True], {"type": "array", "items": {"type": "integer"}})
['$[1]: expected integer, got bool']
"""
from __future__ import annotations

import re
from typing import Any

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
MAX_ERRORS = 20


def _is_type(x: Any, t: str) -> bool:
    if t == "integer":
        return isinstance(x, int) and not isinstance(x, bool)
    if t == "number":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    return isinstance(x, _TYPES[t])


def validate(doc: Any, schema: dict[str, Any], where: str = "$", root: dict[str, Any] | None = None) -> list[str]:
    """Errors of ``doc`` against ``schema`` (at most about :data:`MAX_ERRORS`); an empty list means valid."""
    root = schema if root is None else root
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(doc, t) for t in types):
            return [f"{where}: expected {'/'.join(types)}, got {type(doc).__name__}"]
    errs: list[str] = []
    if "const" in schema and doc != schema["const"]:
        errs.append(f"{where}: must be {schema['const']!r}")
    if "enum" in schema and doc not in schema["enum"]:
        errs.append(f"{where}: {doc!r} not one of {schema['enum']}")
    if "pattern" in schema and isinstance(doc, str) and not re.search(schema["pattern"], doc):
        errs.append(f"{where}: {doc!r} does not match {schema['pattern']}")
    if "minimum" in schema and _is_type(doc, "number") and doc < schema["minimum"]:
        errs.append(f"{where}: {doc} < {schema['minimum']}")
    if isinstance(doc, dict):
        errs += [f"{where}: missing required property {k!r}" for k in schema.get("required", []) if k not in doc]
        props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        for k, v in doc.items():
            if k in props:
                errs += validate(v, props[k], f"{where}.{k}", root)
            elif extra is False:
                errs.append(f"{where}: unexpected property {k!r}")
            elif isinstance(extra, dict):
                errs += validate(v, extra, f"{where}.{k}", root)
    if isinstance(doc, list):
        if len(doc) < schema.get("minItems", 0):
            errs.append(f"{where}: fewer than {schema['minItems']} items")
        for i, v in enumerate(doc if "items" in schema else []):
            errs += validate(v, schema["items"], f"{where}[{i}]", root)
            if len(errs) > MAX_ERRORS:
                break
    return errs
