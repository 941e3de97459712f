"""Golden vectors: the package data in this folder (cases, tables, manifest, schema), the manifest that every file
is checked against (:mod:`.manifest`), the 1-D vectors (:mod:`.vectors`: generated, loaded, self-certified) and
the grids' and rotary caches' (:mod:`.angles_vectors`).
"""
from sinpe.reference.golden.vectors import generate  # noqa: F401  (the generator named in every golden file)
