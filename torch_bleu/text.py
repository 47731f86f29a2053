"""From text files to per-sentence BLEU statistics: reading, tokenizing, word ids, padded batches.

The command line reads every stream (hypotheses and references) once, tokenizes each line with
sacrebleu's own tokenizer, maps words to integer ids with one shared :class:`Vocabulary`, and counts
n-grams on the tensor engine (:func:`~torch_bleu.sentence_statistics`) in length-sorted batches, so
that short sentences are not padded to the length of the longest one.

Example:
    >>> vocab = Vocabulary()
    >>> hyps = vocab.encode([["the", "cat", "sat"], ["a", "dog"]])
    >>> refs = vocab.encode([["the", "cat", "sat", "down"], ["the", "dog"]])
    >>> hyps.ids.tolist(), hyps.lengths.tolist()
    ([0, 1, 2, 3, 4], [3, 2])
    >>> stats = stream_statistics(hyps, [refs], max_order=2)
    >>> stats.matches.tolist(), stats.totals.tolist(), stats.target_len.tolist()
    ([[3, 2], [1, 0]], [[3, 2], [2, 1]], [4, 2])
"""

from __future__ import annotations

import gzip
import itertools
import os
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor

from .ngrams import SentenceStatistics, sentence_statistics

#: sacrebleu tokenizers that need no download (the ``-mecab`` ones need sacrebleu's ``ja``/``ko`` extras).
TOKENIZERS = ("13a", "none", "intl", "zh", "char", "ja-mecab", "ko-mecab")

#: Padding id of the batches built here; word ids are never negative.
PAD_ID = -1


class InputError(ValueError):
    """A problem with the user's input (missing file, bad encoding, ...), reported without a traceback."""


class TokenStream(NamedTuple):
    """One stream of tokenized sentences as word ids, concatenated.

    Attributes:
        ids: ``(T,)`` int64 word ids of all sentences, one after the other.
        lengths: ``(B,)`` int64 number of words of each sentence.
    """

    ids: Tensor
    lengths: Tensor

    def to(self, device: torch.device) -> "TokenStream":
        """The same stream on ``device``."""
        return TokenStream(self.ids.to(device), self.lengths.to(device))


