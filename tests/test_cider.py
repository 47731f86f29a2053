"""CIDEr-D against pycocoevalcap 1.2's ``Cider().compute_score``: captions of tie-prone vocabularies (2 to 4
words), empty captions and references, one to many references, long captions; rows of ids equal to their
strings (ignored ids, EOS, absent references); options and bad input refused with advice.

The default run keeps a few examples of each; ``--slow`` adds more and longer ones.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import CIDErConfig, CIDErScore, Detokenizer, corpus_cider, sentence_cider
from torch_bleu.errors import InputError

cider = pytest.importorskip("pycocoevalcap.cider.cider")


def reference_scores(captions: list[str], references: list[list[str]], **options: float) -> tuple[float, list[float]]:
    """pycocoevalcap's corpus score and per-image scores, the images numbered in order; 0 where no reference
    has a word (pycocoevalcap then fails on an empty ``max``)."""
    if not any(ref.split() for refs in references for ref in refs):
        return 0.0, [0.0] * len(captions)
    gts = {image: refs for image, refs in enumerate(references)}
    res = {image: [caption] for image, caption in enumerate(captions)}
    score, scores = cider.Cider(**options).compute_score(gts, res)
    return float(score), [float(value) for value in scores]


def assert_as_pycocoevalcap(captions: list[str], references: list[list[str]], **options: float) -> None:
    expected_corpus, expected = reference_scores(captions, references, **options)
    sigma = {"sigma": options["sigma"]} if "sigma" in options else {}
    scores = sentence_cider(captions, references, **sigma)
    assert scores.dtype == torch.float64 and scores.shape == (len(captions),)
    assert scores.tolist() == pytest.approx(expected, abs=1e-12, rel=1e-12)
    corpus = corpus_cider(captions, references, **sigma)
    assert corpus.dtype == torch.float64 and corpus.dim() == 0
    assert corpus.item() == pytest.approx(expected_corpus, abs=1e-12, rel=1e-12)


def captions_of(vocabulary: list[str], longest: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(vocabulary), max_size=longest).map(" ".join)


@st.composite
def corpora(draw: st.DrawFn, longest: int = 8) -> tuple[list[str], list[list[str]]]:
    """Images of a 2- to 4-word vocabulary (many ties, shared n-grams, n-grams in every image), each with a
    caption and one to five references, any of them empty."""
    vocabulary = ["a", "b", "c", "dog"][: draw(st.integers(2, 4))]
    sentences = captions_of(vocabulary, longest)
    images = draw(st.integers(1, 6))
    captions = draw(st.lists(sentences, min_size=images, max_size=images))
    references = draw(st.lists(st.lists(sentences, min_size=1, max_size=5), min_size=images, max_size=images))
    return captions, references


@settings(max_examples=400, deadline=None)
@given(corpora())
def test_as_pycocoevalcap(corpus: tuple[list[str], list[list[str]]]) -> None:
    assert_as_pycocoevalcap(*corpus)


@settings(max_examples=100, deadline=None)
@given(corpora(), st.sampled_from([0.5, 1, 20.0]))
def test_sigma_as_pycocoevalcap(corpus: tuple[list[str], list[list[str]]], sigma: float) -> None:
    assert_as_pycocoevalcap(*corpus, sigma=sigma)


@pytest.mark.parametrize("longest", [60, pytest.param(400, marks=pytest.mark.slow)])
def test_long_captions(longest: int) -> None:
    words = ["a", "b", "c", "d", "e", "f"]
    generator = torch.Generator().manual_seed(longest)

    def caption() -> str:
        length = int(torch.randint(0, longest + 1, (), generator=generator))
        return " ".join(words[int(i)] for i in torch.randint(0, len(words), (length,), generator=generator))

    captions = [caption() for _ in range(20)]
    references = [[caption() for _ in range(1 + image % 5)] for image in range(20)]
    assert_as_pycocoevalcap(captions, references)


@pytest.mark.parametrize("images", [200, pytest.param(2000, marks=pytest.mark.slow)])
def test_many_images(images: int) -> None:
    """A corpus the size of a validation split's slice: 50 words, five references per image."""
    generator = torch.Generator().manual_seed(images)

    def caption() -> str:
        length = int(torch.randint(0, 16, (), generator=generator))
        return " ".join(f"w{int(i)}" for i in torch.randint(0, 50, (length,), generator=generator))

    assert_as_pycocoevalcap([caption() for _ in range(images)], [[caption() for _ in range(5)] for _ in range(images)])


def test_whitespace_and_edges() -> None:
    """Words split on any whitespace; one image (every weight 0); empty captions; repeated images."""
    assert_as_pycocoevalcap(["a  dog\tran\n", "", " "], [["a dog ran", " a\u3000dog "], ["a"], ["", ""]])
    assert_as_pycocoevalcap(["a dog"], [["a dog", "a cat"]])
    assert_as_pycocoevalcap(["", " "], [["a b"], ["c", "a"]])  # no caption has a word
    assert_as_pycocoevalcap(["a b", "a b"], [["a b"], ["a b"]])


