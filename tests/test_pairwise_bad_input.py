"""Bad input to the pairwise functions gets an InputError that says what is wrong, and ``mbr_select``
follows its rule for undefined and equal means: checked against a plain Python reference (sorted values,
``math.fsum``) on random utilities with NaN and infinities."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from torch_bleu import Detokenizer, mbr_select, pairwise_bleu, pairwise_chrf, self_bleu
from torch_bleu.errors import InputError
from torch_bleu.pairwise.selection import expected_utilities
from torch_bleu.text.tokenizers import TOKENIZERS

nan, inf = math.nan, math.inf
DETOKENIZER = Detokenizer((b"", b"ab", b"c"), "per_byte")
IDS = torch.tensor([[[1, 2, 0], [2, 2, 1]], [[1, 1, 1], [0, 0, 0]]])

id_shapes = st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 5))
integer_dtypes = st.sampled_from([torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8])
float_dtypes = st.sampled_from([torch.float16, torch.bfloat16, torch.float32, torch.float64])


def _raises(message: str):
    """``pytest.raises`` of an :class:`InputError` whose message is ``message``, word for word."""
    return pytest.raises(InputError, match=f"^{re.escape(message)}$")


# bool and other non-integer ids


@given(shape=id_shapes)
def test_bool_ids_are_refused_as_candidates_and_references(shape):
    flags = torch.ones(shape, dtype=torch.bool)
    ids = torch.ones(shape, dtype=torch.int64)
    with _raises("candidates must hold integer token ids, got dtype torch.bool"):
        pairwise_bleu(flags)
    with _raises("references must hold integer token ids, got dtype torch.bool"):
        pairwise_bleu(ids, flags)
    with _raises("candidates must hold integer token ids, got dtype torch.bool"):
        self_bleu(flags)
    with _raises("candidates must hold integer token ids, got dtype torch.bool"):
        pairwise_chrf(flags, detokenizer=DETOKENIZER)
    with _raises("references must hold integer token ids, got dtype torch.bool"):
        pairwise_chrf(ids, flags, detokenizer=DETOKENIZER)


@given(dtype=float_dtypes, shape=id_shapes)
def test_float_ids_are_refused_with_a_hint(dtype, shape):
    message = f"candidates must hold integer token ids, got dtype {dtype}; if these are token ids stored as floats, "
    with _raises(message + "pass candidates.long()"):
        pairwise_bleu(torch.ones(shape, dtype=dtype))
    with _raises(f"references must hold integer token ids, got dtype {torch.complex64}"):
        pairwise_bleu(torch.ones(shape, dtype=torch.int64), torch.ones(shape, dtype=torch.complex64))


@given(dtype=integer_dtypes)
def test_every_integer_dtype_scores_as_int64(dtype):
    expected = pairwise_bleu(IDS, ignore_ids=[0], max_order=2)
    torch.testing.assert_close(pairwise_bleu(IDS.to(dtype), ignore_ids=[0], max_order=2), expected, equal_nan=True)
    chrf = pairwise_chrf(IDS, detokenizer=DETOKENIZER, ignore_ids=[0])
    torch.testing.assert_close(pairwise_chrf(IDS.to(dtype), detokenizer=DETOKENIZER, ignore_ids=[0]), chrf)


@given(dims=st.lists(st.integers(0, 3), max_size=5).filter(lambda dims: len(dims) != 3))
def test_ids_of_other_shapes_are_refused(dims):
    ids = torch.ones(dims, dtype=torch.int64)
    message = "candidates as ids must be an (S, N, L) integer tensor (sources, candidates, length), got a "
    with _raises(f"{message}torch.int64 tensor of shape {tuple(dims)}"):
        pairwise_bleu(ids)
    with _raises(f"{message}torch.int64 tensor of shape {tuple(dims)}"):
        pairwise_chrf(ids, detokenizer=DETOKENIZER)


# tokenize= with plain ids


@given(tokenize=st.sampled_from(TOKENIZERS))
def test_tokenize_with_plain_ids_is_refused(tokenize):
    message = (
        "candidates must be a list with a list of strings per source, got a torch.int64 tensor of shape (2, 2, 3): "
        "with tokenize=, BLEU scores strings; for token ids leave tokenize=None, for subword ids pass detokenizer="
    )
    with _raises(message):
        pairwise_bleu(IDS, tokenize=tokenize)
    with _raises(message):
        pairwise_bleu(IDS, IDS, tokenize=tokenize)
    with _raises(message):
        self_bleu(IDS, tokenize=tokenize)


def test_tokenize_goes_with_a_detokenizer_and_strings_need_a_tokenizer():
    decoded = pairwise_bleu(IDS, detokenizer=DETOKENIZER, ignore_ids=[0], tokenize="char", max_order=2)
    texts = [["abc", "ccab"], ["ababab", ""]]
    torch.testing.assert_close(decoded, pairwise_bleu(texts, tokenize="char", max_order=2))
    with pytest.raises(InputError, match=r"^pairwise BLEU of strings with tokenize=None: to score strings, pass"):
        pairwise_bleu(texts, tokenize=None)


# what mbr_select takes

UTILITIES = (
    "utilities must be a floating (S, N, M) tensor (sources, candidates, references) or (S, N) expected utilities, got "
)


@given(dims=st.lists(st.integers(0, 3), max_size=5).filter(lambda dims: len(dims) not in (2, 3)), dtype=float_dtypes)
def test_mbr_select_refuses_other_shapes(dims, dtype):
    message = UTILITIES + "a "
    with _raises(f"{message}{dtype} tensor of shape {tuple(dims)}"):
        mbr_select(torch.zeros(dims, dtype=dtype))


@given(shape=id_shapes, dtype=st.sampled_from([torch.bool, torch.int32, torch.int64, torch.complex64]))
def test_mbr_select_refuses_other_dtypes(shape, dtype):
    message = UTILITIES + "a "
    with _raises(f"{message}{dtype} tensor of shape {shape}"):
        mbr_select(torch.zeros(shape, dtype=dtype))


def test_mbr_select_refuses_what_is_not_a_tensor():
    message = UTILITIES
    with _raises(message + "a list ([[[1.0]]])"):
        mbr_select([[[1.0]]])
    with _raises(message + "a NumPy array of float64 of shape (1, 2, 2)"):
        mbr_select(np.zeros((1, 2, 2)))
    with _raises(message + "a NoneType (None)"):
        mbr_select(None)
    assert issubclass(InputError, ValueError)


# mbr_select's means: a Python reference


def reference_mean(row: list[float]) -> float:
    """The mean of ``row``'s numbers (NaN left out), exactly rounded; NaN where it is undefined."""
    values = sorted(value for value in row if not math.isnan(value))
    if not values or (inf in values and -inf in values):
        return nan
    if inf in values or -inf in values:
        return inf if inf in values else -inf
    return math.fsum(values) / len(values)


