"""CIDEr-D against pycocoevalcap 1.2's ``Cider().compute_score``: captions of tie-prone vocabularies (2 to 4
words), empty captions and references, one to many references, long captions; rows of ids equal to their
strings (ignored ids, EOS, absent references, ``count_eos``), over many updates of their own widths and reference
counts; options and bad input refused with advice. ``CIDErScore``'s life cycle (forward, clone, merged, saved and
loaded states, reset; rejected updates change no state), ids on ``meta``, and two gloo ranks (one of them empty, with
and without a training corpus' document frequencies) scoring as one process.

The default run keeps a few examples of each; ``--slow`` adds more and longer ones.
"""

from __future__ import annotations

import io
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import as_words
from strategies import caption_corpora, seeded_captions

from torch_bleu import (
    CIDErConfig,
    CIDErScore,
    Detokenizer,
    DocumentFrequency,
    cider_document_frequency,
    corpus_cider,
    sentence_cider,
)
from torch_bleu.errors import InputError
from torch_bleu.metrics.cider.metric import STATE_TYPES

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


@settings(max_examples=400, deadline=None)
@given(caption_corpora())
def test_as_pycocoevalcap(corpus: tuple[list[str], list[list[str]]]) -> None:
    assert_as_pycocoevalcap(*corpus)


@settings(max_examples=100, deadline=None)
@given(caption_corpora(), st.sampled_from([0.5, 1, 20.0]))
def test_sigma_as_pycocoevalcap(corpus: tuple[list[str], list[list[str]]], sigma: float) -> None:
    assert_as_pycocoevalcap(*corpus, sigma=sigma)


@pytest.mark.parametrize("longest", [60, pytest.param(400, marks=pytest.mark.slow)])
def test_long_captions(longest: int) -> None:
    caption = seeded_captions(longest, ["a", "b", "c", "d", "e", "f"], longest)
    captions = [caption() for _ in range(20)]
    references = [[caption() for _ in range(1 + image % 5)] for image in range(20)]
    assert_as_pycocoevalcap(captions, references)


@pytest.mark.parametrize("images", [200, pytest.param(2000, marks=pytest.mark.slow)])
def test_many_images(images: int) -> None:
    """A corpus the size of a validation split's slice: 50 words, five references per image."""
    caption = seeded_captions(images, [f"w{number}" for number in range(50)], 15)
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
    captions = [as_words(row, {1, 2}, 3) for row in preds.tolist()]
    ref_texts = [[as_words(row, {1, 2}, 3) for row in rows] for rows in target.tolist()]
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


# --- rows of ids over updates, the metric's life cycle and DDP -------------------------------------------------------

#: The options of rows of ids below: 0 pads (ignored), 2 ends a row.
ID_OPTIONS: dict[str, object] = {"ignore_ids": [0], "eos_id": 2}
STATE_NAMES = tuple(STATE_TYPES)
IdBatch = tuple[torch.Tensor, torch.Tensor]


def kept_text(row: list[int], count_eos: bool = False) -> tuple[str, bool]:
    """A row of ids (0 ignored, 2 its end) as the string it stands for (the EOS a word with ``count_eos``), and
    whether it has a word before its EOS (else, beside other references, it is absent)."""
    kept = [token for token in row if token != 0]
    end = kept.index(2) if 2 in kept else len(kept)
    words = kept[: end + 1] if count_eos else kept[:end]
    return " ".join(str(token) for token in words), end > 0


def texts_of(preds: torch.Tensor, target: torch.Tensor, count_eos: bool = False) -> tuple[list[str], list[list[str]]]:
    """Padded ids ``(B, L)`` and ``(B, R, L)`` as strings: of several references, those with no word are absent
    (all of them: the first counts, as one reference)."""
    captions = [kept_text(row, count_eos)[0] for row in preds.tolist()]
    references = []
    for rows in target.tolist():
        texts = [kept_text(row, count_eos) for row in rows]
        references.append([text for text, has_words in texts if has_words] or [texts[0][0]])
    return captions, references


