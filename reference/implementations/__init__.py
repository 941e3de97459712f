"""The bundled NumPy (:mod:`.numpy_impl`) and PyTorch (:mod:`.torch_impl`) implementations and their
certification against the oracles (:mod:`.certify`).
"""
