"""The per-sentence functions trace into one graph with ``torch.compile(fullgraph=True)`` and equal eager,
and ``BLEUScore(compile=...)`` compiles a few graphs for a loop of varying widths and equals the eager metric.

The graphs are captured with the ``eager`` backend, which checks what ``fullgraph=True`` demands (no
graph break, no host sync, no data-dependent Python branch) in about a second per case; generating
code with inductor takes half a minute per graph on a 2-core CPU, so it is left out here.
"""

from __future__ import annotations

import copy
import pickle

import pytest
import torch
from strategies import Draws

from torch_bleu import BLEUScore, bleu_statistics, sentence_bleu

OPTIONS = [
    {"ignore_ids": [0], "eos_id": 5},
    {"ignore_ids": [0], "smoothing": "exp", "effective_order": True},
    {"smoothing": "floor", "ref_length": "shortest"},
    {"smoothing": "add-k", "smooth_value": 2.0, "max_order": 2},
    {"weights": (0.5, 0.3, 0.2)},
    {"convention": "nltk", "ignore_ids": [0]},
    {"convention": "nltk", "smoothing": "method4"},
    {"convention": "nltk", "smoothing": "method6", "max_order": 3},
    {"convention": "nltk", "smoothing": "method7", "ignore_ids": [0]},
]


#: Two of the options compile by default (ids to ignore with an EOS, and an nltk smoothing); all with --slow.
QUICK_OPTIONS = (OPTIONS[0], OPTIONS[8])
CPU_OPTIONS = [
    pytest.param(
        options,
        marks=() if options in QUICK_OPTIONS else pytest.mark.slow,
        id="-".join(f"{k}={v}" for k, v in options.items()),
    )
    for options in OPTIONS
]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def batch(references: int) -> tuple[torch.Tensor, torch.Tensor]:
    draws = Draws(references)
    preds = draws.randint(3, 9, (6, 10))
    preds[:, 7:] = 0
    target = draws.randint(3, 9, (6, references, 12))
    target[:, :, 9:] = 0
    return preds, target


@pytest.mark.parametrize("options", CPU_OPTIONS)
def test_sentence_bleu_compiles_to_one_graph_and_equals_eager(options):
    preds, target = batch(references=3)
    compiled = torch.compile(sentence_bleu, fullgraph=True, backend="eager")
    assert torch.equal(compiled(preds, target, **options), sentence_bleu(preds, target, **options))


def test_sentence_statistics_compiles_to_one_graph_and_equals_eager():
    preds, target = batch(references=1)
    compiled = torch.compile(bleu_statistics, fullgraph=True, backend="eager")
    for ours, eager in zip(compiled(preds, target, ignore_ids=[0]), bleu_statistics(preds, target, ignore_ids=[0])):
        assert torch.equal(ours, eager)


STATES = ("numerator", "denominator", "preds_len", "target_len")


class GraphCounter:
    """A ``torch.compile`` backend that runs the captured graph as it is and counts the graphs."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, graph: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
        self.graphs += 1
        return graph.forward


@pytest.mark.parametrize(
    "options",
    [
        {"ignore_ids": [0], "eos_id": [4, 5]},
        pytest.param({"convention": "nltk", "smoothing": "method1"}, marks=pytest.mark.slow),
    ],
)
def test_compiled_metric_buckets_widths_and_equals_eager(options):
    """Widths from 5 to 300 (and a smaller last batch) take at most 8 graphs; every state equals eager's."""
    backend = GraphCounter()
    eager, compiled = BLEUScore(**options), BLEUScore(**options, compile={"backend": backend})
    draws = Draws(0)
    for width, size in [
        (5, 16),
        (6, 16),
        (9, 16),
        (17, 16),
        (31, 16),
        (33, 16),
        (65, 16),
        (129, 16),
        (250, 16),
        (300, 16),
        (300, 3),
    ]:
        preds = draws.randint(0, 6, (size, width))
        target = draws.randint(0, 6, (size, 2, width + 2))
        eager.update(preds, target)
        compiled.update(preds, target)
    assert backend.graphs <= 8
    assert all(torch.equal(getattr(eager, name), getattr(compiled, name)) for name in STATES)
    assert compiled.compute().item() == eager.compute().item()


def test_compiled_metric_takes_ragged_input_and_weights():
    backend = GraphCounter()
    eager, compiled = BLEUScore(), BLEUScore(compile={"backend": backend})
    hyps, refs = [[4, 5, 6, 7], [0], []], [[[4, 5, 6], [4, 5, 6, 7]], [[0, 0]], [[]]]
    weight = torch.tensor([2, 1, 1], dtype=torch.uint8)
    for metric in (eager, compiled):
        metric.update(hyps, refs, weight=weight)
        metric.update(torch.tensor([[4, 5, 6]]), torch.tensor([[4, 5, 6, 0]]))
    assert all(torch.equal(getattr(eager, name), getattr(compiled, name)) for name in STATES)


def test_compile_option_is_checked_and_a_compiled_metric_copies():
    with pytest.raises(TypeError, match="compile"):
        BLEUScore(compile="max-autotune")
    metric = BLEUScore(compile={"backend": "eager"})
    metric.update(torch.tensor([[4, 5, 6, 7]]), torch.tensor([[4, 5, 6, 7]]))
    copied = copy.deepcopy(metric)
    assert copied.compute().item() == metric.compute().item() == 1.0
    assert pickle.loads(pickle.dumps(metric)).compile_options == {"backend": "eager"}


cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@cuda
@pytest.mark.parametrize("options", OPTIONS[:6], ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()))
def test_sentence_bleu_compiles_with_inductor_on_cuda_and_equals_eager(options):
    preds, target = (tensor.cuda() for tensor in batch(references=3))
    compiled = torch.compile(sentence_bleu, fullgraph=True)
    # inductor fuses the float arithmetic of the score: equal to the last bits
    torch.testing.assert_close(
        compiled(preds, target, **options), sentence_bleu(preds, target, **options), rtol=1e-14, atol=0
    )


@cuda
@pytest.mark.parametrize("compile_options", [True, {"mode": "reduce-overhead"}], ids=["default", "cuda-graphs"])
def test_compiled_metric_on_cuda_equals_eager_without_host_syncs(compile_options):
    eager = BLEUScore(ignore_ids=[0]).cuda()
    compiled = BLEUScore(ignore_ids=[0], compile=compile_options).cuda()
    draws = Draws(1)
    batches = [
        (
            draws.randint(0, 6, (16, width)),
            draws.randint(0, 6, (16, 1, width + 1)),
        )
        for width in (5, 6, 20, 40, 41)
    ]
    for preds, target in batches:  # compiles (and records CUDA graphs) for each width bucket
        compiled.update(preds.cuda(), target.cuda())
    torch.cuda.set_sync_debug_mode("error")
    try:
        for preds, target in batches:
            compiled.update(preds.cuda(), target.cuda())
    finally:
        torch.cuda.set_sync_debug_mode(0)
    for preds, target in batches + batches:
        eager.update(preds.cuda(), target.cuda())
    assert all(torch.equal(getattr(eager, name), getattr(compiled, name)) for name in STATES)
