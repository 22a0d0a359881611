"""Benchmarks (run as modules, e.g. ``python -m benchmarks.easy_scale``)."""
