"""TER's shift candidates by rapidfuzz's Levenshtein distance: where it is sacrebleu's beam edit distance
(and where only a lower bound of it), the pairs whose beam decides their edits, and word ids that are
no code points.

The beam binds where the cheapest path wanders more than 23 columns off the matrix's diagonal: blocks
moved far (rotations of long sequences) and lengths far apart.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu.metrics.ter.candidate_distance import LARGEST_WORD, code_point_words, exact_within_beam
from torch_bleu.metrics.ter.shifts import edit_counts

sacrebleu = pytest.importorskip("sacrebleu")
from rapidfuzz.distance import Levenshtein  # noqa: E402
from sacrebleu.metrics import lib_ter  # noqa: E402


@st.composite
def far_moved_words(draw, longest: int = 90):
    """A reference of up to ``longest`` words and a hypothesis made of it with a long block moved far,
    lengths changed, or words changed, from few distinct words."""
    words = st.integers(0, draw(st.sampled_from([2, 12, 1000])))
    length = draw(st.integers(1, longest))
    ref = draw(st.lists(words, min_size=length, max_size=length))
    hyp = list(ref)
    cut = draw(st.integers(0, len(hyp)) | st.integers(20, 40))
    hyp = hyp[cut:] + hyp[:cut]  # a rotation: the first block moved to the end
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(hyp)))
        kind = draw(st.sampled_from(["insert", "delete", "change"]))
        if kind == "insert":
            hyp[at:at] = draw(st.lists(words, min_size=1, max_size=30))
        elif kind == "delete":
            del hyp[at : at + draw(st.integers(1, 30))]
        elif at < len(hyp):
            hyp[at] = draw(words)
    return [str(word) for word in hyp], [str(word) for word in ref]


@settings(max_examples=100, deadline=None)
@given(pair=far_moved_words())
def test_levenshtein_distance_within_the_bound_is_the_beam_edit_distance(pair):
    hyp, ref = pair
    if not hyp:
        return
    beam = lib_ter.BeamEditDistance(ref)(hyp)[0]
    distance = Levenshtein.distance(hyp, ref)
    assert distance <= beam  # a lower bound always
    if distance <= exact_within_beam(np.array([len(hyp)]), np.array([len(ref)]))[0]:
        assert distance == beam


def our_edits(pairs: list[tuple[list[str], list[str]]], offset: int = 0) -> list[int]:
    """Our edits of word-list pairs, the words numbered together from ``offset``."""
    numbers: dict[str, int] = {}
    hyps = [[numbers.setdefault(word, offset + len(numbers)) for word in hyp] for hyp, _ in pairs]
    refs = [[numbers.setdefault(word, offset + len(numbers)) for word in ref] for _, ref in pairs]

    def flat(rows):
        return np.array([w for row in rows for w in row], dtype=np.int64), np.array([len(row) for row in rows])

    return edit_counts(*flat(hyps), *flat(refs)).tolist()


def test_a_block_moved_far_leaves_the_beam_of_levenshtein_distance():
    words = [str(word) for word in range(60)]
    rotated = words[26:] + words[:26]  # 52 edits for Levenshtein, through cells far off the diagonal
    assert Levenshtein.distance(rotated, words) == 52 < lib_ter.BeamEditDistance(words)(rotated)[0] == 60


def test_shifts_whose_distance_the_beam_decides_are_sacrebleus():
    words = [str(word) for word in range(60)]
    pairs = [
        (words[30:36] + words[0:6], words),
        (words[40:50] + words[5:15] + words[0:5], words),
        (words[:10], words[5:] + words[:5]),
        (["a", "b", "c", "d"], ["b", "c", "d", "a"]),
    ]
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(pairs=st.lists(far_moved_words(longest=60), min_size=1, max_size=6))
def test_edits_of_blocks_moved_far_are_sacrebleus(pairs):
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]


def test_word_ids_past_the_code_points_are_numbered_anew_per_pair():
    pairs = [(["a", "b", "c", "d"], ["b", "c", "d", "a"]), (["x", "y", "a"], ["a", "x", "y"])]
    expected = [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]
    for offset in (LARGEST_WORD - 3, 2**40, -(2**40)):
        assert our_edits(pairs, offset) == expected


@given(
    ids=st.lists(st.integers(-(2**62), 2**62), min_size=2, max_size=20),
    cut=st.integers(0, 20),
)
def test_words_numbered_anew_keep_which_words_are_equal_within_each_pair(ids, cut):
    cut = min(cut, len(ids))
    words = np.array(ids + ids[::-1], dtype=np.int64)
    hyp, ref = words[: len(ids)], words[len(ids) :]
    lengths = np.array([cut, len(ids) - cut])
    new_hyp, new_ref = code_point_words(hyp, lengths, ref, lengths)
    assert min(new_hyp.min(), new_ref.min()) >= 0 and max(new_hyp.max(), new_ref.max()) <= LARGEST_WORD
    start = 0
    for length in lengths:
        before = np.concatenate([hyp[start : start + length], ref[start : start + length]])
        after = np.concatenate([new_hyp[start : start + length], new_ref[start : start + length]])
        assert (before[:, None] == before[None, :]).tolist() == (after[:, None] == after[None, :]).tolist()
        start += length