def concatenated(batches: list[IdBatch]) -> IdBatch:
    """Batches of ids of any widths and reference counts as one, padded with 0 (ignored ids; rows of them are
    absent references)."""
    width = max([preds.shape[1] for preds, _ in batches] + [target.shape[2] for _, target in batches])
    references = max(target.shape[1] for _, target in batches)
    preds = torch.cat([torch.nn.functional.pad(preds, (0, width - preds.shape[1])) for preds, _ in batches])
    target = torch.cat(
        [
            torch.nn.functional.pad(target, (0, width - target.shape[2], 0, references - target.shape[1]))
            for _, target in batches
        ]
    )
    return preds, target


def states_of(metric: CIDErScore) -> dict[str, list[torch.Tensor]]:
    """Copies of every state of ``metric`` (each a list of tensors)."""
    return {name: [value.clone() for value in getattr(metric, name)] for name in STATE_NAMES}


def assert_same_states(seen: dict[str, list[torch.Tensor]], expected: dict[str, list[torch.Tensor]]) -> None:
    assert seen.keys() == expected.keys()
    for name in expected:
        assert len(seen[name]) == len(expected[name]), name
        for value, expected_value in zip(seen[name], expected[name]):
            assert value.dtype == expected_value.dtype == STATE_TYPES[name], name
            assert torch.equal(value, expected_value), name


def id_rows(width: int) -> st.SearchStrategy[list[int]]:
    """Rows of ids 0 to 6 (0 ignored, 2 EOS), some of nothing but 0."""
    return st.one_of(st.lists(st.integers(0, 6), min_size=width, max_size=width), st.just([0] * width))


@st.composite
def id_batches(draw: st.DrawFn) -> IdBatch:
    """A batch of padded ids: its own number of images and references, and widths of its captions and references."""
    images, references = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    preds_width, target_width = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    preds = draw(st.lists(id_rows(preds_width), min_size=images, max_size=images))
    target = draw(
        st.lists(
            st.lists(id_rows(target_width), min_size=references, max_size=references), min_size=images, max_size=images
        )
    )
    return (
        torch.tensor(preds, dtype=torch.int64).reshape(images, preds_width),
        torch.tensor(target, dtype=torch.int64).reshape(images, references, target_width),
    )


@settings(max_examples=120, deadline=None)
@given(st.lists(id_batches(), min_size=1, max_size=4), st.booleans())
def test_ids_over_updates_as_pycocoevalcap(batches: list[IdBatch], count_eos: bool) -> None:
    """Batches of ids of their own widths and reference counts, added one by one: ``compute()`` is pycocoevalcap's
    score of their strings, ``image_scores()`` the functions' scores of all the strings at once."""
    metric = CIDErScore(**ID_OPTIONS, count_eos=count_eos)  # type: ignore[arg-type]
    captions: list[str] = []
    references: list[list[str]] = []
    for preds, target in batches:
        metric.update(preds, target)
        batch_captions, batch_references = texts_of(preds, target, count_eos)
        captions += batch_captions
        references += batch_references
    expected_corpus, expected = reference_scores(captions, references)
    assert metric.image_scores().tolist() == pytest.approx(sentence_cider(captions, references).tolist(), abs=1e-12)
    assert metric.image_scores().tolist() == pytest.approx(expected, abs=1e-12)
    assert metric.compute().item() == pytest.approx(expected_corpus, abs=1e-12)
    together = corpus_cider(*concatenated(batches), **ID_OPTIONS, count_eos=count_eos)  # type: ignore[arg-type]
    assert metric.compute().item() == pytest.approx(together.item(), abs=1e-12)


def test_counted_eos_as_a_word() -> None:
    """``count_eos=True``: each row's EOS is one more word of it, as self-critical training writes its sentences;
    a reference of nothing but EOS and ignored ids is still absent beside others."""
    preds = torch.tensor([[5, 6, 2, 0], [7, 2, 5, 5], [5, 5, 0, 0]])
    target = torch.tensor(
        [[[5, 6, 2, 0], [2, 0, 0, 0], [6, 2, 0, 0]], [[7, 5, 2, 0], [0, 0, 0, 0], [0, 2, 0, 0]], [[2, 0, 0, 0]] * 3]
    )
    captions, references = texts_of(preds, target, count_eos=True)
    assert captions == ["5 6 2", "7 2", "5 5"] and references == [["5 6 2", "6 2"], ["7 5 2"], ["2"]]
    options = {**ID_OPTIONS, "count_eos": True}
    expected_corpus, expected = reference_scores(captions, references)
    assert sentence_cider(preds, target, **options).tolist() == pytest.approx(expected, abs=1e-12)  # type: ignore[arg-type]
    metric = CIDErScore(**options)  # type: ignore[arg-type]
    metric.update(preds[:1], target[:1])
    metric.update(preds[1:2, :2], target[1:2, :2, :3])  # narrower, two references
    metric.update(preds[2:], target[2:])
    assert metric.compute().item() == pytest.approx(expected_corpus, abs=1e-12)
    assert metric.image_scores().tolist() == pytest.approx(expected, abs=1e-12)