def test_no_image() -> None:
    assert sentence_cider([], []).shape == (0,)
    assert corpus_cider([], []).item() == 0.0


def words_of(rows: torch.Tensor, eos: int) -> list[str]:
    """The strings rows of ids stand for: ids 1 and 2 ignored, each row cut at ``eos``."""
    texts = []
    for row in rows.tolist():
        kept = row[: row.index(eos)] if eos in row else row
        texts.append(" ".join(str(token) for token in kept if token not in (1, 2)))
    return texts


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_ids_as_strings(data: st.DataObject) -> None:
    """Padded ids ``(B, L)`` and ``(B, R, L)``: ignored ids dropped, rows cut at EOS; of several references, those
    left empty are absent (unless all are, when the first counts as one empty reference)."""
    batch, references, width = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 4)), data.draw(st.integers(0, 7))
    values = st.integers(1, 6)  # 1, 2 ignored, 3 EOS
    preds = torch.tensor(
        data.draw(st.lists(st.lists(values, min_size=width, max_size=width), min_size=batch, max_size=batch)),
        dtype=torch.int64,
    ).reshape(batch, width)
    target = torch.tensor(
        data.draw(
            st.lists(
                st.lists(st.lists(values, min_size=width, max_size=width), min_size=references, max_size=references),
                min_size=batch,
                max_size=batch,
            )
        ),
        dtype=torch.int64,
    ).reshape(batch, references, width)
    captions = words_of(preds, 3)
    ref_texts = [words_of(rows, 3) for rows in target]
    if references > 1:
        ref_texts = [[text for text in texts if text] or [""] for texts in ref_texts]
    options = {"ignore_ids": [1, 2], "eos_id": 3}
    expected = sentence_cider(captions, ref_texts)
    assert sentence_cider(preds, target, **options).tolist() == pytest.approx(expected.tolist(), abs=1e-12)
    assert corpus_cider(preds, target, **options).item() == pytest.approx(corpus_cider(captions, ref_texts).item())


