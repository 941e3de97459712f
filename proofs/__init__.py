"""sinpe.proofs: why it holds. SymPy proofs of the theorems stated in sinpe.spec."""
