"""The per-sentence functions trace into one graph with ``torch.compile(fullgraph=True)`` and equal eager.

The graphs are captured with the ``eager`` backend, which checks what ``fullgraph=True`` demands (no
graph break, no host sync, no data-dependent Python branch) in about a second per case; generating
code with inductor takes half a minute per graph on a 2-core CPU, so it is left out here.
"""

from __future__ import annotations

import pytest
import torch

from torch_bleu import sentence_bleu, sentence_statistics

# The engine caches a few constant tensors with functools.lru_cache; a traced graph computes them
# instead, which dynamo mentions once per function.
pytestmark = pytest.mark.filterwarnings("ignore:Dynamo detected a call to a `functools.lru_cache`")

OPTIONS = [
    {"ignore_ids": [0]},
    {"ignore_ids": [0], "smoothing": "exp", "effective_order": True},
    {"smoothing": "floor", "ref_length": "shortest"},
    {"smoothing": "add-k", "smooth_value": 2.0, "max_order": 2},
    {"weights": (0.5, 0.3, 0.2)},
    {"convention": "nltk", "ignore_ids": [0]},
    {"convention": "nltk", "smoothing": "method4"},
    {"convention": "nltk", "smoothing": "method6", "max_order": 3},
    {"convention": "nltk", "smoothing": "method7", "ignore_ids": [0]},
]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def batch(references: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(references)
    preds = torch.randint(3, 9, (6, 10), generator=generator)
    preds[:, 7:] = 0
    target = torch.randint(3, 9, (6, references, 12), generator=generator)
    target[:, :, 9:] = 0
    return preds, target


@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()))
def test_sentence_bleu_compiles_to_one_graph_and_equals_eager(options):
    preds, target = batch(references=3)
    compiled = torch.compile(sentence_bleu, fullgraph=True, backend="eager")
    assert torch.equal(compiled(preds, target, **options), sentence_bleu(preds, target, **options))


def test_sentence_statistics_compiles_to_one_graph_and_equals_eager():
    preds, target = batch(references=1)
    compiled = torch.compile(sentence_statistics, fullgraph=True, backend="eager")
    for ours, eager in zip(compiled(preds, target, ignore_ids=[0]), sentence_statistics(preds, target, ignore_ids=[0])):
        assert torch.equal(ours, eager)
