"""Golden vectors: the package data in this folder (cases, tables, manifest, schema) and the code that
generates, loads and self-certifies them (:mod:`.vectors`).
"""
from sinpe.reference.golden.vectors import generate  # noqa: F401  (the generator named in every golden file)
