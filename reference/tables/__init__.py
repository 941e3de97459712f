"""Correctly rounded position tables at NumPy speed (SPEC.md REQ-TABLE-FAST, REQ-TABLE-API, REQ-TABLE-STREAM)."""
from sinpe.reference.tables.build import correctly_rounded_block, table, table_torch, write_table

__all__ = ["table", "table_torch", "write_table", "correctly_rounded_block"]
