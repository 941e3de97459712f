"""Checking third-party tables and callables: loading them (:mod:`.loaders`), the conformance check
(:mod:`.check`) and naming the variant a table implements (:mod:`.detect`).
"""
