"""The case files' JSON schema (``golden-v1.schema.json``, SPEC.md REQ-GOLDEN-SCHEMA) and the provenance block
every golden file carries (which oracles, which library versions)."""
from __future__ import annotations

from typing import Any

import numpy as np

from sinpe.reference.oracles.interval import DIGITS
from sinpe.spec import VALUES_VERSION
from sinpe.spec.formats import FORMATS
from sinpe.spec.profiles import PRESETS
from sinpe.spec.schema import validate as _schema_validate

from .contents import FLAGS, RELEASE_DATES, SCHEMA_NAME


def versions() -> dict[str, str]:
    import flint
    import gmpy2
    import mpmath
    return {"mpmath": mpmath.__version__, "gmpy2": gmpy2.version(), "python-flint": flint.__version__,
            "flint": getattr(flint, "__FLINT_VERSION__", "?"), "numpy": np.__version__}


def provenance() -> dict[str, Any]:
    v = versions()
    return {
        "specVersion": VALUES_VERSION,
        "dateReleased": RELEASE_DATES.get(VALUES_VERSION, "unreleased"),
        "generator": "sinpe golden (sinpe.reference.golden.generate)",
        "primary": {"method": "mpmath libmpi interval arithmetic on spec/definition.py, midpoint-radius "
                              "sin/cos, both ends rounded to nearest-even, precision doubled until they agree (Ziv)",
                    "library": f"mpmath {v['mpmath']} (gmpy2 {v['gmpy2']})"},
        "oracle": {"method": "Arb ball arithmetic on spec/definition.py, Ziv (sinpe.reference.oracles.arb)",
                   "library": f"python-flint {v['python-flint']} (FLINT {v['flint']})"},
        "crossChecked": "every value, every format, and every 40-digit decimal; zero disagreements",
    }


def schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12 subset) of a case file; written as ``golden-v1.schema.json``."""
    case = {
        "type": "object",
        "required": ["id", "position", "column", "label", "hex", "decimal", "flags"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
            "position": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"},
            "column": {"type": "integer", "minimum": 0},
            "label": {"type": "string", "pattern": "^(sin[0-9]+|cos[0-9]+|zero)$"},
            "hex": {"type": "string", "pattern": "^-?(0x[01](\\.[0-9a-f]+)?p[-+][0-9]+|inf)$"},
            "decimal": {"type": "string", "pattern": f"^(0|-?[1-9]\\.[0-9]{{{DIGITS - 1},}}e-?[0-9]+)$"},
            "flags": {"type": "array", "items": {"type": "string", "enum": sorted(FLAGS)}},
        },
    }
    group = {
        "type": "object",
        "required": ["profile", "params", "d", "dtype", "format", "provenance", "tests"],
        "additionalProperties": False,
        "properties": {
            "profile": {"type": "string", "enum": list(PRESETS)},
            "params": {"type": "object", "required": ["layout", "shift", "base", "phase_scale", "amplitude",
                                                       "offset", "odd"]},
            "d": {"type": "integer", "minimum": 1},
            "dtype": {"type": "string", "enum": [f.dtype for f in FORMATS.values()]},
            "format": {"type": "string", "enum": list(FORMATS)},
            "provenance": {"type": "object", "required": ["primary", "oracle", "crossChecked"]},
            "tests": {"type": "array", "items": case, "minItems": 1},
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"sinpe/golden/{SCHEMA_NAME}",
        "title": "sinpe golden vectors, schema version 1 (SPEC.md REQ-GOLDEN-SCHEMA)",
        "type": "object",
        "required": ["schema", "algorithm", "specVersion", "dateReleased", "numberOfTests", "flags",
                     "provenance", "testGroups"],
        "additionalProperties": False,
        "properties": {
            "schema": {"type": "string", "const": SCHEMA_NAME},
            "algorithm": {"type": "string"},
            "specVersion": {"type": "string"},
            "dateReleased": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "numberOfTests": {"type": "integer", "minimum": 1},
            "flags": {"type": "object"},
            "notes": {"type": "string"},
            "provenance": {"type": "object", "required": ["primary", "oracle", "crossChecked"]},
            "testGroups": {"type": "array", "items": group, "minItems": 1},
        },
    }


validate = _schema_validate  # the one validator of sinpe's JSON data (spec/schema.py)