LIFE_IDS = [
    (torch.tensor([[5, 6, 0], [7, 2, 5]]), torch.tensor([[[5, 6, 7], [0, 0, 0]], [[7, 5, 2], [6, 6, 0]]])),
    (torch.tensor([[6, 5, 7, 7, 0]]), torch.tensor([[[6, 5, 7, 0, 0]]])),
    (torch.tensor([[7], [5]]), torch.tensor([[[7, 6], [5, 0], [0, 0]], [[5, 6], [2, 5], [6, 0]]])),
]
LIFE_TEXT = [(["a b c", "b c"], [["a b", "c"], ["b c a"]]), ([""], [["a"]]), (["c a b b"], [["c a", "b b", ""]])]
LIFE_BATCHES: dict[str, list[tuple[Any, Any]]] = {"ids": LIFE_IDS, "strings": LIFE_TEXT}


def life_metric(kind: str, updates: int = 2) -> CIDErScore:
    metric = CIDErScore(**ID_OPTIONS) if kind == "ids" else CIDErScore()  # type: ignore[arg-type]
    for preds, target in LIFE_BATCHES[kind][:updates]:
        metric.update(preds, target)
    return metric


def expected_scores(kind: str, batches: list[tuple[Any, Any]]) -> torch.Tensor:
    """``sentence_cider`` of the images of ``batches`` at once."""
    if kind == "ids":
        return sentence_cider(*concatenated(batches), **ID_OPTIONS)  # type: ignore[arg-type]
    return sentence_cider([caption for preds, _ in batches for caption in preds], [r for _, t in batches for r in t])


@pytest.mark.parametrize("kind", ["ids", "strings"])
def test_metric_life_cycle(kind: str) -> None:
    """``forward`` gives the batch's own score and keeps its images; a clone goes on alone; states merged, saved
    and loaded (when made persistent) score as the images of both; ``reset()`` empties every state."""
    batches = LIFE_BATCHES[kind]
    metric = life_metric(kind, updates=0)
    for index, (preds, target) in enumerate(batches):
        batch_score = metric(preds, target)
        assert batch_score.item() == pytest.approx(expected_scores(kind, [batches[index]]).mean().item(), abs=1e-12)
    every = expected_scores(kind, batches)
    assert metric.image_scores().tolist() == pytest.approx(every.tolist(), abs=1e-12)
    assert metric.compute().item() == pytest.approx(every.mean().item(), abs=1e-12)

    first_two, clone = life_metric(kind), life_metric(kind).clone()
    clone.update(*batches[2])
    assert_same_states(states_of(first_two), states_of(life_metric(kind)))
    assert clone.compute().item() == pytest.approx(every.mean().item(), abs=1e-12)

    last = life_metric(kind, updates=0)
    last.update(*batches[2])
    last.merge_state(first_two)  # the incoming images first
    assert_same_states(states_of(last), states_of(metric))
    assert last.compute().item() == pytest.approx(every.mean().item(), abs=1e-12)
    assert "tokens" not in first_two.state_dict()  # states are not saved unless asked
    first_two.persistent(True)
    buffer = io.BytesIO()
    torch.save(first_two.state_dict(), buffer)
    buffer.seek(0)
    resumed = life_metric(kind, updates=0)
    resumed.load_state_dict(torch.load(buffer))
    assert_same_states(states_of(resumed), states_of(first_two))
    resumed.update(*batches[2])
    assert resumed.image_scores().tolist() == pytest.approx(every.tolist(), abs=1e-12)

    metric.reset()
    assert all(getattr(metric, name) == [] for name in STATE_NAMES)
    metric.update(*batches[2])
    assert metric.compute().item() == pytest.approx(expected_scores(kind, batches[2:]).mean().item(), abs=1e-12)


