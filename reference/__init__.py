"""sinpe.reference: what the numbers are, and checking others'.

Subpackages, one job each: :mod:`.numerics` (rounding, positions), :mod:`.oracles` (mpmath, intervals,
Arb, fast double-double), :mod:`.golden` (golden vectors), :mod:`.implementations` (bundled NumPy and
PyTorch implementations and their certification), :mod:`.checking` (load, check, detect),
:mod:`.conformance` (the pytest entry point), :mod:`.chapter` (the seed-chapter audit),
:mod:`.testing` (the bug catalogue) and :mod:`.cli` (one thin module per command).
"""