def load_tokenizer(name: str, lowercase: bool = False) -> Callable[[str], List[str]]:
    """sacrebleu's tokenizer ``name`` as a function from a line to its words (lowercased first with ``lowercase``).

    Example:
        >>> load_tokenizer("13a")("Hello, world!")
        ['Hello', ',', 'world', '!']
        >>> load_tokenizer("none", lowercase=True)("Hello, World!")
        ['hello,', 'world!']
    """
    try:
        from sacrebleu.metrics.bleu import BLEU
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise InputError("the torch-bleu command line needs sacrebleu: pip install 'torch-bleu[text]'") from error
    if name not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    try:
        tokenizer = BLEU(tokenize=name).tokenizer
    except (ImportError, RuntimeError) as error:
        raise InputError(f"tokenizer {name!r} is not usable here: {' '.join(str(error).split())}") from None

    def words(line: str) -> List[str]:
        # sacrebleu lowercases, strips trailing whitespace, tokenizes, then splits on whitespace
        if lowercase:
            line = line.lower()
        return tokenizer(line.rstrip()).split()

    return words


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` field sacrebleu writes for tokenizer ``name`` (e.g. ``13a``, ``ja-mecab-0.996-IPA``)."""
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(tokenize=name).tokenizer_signature


class Vocabulary:
    """Maps every distinct word to a small integer id, in order of first appearance.

    Example:
        >>> vocab = Vocabulary()
        >>> vocab.encode([["b", "a", "b"]]).ids.tolist(), len(vocab)
        ([0, 1, 0], 2)
    """

    def __init__(self) -> None:
        self._ids: Dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def encode(self, sentences: Iterable[Sequence[str]]) -> TokenStream:
        """Ids of the words of every sentence, as one :class:`TokenStream`."""
        sentences = list(sentences)
        words = list(itertools.chain.from_iterable(sentences))
        ids = self._ids
        unseen = [word for word in dict.fromkeys(words) if word not in ids]  # in order of first appearance
        ids.update(zip(unseen, range(len(ids), len(ids) + len(unseen))))
        flat = np.fromiter(map(ids.__getitem__, words), dtype=np.int64, count=len(words))
        lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
        return TokenStream(torch.from_numpy(flat), torch.from_numpy(lengths))


def decode_lines(data: bytes, encoding: str, name: str, universal_newlines: bool = False) -> List[str]:
    """Decode ``data`` and split it into lines without trailing whitespace, as sacrebleu reads them.

    Only ``\\n`` ends a line in files; standard input also accepts ``\\r\\n`` and ``\\r``
    (``universal_newlines``). A decoding error names the line it is on.

    Example:
        >>> decode_lines(b"a b \\nc\\r\\n", "utf-8", "f")
        ['a b', 'c']
        >>> decode_lines(b"ok\\ncaf\\xe9\\n", "utf-8", "f")
        Traceback (most recent call last):
        ...
        torch_bleu.text.InputError: f: line 2 is not valid utf-8 (byte 0xe9); use --encoding for other encodings
    """
    try:
        text = data.decode(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise InputError(
            f"{name}: line {line} is not valid {encoding} (byte 0x{byte:02x}); use --encoding for other encodings"
        ) from None
    if universal_newlines:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the text ends with a newline (or is empty)
    return [line.rstrip() for line in lines]


def read_lines(path: str, encoding: str = "utf-8") -> List[str]:
    """The lines of a text file (``.gz`` files are decompressed), without trailing whitespace."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, expected a text file")
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, mode="rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    return decode_lines(data, encoding, path)


def split_systems(lines: List[str], name: str = "<stdin>") -> List[List[str]]:
    """Systems given side by side, one tab-separated field per system on every line.

    Example:
        >>> split_systems(["a\\tb", "c\\td"])
        [['a', 'c'], ['b', 'd']]
    """
    if not lines:
        raise InputError(f"{name}: no input")
    width = len(lines[0].split("\t"))
    systems: List[List[str]] = [[] for _ in range(width)]
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != width:
            raise InputError(f"{name}: line {number} has {len(fields)} tab-separated systems, line 1 has {width}")
        for system, field in zip(systems, fields):
            system.append(field.rstrip())
    return systems


def reference_files(path: str) -> List[str]:
    """``[path]`` for a file; for a folder, every (non-hidden) file in it, sorted by name."""
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or folder")
        return [path]
    names = sorted(name for name in os.listdir(path) if not name.startswith("."))
    files = [os.path.join(path, name) for name in names if os.path.isfile(os.path.join(path, name))]
    if not files:
        raise InputError(f"{path}: the reference folder holds no file")
    return files


def read_references(
    paths: Sequence[str], encoding: str = "utf-8", num_refs: int = 1
) -> Tuple[List[str], List[List[str]]]:
    """Names and lines of the reference streams: one stream per file (folders expand to their files);
    with ``num_refs > 1`` the single reference file holds ``num_refs`` tab-separated references per line."""
    files = [file for path in paths for file in reference_files(path)]
    if num_refs == 1:
        return files, [read_lines(file, encoding) for file in files]
    if len(files) != 1:
        raise InputError("--num-refs splits one reference file on tabs; give exactly one reference file")
    streams: List[List[str]] = [[] for _ in range(num_refs)]
    for number, line in enumerate(read_lines(files[0], encoding), 1):
        fields = line.split("\t", maxsplit=num_refs - 1)
        if len(fields) != num_refs:
            raise InputError(
                f"{files[0]}: line {number} has {len(fields)} tab-separated references, expected {num_refs}"
            )
        for stream, field in zip(streams, fields):
            stream.append(field)
    return [f"{files[0]} (reference {number})" for number in range(1, num_refs + 1)], streams


def padded_rows(stream: TokenStream, rows: Tensor, width: int, offsets: Optional[Tensor] = None) -> Tensor:
    """Sentences ``rows`` of ``stream`` as a ``(len(rows), width)`` batch padded with :data:`PAD_ID`.

    Example:
        >>> stream = TokenStream(torch.tensor([5, 6, 7, 8]), torch.tensor([3, 1]))
        >>> padded_rows(stream, torch.tensor([1, 0]), width=3).tolist()
        [[8, -1, -1], [5, 6, 7]]
    """
    if offsets is None:
        offsets = stream.lengths.cumsum(0) - stream.lengths
    columns = torch.arange(width, device=rows.device)
    inside = columns < stream.lengths[rows].unsqueeze(-1)
    positions = (offsets[rows].unsqueeze(-1) + columns).clamp(max=max(stream.ids.numel() - 1, 0))
    words = stream.ids[positions] if stream.ids.numel() else torch.zeros_like(positions)
    return torch.where(inside, words, PAD_ID)


def length_sorted_batches(costs: Sequence[int], max_slots: int) -> List[List[int]]:
    """Split sentence indices into batches of similar cost, of about ``max_slots`` padded slots each.

    A sentence's cost is its width (hypothesis plus references). Batches are formed in order of increasing
    cost and closed before their size times their largest cost exceeds ``max_slots``; a sentence costlier
    than that gets a batch of its own.

    Example:
        >>> length_sorted_batches([5, 1, 4, 1], max_slots=8)
        [[1, 3], [2], [0]]
    """
    order = sorted(range(len(costs)), key=costs.__getitem__)
    batches: List[List[int]] = []
    current: List[int] = []
    for index in order:
        # sorted by cost, so the newest sentence sets the batch width
        if current and (len(current) + 1) * max(costs[index], 1) > max_slots:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def stream_statistics(
    hypotheses: TokenStream, references: Sequence[TokenStream], max_order: int = 4, max_slots: int = 2**15
) -> SentenceStatistics:
    """Per-sentence BLEU statistics of one hypothesis stream against reference streams, in input order.

    Every reference line counts as a reference, empty ones included (as in sacrebleu). Sentences are
    counted in length-sorted batches of about ``max_slots`` padded token slots (see
    :func:`length_sorted_batches`), on the streams' device.
    """
    device = hypotheses.ids.device
    ref_lengths = torch.stack([reference.lengths for reference in references], dim=1)  # (B, R)
    num_sentences, num_refs = ref_lengths.shape
    hyp_lengths_list = hypotheses.lengths.tolist()
    max_ref_list = ref_lengths.amax(1).tolist()
    costs = [hyp + num_refs * ref for hyp, ref in zip(hyp_lengths_list, max_ref_list)]

    matches = torch.zeros(num_sentences, max_order, dtype=torch.int64, device=device)
    totals = torch.zeros_like(matches)
    preds_len = torch.zeros(num_sentences, dtype=torch.int64, device=device)
    target_len = torch.zeros_like(preds_len)
    hyp_offsets = hypotheses.lengths.cumsum(0) - hypotheses.lengths
    ref_offsets = [reference.lengths.cumsum(0) - reference.lengths for reference in references]
    for batch in length_sorted_batches(costs, max_slots):
        rows = torch.tensor(batch, device=device)
        hyp_width = max(max(hyp_lengths_list[i] for i in batch), 1)
        ref_width = max(max(max_ref_list[i] for i in batch), 1)
        preds = padded_rows(hypotheses, rows, hyp_width, hyp_offsets)
        target = torch.stack(
            [padded_rows(ref, rows, ref_width, offsets) for ref, offsets in zip(references, ref_offsets)], dim=1
        )
        present = torch.ones(len(batch), num_refs, dtype=torch.bool, device=device)
        stats = sentence_statistics(preds, target, max_order=max_order, ignore_ids=(PAD_ID,), ref_present=present)
        matches[rows], totals[rows] = stats.matches, stats.totals
        preds_len[rows], target_len[rows] = stats.preds_len, stats.target_len
    return SentenceStatistics(matches, totals, preds_len, target_len)
