"""sinpe.reference: what the numbers are.

The mpmath reference (:mod:`.mpref`), certified enclosures and correctly rounded values
(:mod:`.certified`, :mod:`.rounding`), golden vectors (:mod:`.golden`), the bundled NumPy and
PyTorch implementations and their certification, and the third-party checker.
"""
