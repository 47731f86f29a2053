"""What every test shares: hypothesis runs without per-example deadlines.

A 2-core CI machine shared with other jobs stalls now and then; a deadline would turn a slow example
into a failure that says nothing about correctness. Shared strategies and paths live in
``tests/strategies.py`` and ``tests/shared_data.py`` (pytest advises against importing conftest).
"""

from hypothesis import settings

settings.register_profile("torch-bleu", deadline=None)
settings.load_profile("torch-bleu")
