"""The audit of the seed chapter's claims (:mod:`.audit`).
"""