def test_ragged_ids_as_strings() -> None:
    preds = [[5, 6, 7], []]
    target = [[[5, 6], [7, 5, 6, 7]], [[8]]]
    expected = sentence_cider(["5 6 7", ""], [["5 6", "7 5 6 7"], ["8"]])
    assert sentence_cider(preds, target).tolist() == expected.tolist()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sigma": -1.0}, "sigma must be a positive number"),
        ({"sigma": True}, "sigma must be a positive number"),
        ({"n": 4}, "always of 1 to 4 words"),
        ({"ignore_ids": [0]}, "ignore_ids applies to rows of token ids"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        sentence_cider(["a b"], [["a b"]], **options)


@pytest.mark.parametrize(
    ("preds", "target", "message"),
    [
        (["a b", "c"], [["a b"]], "batch sizes differ: 2 != 1"),
        (["a b"], [[]], "every hypothesis needs at least one reference"),
        (["a b"], [["a", None]], "each reference is a string"),
        (["a b"], [[[5]]], "CIDEr scores strings, or rows of ids"),
        ("a b", ["a b"], "preds must be a list of strings"),
        (torch.tensor([[1.0]]), torch.tensor([[1]]), "integer token ids"),
    ],
)
def test_bad_input(preds: object, target: object, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        sentence_cider(preds, target)


def test_subword_ids_refused() -> None:
    with pytest.raises(ValueError, match="decode them and pass strings"):
        CIDErConfig(detokenizer=Detokenizer((b"", b"a"), "per_byte"))


def test_ids_on_meta() -> None:
    """Ids are counted on their device with no value read back: on ``meta`` the functions give scores of the
    right shape, and ``update()`` keeps the rows."""
    ids = torch.zeros((2, 3), dtype=torch.int64, device="meta")
    scores = sentence_cider(ids, ids.reshape(2, 1, 3), ignore_ids=[0])
    assert scores.device.type == "meta" and scores.shape == (2,) and scores.dtype == torch.float64
    metric = CIDErScore(ignore_ids=[0])
    metric.update(ids, ids)
    assert metric.tokens[0].device.type == "meta"


def test_metric_over_updates() -> None:
    """Images added over several updates score as one call of the functions, forward gives the batch's score,
    and a rejected update changes nothing."""
    captions, references = ["a b c", "b c", "", "c a b b"], [["a b", "c"], ["b c a"], ["a"], ["c a", "b b", ""]]
    metric = CIDErScore()
    assert metric(captions[:2], references[:2]).item() == pytest.approx(
        corpus_cider(captions[:2], references[:2]).item()
    )
    metric.update(captions[2:], references[2:])
    with pytest.raises(InputError, match="either strings or rows of ids"):
        metric.update(torch.tensor([[1]]), torch.tensor([[1]]))
    assert metric.image_scores().tolist() == sentence_cider(captions, references).tolist()
    assert metric.compute().item() == corpus_cider(captions, references).item()
    metric.reset()
    with pytest.warns(UserWarning, match="before the ``update``"):
        assert metric.compute().item() == 0.0


def test_metric_of_ids_and_merged_states() -> None:
    """Rows of ids as their strings; two metrics' states merged (as DDP concatenates them) as one metric (the
    images in the order torchmetrics concatenates them: the incoming first)."""
    preds, target = torch.tensor([[5, 6, 0], [7, 0, 0]]), torch.tensor([[[5, 6, 7], [6, 0, 0]], [[7, 5, 0], [0, 0, 0]]])
    first, second = CIDErScore(ignore_ids=[0]), CIDErScore(ignore_ids=[0])
    first.update(preds[:1], target[:1])
    second.update(preds[1:], target[1:])
    first.merge_state(second)
    expected = sentence_cider(["5 6", "7"], [["5 6 7", "6"], ["7 5"]])
    assert first.image_scores().tolist() == expected.flip(0).tolist()
    assert first.compute().item() == pytest.approx(expected.mean().item(), abs=1e-15)


def test_metric_options() -> None:
    assert CIDErScore(sigma=3.0).config.sigma == 3.0
    with pytest.raises(TypeError, match="always of 1 to 4 words"):
        CIDErScore(n=4)  # type: ignore[call-arg]


DDP_CAPTIONS = ["a b c", "b c", "", "c a b b", "a a", "b"]
DDP_REFERENCES = [["a b", "c"], ["b c a"], ["a"], ["c a", "b b", ""], ["a"], ["b", "a b"]]
#: Ids past float32's whole numbers, which a state synced as float32 would merge.
LARGE = 2**40
DDP_IDS = torch.tensor([[5, 6, 0], [7, 0, 0], [6, 6, 5]])
DDP_ID_TARGET = torch.tensor([[[5, 6, 7], [6, 0, 0]], [[7, 5, 0], [0, 0, 0]], [[6, 5, 0], [6, 6, 0]]])
DDP_IDS, DDP_ID_TARGET = (torch.where(ids > 0, ids + LARGE, 0) for ids in (DDP_IDS, DDP_ID_TARGET))


def _cider_on_rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    torch.set_num_threads(1)
    timeout = timedelta(seconds=60)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timeout)
    text, ids = CIDErScore(), CIDErScore(ignore_ids=[0])
    text.update(DDP_CAPTIONS[rank::world_size], DDP_REFERENCES[rank::world_size])
    if rank == 0:  # the other rank adds no image: its states stay empty
        ids.update(DDP_IDS, DDP_ID_TARGET)
    torch.save({"text": text.compute().item(), "ids": ids.compute().item()}, Path(out_dir) / f"rank{rank}.pt")
    dist.destroy_process_group()


@pytest.mark.slow
@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")
def test_ddp_ranks_give_the_single_process_score(tmp_path: Path) -> None:
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(
        _cider_on_rank, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, start_method=start_method
    )
    order = [0, 2, 4, 1, 3, 5]  # rank 0's images, then rank 1's
    text = corpus_cider([DDP_CAPTIONS[i] for i in order], [DDP_REFERENCES[i] for i in order]).item()
    ids = corpus_cider(DDP_IDS, DDP_ID_TARGET, ignore_ids=[0]).item()
    assert ids != corpus_cider(DDP_IDS.float().long(), DDP_ID_TARGET.float().long(), ignore_ids=[0]).item()
    for rank in range(2):
        seen = torch.load(tmp_path / f"rank{rank}.pt")
        assert seen["text"] == pytest.approx(text, abs=1e-15)
        assert seen["ids"] == pytest.approx(ids, abs=1e-15)


def test_ptb_tokenized_raw_captions() -> None:
    """``tokenize="ptb"`` scores raw captions as their PTB tokens (references and captions tokenized apart, as
    ``COCOEvalCap`` does), in the functions and the metric; ids are words already."""
    from torch_bleu import ptb_tokenize

    captions = ["A dog runs on the grass.", "A cat, sleeping!"]
    references = [["A dog running on grass.", "The dog runs."], ["A cat is sleeping.", "The cat's asleep."]]
    tokenized = ptb_tokenize(captions), [ptb_tokenize(refs) for refs in references]
    expected = sentence_cider(*tokenized)
    assert sentence_cider(captions, references, tokenize="ptb").tolist() == expected.tolist()
    metric = CIDErScore(tokenize="ptb")
    metric.update(captions, references)
    assert metric.compute().item() == pytest.approx(expected.mean().item(), abs=1e-12)
    with pytest.raises(InputError, match="rows of ids are words already"):
        sentence_cider(torch.tensor([[1, 2]]), torch.tensor([[[1, 2]]]), tokenize="ptb")
    with pytest.raises(ValueError, match="tokenize takes 'none'"):
        CIDErScore(tokenize="13a")  # type: ignore[arg-type]
