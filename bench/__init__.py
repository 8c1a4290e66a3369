"""Benchmarks: run with `make bench` or `python -m bench`; never part of the test suite."""
