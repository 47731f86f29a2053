"""The parts of ``scripts/bench.py``: shared constants, contenders, inputs, timing and workloads."""