def test_reset_metric_takes_the_other_kind() -> None:
    metric = CIDErScore()
    metric.update(*LIFE_TEXT[0])
    metric.reset()
    metric.update(torch.tensor([[5, 6]]), torch.tensor([[[5, 6], [6, 5]]]))
    assert metric.compute().item() == corpus_cider(["5 6"], [["5 6", "6 5"]]).item()


def test_states_of_both_kinds_refused_when_scored() -> None:
    """Strings merged into a metric of ids (as from a rank given strings) are refused when scored."""
    ids = life_metric("ids")
    ids.merge_state(life_metric("strings"))
    with pytest.raises(InputError, match="give every rank one kind"):
        ids.compute()


REJECTED_UPDATES = {
    "ids": [
        ((torch.tensor([[5.0, 6.0]]), torch.tensor([[[5, 6]]])), "integer token ids"),
        ((torch.tensor([[5, 6], [7, 8]]), torch.tensor([[[5, 6]]])), "batch sizes differ"),
        ((torch.tensor([[[5, 6]]]), torch.tensor([[[5, 6]]])), "preds must be 2-D"),
        ((torch.tensor([[5, 6]]), torch.tensor([[[[5, 6]]]])), "target must be 2-D"),
        ((["5 6"], [["5 6"]]), "ignore_ids applies to rows of token ids"),
    ],
    "strings": [
        ((["a b", "c"], [["a b"]]), "batch sizes differ: 2 != 1"),
        ((["a b"], [[]]), "every hypothesis needs at least one reference"),
        ((["a b"], [["a", None]]), "each reference is a string"),
        ((torch.tensor([[5, 6]]), torch.tensor([[[5, 6]]])), "either strings or rows of ids"),
    ],
}


@pytest.mark.parametrize(
    ("kind", "batch", "message"),
    [(kind, batch, message) for kind, cases in REJECTED_UPDATES.items() for batch, message in cases],
)
def test_rejected_update_keeps_the_states(kind: str, batch: tuple[object, object], message: str) -> None:
    metric = life_metric(kind)
    before = states_of(metric)
    with pytest.raises((ValueError, TypeError), match=message):
        metric.update(*batch)
    assert_same_states(states_of(metric), before)
    assert metric.compute().item() == pytest.approx(expected_scores(kind, LIFE_BATCHES[kind][:2]).mean().item())


@pytest.mark.parametrize(
    ("options", "kept", "refused", "message"),
    [
        ({"tokenize": "ptb"}, LIFE_TEXT[0], LIFE_IDS[0], "rows of ids are words already"),
        (ID_OPTIONS, LIFE_IDS[0], LIFE_TEXT[0], "ignore_ids applies to rows of token ids"),
        ({"eos_id": 2, "count_eos": True}, LIFE_IDS[0], LIFE_TEXT[0], "eos_id applies to rows of token ids"),
        ({}, LIFE_IDS[0], LIFE_TEXT[0], "either strings or rows of ids"),
    ],
)
def test_update_refused_by_options_keeps_the_states(
    options: dict[str, object], kept: tuple[object, object], refused: tuple[object, object], message: str
) -> None:
    """Input the options refuse (ids with PTB tokenization, strings with ids' options, strings after ids)."""
    metric = CIDErScore(**options)  # type: ignore[arg-type]
    metric.update(*kept)
    before = states_of(metric)
    with pytest.raises(InputError, match=message):
        metric.update(*refused)
    assert_same_states(states_of(metric), before)


def test_update_of_ids_on_meta_keeps_every_state_there() -> None:
    preds, target = (torch.empty(shape, dtype=torch.int64, device="meta") for shape in ((3, 4), (3, 2, 5)))
    metric = CIDErScore(**ID_OPTIONS, count_eos=True)  # type: ignore[arg-type]
    metric.update(preds, target)
    metric.update(preds[:1, :2], target[:1, :1])
    assert metric.text == []
    for name in ("tokens", "widths", "lengths", "present", "is_caption"):
        assert len(getattr(metric, name)) == 2
        assert all(value.device.type == "meta" and value.dtype == STATE_TYPES[name] for value in getattr(metric, name))
    assert metric.tokens[0].shape == (3 * 3 * 5,) and metric.lengths[1].shape == (2,)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_update_of_ids_on_cuda_reads_nothing_back() -> None:
    preds, target = LIFE_IDS[2]
    metric = CIDErScore(**ID_OPTIONS)  # type: ignore[arg-type]
    preds, target = preds.cuda(), target.cuda()
    metric.update(preds, target)  # the first call may set up constants
    torch.cuda.set_sync_debug_mode("error")
    try:
        metric.update(preds, target)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert metric.compute().item() == pytest.approx(expected_scores("ids", [LIFE_IDS[2]] * 2).mean().item())


