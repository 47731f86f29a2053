"""Where the tests find the data that sits beside a development checkout (``../shared``), if any.

A user's clone has no ``shared`` folder: the tests that need it skip, saying so.
"""

from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
WMT17 = SHARED / "data" / "wmt17-en-de"
PEER_CASES = SHARED / "peer-cases"
