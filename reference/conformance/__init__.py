"""Conformance tests a third party runs in its own CI: ``pytest --pyargs sinpe.reference.conformance``."""