def large(ids: torch.Tensor) -> torch.Tensor:
    """Ids past 2 (the words) moved past float32's whole numbers."""
    return torch.where(ids > 2, ids + LARGE, ids)


#: Each rank's batches of ids (0 pads, 2 ends a row; the words past float32's whole numbers), of their own widths
#: and reference counts.
DDP_ID_BATCHES = [
    [
        (torch.tensor([[5, 6, 0], [7, 2, 5]]), torch.tensor([[[5, 6, 7], [0, 0, 0]], [[7, 5, 2], [6, 6, 0]]])),
        (torch.tensor([[6, 5, 7, 7, 2]]), torch.tensor([[[6, 5, 7, 0, 0], [5, 5, 2, 6, 0], [0, 0, 0, 0, 0]]])),
    ],
    [(torch.tensor([[7, 6, 5, 0], [5, 0, 0, 0]]), torch.tensor([[[7, 6, 0, 0]], [[5, 6, 5, 2]]]))],
]
DDP_ID_BATCHES = [[(large(preds), large(target)) for preds, target in rank] for rank in DDP_ID_BATCHES]
DDP_LATER = (large(torch.tensor([[6, 6, 2]])), large(torch.tensor([[[6, 6, 0]]])))
#: Which ranks add their batches.
DDP_ID_CASES = {"both ranks": (0, 1), "rank 0 only": (0,), "rank 1 only": (1,)}


def ddp_frequency() -> DocumentFrequency:
    """A training corpus' document frequencies: the references of every rank, and an image of other words."""
    batches = [batch for rank in DDP_ID_BATCHES for batch in rank]
    references = concatenated([*batches, (torch.tensor([[9]]), torch.tensor([[[9, 8 + LARGE]]]))])[1]
    return cider_document_frequency(references, **ID_OPTIONS)  # type: ignore[arg-type]


def _cider_ids_on_rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    torch.set_num_threads(1)
    timeout = timedelta(seconds=60)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timeout)
    scores = {}
    for frequency in (None, ddp_frequency()):
        for case, ranks in DDP_ID_CASES.items():
            metric = CIDErScore(**ID_OPTIONS, document_frequency=frequency)  # type: ignore[arg-type]
            for batch in DDP_ID_BATCHES[rank] if rank in ranks else []:
                metric.update(*batch)
            scores[case, frequency is not None] = metric.compute().item()
            if case == "rank 0 only":  # every rank adds an image after a first sync (one had nothing before)
                metric.update(*DDP_LATER)
                scores["later", frequency is not None] = metric.compute().item()
    torch.save(scores, Path(out_dir) / f"rank{rank}.pt")
    dist.destroy_process_group()


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")
def test_ddp_ranks_of_ids_give_the_single_process_score(tmp_path: Path) -> None:
    """Two gloo ranks adding ids of their own widths and reference counts (or nothing), with the images' own
    document frequencies or a training corpus': every rank's ``compute()`` scores the images of both at once."""
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(
        _cider_ids_on_rank, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, start_method=start_method
    )
    seen = [torch.load(tmp_path / f"rank{rank}.pt") for rank in range(2)]
    frequency = ddp_frequency()
    cases = {case: [batch for rank in ranks for batch in DDP_ID_BATCHES[rank]] for case, ranks in DDP_ID_CASES.items()}
    cases["later"] = [*DDP_ID_BATCHES[0], DDP_LATER, DDP_LATER]
    for case, batches in cases.items():
        for with_frequency in (False, True):
            options = {**ID_OPTIONS, "document_frequency": frequency if with_frequency else None}
            expected = corpus_cider(*concatenated(batches), **options).item()  # type: ignore[arg-type]
            for rank in range(2):
                assert seen[rank][case, with_frequency] == pytest.approx(expected, abs=1e-12), (case, rank)
    assert seen[0]["both ranks", True] != seen[0]["both ranks", False]