def reference_select(utilities: list[list[list[float]]]) -> list[int]:
    """Per source, the first candidate of the highest defined mean, or -1."""
    chosen = []
    for rows in utilities:
        means = [reference_mean(row) for row in rows]
        defined = [index for index, mean in enumerate(means) if not math.isnan(mean)]
        chosen.append(max(defined, key=lambda index: (means[index], -index)) if defined else -1)
    return chosen


@st.composite
def utility_lists(draw, values, max_candidates=5):
    """``(S, N, M)`` nested lists of ``values``, and their shape (which an empty list does not tell)."""
    shape = (draw(st.integers(0, 3)), draw(st.integers(0, max_candidates)), draw(st.integers(0, 5)))
    row = st.lists(values, min_size=shape[2], max_size=shape[2])
    rows = st.lists(row, min_size=shape[1], max_size=shape[1])
    return draw(st.lists(rows, min_size=shape[0], max_size=shape[0])), shape


def _tensor(lists, shape, dtype=torch.float64):
    return torch.tensor(lists, dtype=dtype).reshape(shape)


# multiples of 1/4 add up exactly in any order, so the reference's means are those of any sum
exact_values = st.one_of(st.integers(-8, 8).map(lambda quarters: quarters / 4), st.sampled_from([nan, inf, -inf]))
any_values = st.floats(allow_nan=True, allow_infinity=True)
# values whose sums round differently in different orders
rounding_values = st.one_of(st.sampled_from([0.1, 0.2, 0.3, 0.7, 1.0, 3.0, 1e16, -1e16]), any_values)


@given(drawn=utility_lists(exact_values), dtype=st.sampled_from([torch.float32, torch.float64]))
def test_mbr_select_is_the_reference_on_exact_values(drawn, dtype):
    lists, shape = drawn
    assert mbr_select(_tensor(lists, shape, dtype)).tolist() == reference_select(lists)


@given(drawn=utility_lists(st.floats(-1, 1)))
def test_expected_utilities_are_the_reference_means(drawn):
    lists, shape = drawn
    expected = [[reference_mean(row) for row in rows] for rows in lists]
    got = expected_utilities(_tensor(lists, shape))
    torch.testing.assert_close(got, _tensor(expected, shape[:2]), rtol=0, atol=1e-12, equal_nan=True)


@given(drawn=utility_lists(rounding_values), random=st.randoms(use_true_random=False))
def test_permuting_rows_changes_neither_means_nor_the_choice(drawn, random):
    lists, shape = drawn
    shuffled = [[random.sample(row, len(row)) for row in rows] for rows in lists]
    utilities, permuted = _tensor(lists, shape), _tensor(shuffled, shape)
    torch.testing.assert_close(
        expected_utilities(permuted), expected_utilities(utilities), rtol=0, atol=0, equal_nan=True
    )
    assert torch.equal(mbr_select(permuted), mbr_select(utilities))


