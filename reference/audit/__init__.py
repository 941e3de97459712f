"""The audit of the seed chapter: the verdict of each of its claims (:mod:`.claims`) and its figures
(:mod:`.figures`).
"""
