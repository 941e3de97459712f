"""The engine of the application check (SPEC.md REQ-CHECK-APPLY, DEF-ROPE-APPLY, TOL-APPLY), one concern per module:

- :mod:`.inputs` -- the queries, keys and positions sinpe builds, and what each convention passes;
- :mod:`.call` -- calling the function under a convention (in process, or in the isolated child);
- :mod:`.exact` -- the exact rotation, its binary64 error and TOL-APPLY's bound;
- :mod:`.diagnose` -- the known bugs replayed as hypotheses (the cause of a failure), and THM-ROPE-REL.

The check itself is the application kind's (:mod:`sinpe.reference.checking.kinds.application`).
"""