@given(drawn=utility_lists(rounding_values, max_candidates=3), random=st.randoms(use_true_random=False))
def test_the_first_of_candidates_with_the_same_values_wins(drawn, random):
    lists, shape = drawn
    # every candidate again, its values in another order: a copy never wins over its original
    doubled = [rows + [random.sample(row, len(row)) for row in rows] for rows in lists]
    chosen = mbr_select(_tensor(doubled, (shape[0], 2 * shape[1], shape[2]))).tolist()
    assert all(index < shape[1] for index in chosen)
    assert chosen == mbr_select(_tensor(lists, shape)).tolist()


@given(drawn=utility_lists(any_values))
def test_an_undefined_mean_never_wins(drawn):
    lists, shape = drawn
    utilities = _tensor(lists, shape)
    means = expected_utilities(utilities)
    for source, index in enumerate(mbr_select(utilities).tolist()):
        defined = [mean for mean in means[source].tolist() if not math.isnan(mean)]
        if index == -1:
            assert not defined
            continue
        best = means[source, index].item()
        assert best == max(defined)
        assert all(mean != best for mean in means[source, :index].tolist())


def test_undefined_means_lose_even_to_minus_infinity():
    assert mbr_select(torch.tensor([[[nan, nan], [-inf, -inf]]])).tolist() == [1]
    assert mbr_select(torch.tensor([[[inf, -inf], [-inf, 0.0]], [[-inf, -inf], [-inf, nan]]])).tolist() == [1, 0]
    assert mbr_select(torch.tensor([[[inf, -inf], [nan, nan]]])).tolist() == [-1]
    assert mbr_select(torch.zeros((2, 0, 3))).tolist() == [-1, -1]
    assert mbr_select(torch.zeros((2, 3, 0))).tolist() == [-1, -1]
    assert mbr_select(torch.zeros((0, 3, 2))).tolist() == []


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_mbr_select_waits_for_no_device():
    utilities = torch.rand((4, 6, 5), dtype=torch.float64, device="cuda")
    utilities[0, 2] = nan
    utilities[1, :, 3] = -inf
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        chosen = mbr_select(utilities)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert chosen.tolist() == reference_select(utilities.tolist())


# strings where strings go, ids where ids go


def test_entries_that_are_not_strings_are_named():
    with _raises("candidates of source 0 must be strings, got a NoneType (None)"):
        pairwise_chrf([[None]])
    with _raises(
        "candidates of source 0 must be strings, got an int (1); "
        "token ids go in an (S, N, L) integer tensor (sources, candidates, length), padded"
    ):
        pairwise_chrf([[1, 2]])
    with _raises(
        "references of source 1 must be strings, got a list ([4, 5]); "
        "token ids go in an (S, M, L) integer tensor (sources, references, length), padded"
    ):
        pairwise_bleu([["a"], ["b"]], [["a"], ["b", [4, 5]]])
    with _raises(
        "candidates must be a list with a list of strings per source, got a str ('a') for source 0; "
        "if these are the candidates of one source, wrap them in a list: [['a', 'b']]"
    ):
        pairwise_chrf(["a", "b"])
    with _raises(
        "candidates must be a list with a list of strings per source, got a str ('a b c') for source 0; "
        "if these are the candidates of one source, wrap them in a list: [['a b c', 'a b d', 'a', ...]]"
    ):
        self_bleu(["a b c", "a b d", "a", "b"])
    with _raises(
        "references must be a list with a list of strings per source, got a torch.int64 tensor of shape (2, 2, 3); "
        "candidates and references must both be strings or both be id tensors"
    ):
        pairwise_bleu([["a"], ["b"]], IDS)


@given(shape=id_shapes, dtype=st.sampled_from([np.int32, np.int64, np.uint16, np.bool_, np.float32]))
def test_numpy_ids_point_to_a_tensor(shape, dtype):
    array = np.zeros(shape, dtype=dtype)
    kind = f"a NumPy array of {array.dtype} of shape {shape}"
    candidates = f"candidates as ids must be an (S, N, L) integer torch tensor, got {kind}: pass torch.as_tensor("
    with _raises(candidates + "candidates)"):
        pairwise_bleu(array)
    with _raises(candidates + "candidates)"):
        pairwise_chrf(array, detokenizer=DETOKENIZER)
    with _raises(
        f"references as ids must be an (S, M, L) integer torch tensor, got {kind}: pass torch.as_tensor(references)"
    ):
        pairwise_bleu(IDS[: shape[0]], array)
    if dtype == np.int64:  # what the message says to do
        assert len(pairwise_bleu(torch.as_tensor(array))) == shape[0]


def test_numpy_strings_point_to_lists():
    with _raises(
        "candidates must be a list with a list of strings per source, got a NumPy array of <U1 of shape (1, 2): "
        "pass candidates.tolist()"
    ):
        pairwise_chrf(np.array([["a", "b"]]))
