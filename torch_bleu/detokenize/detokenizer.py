"""What a subword vocabulary decodes to: one table of bytes per id, built once on the host.

:class:`Detokenizer` holds, for every id of a SentencePiece model or a Hugging Face byte-level BPE
tokenizer, the UTF-8 bytes its ``decode`` puts in the text, and the decoder's rules that act on the
whole row (how ill-formed UTF-8 is replaced; transformers' clean-up of spaces). With it, rows of ids
become text on the device (:mod:`~torch_bleu.detokenize.pipeline`) exactly as ``decode`` writes it.

sentencepiece, tokenizers and transformers are optional: each is imported by the constructor that
reads its objects.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from .utf8 import INVALID_UTF8_RULES, RAW, SEPARATOR

#: SentencePiece's word-boundary mark, decoded as a space.
SENTENCEPIECE_SPACE = "\u2581"
#: Hugging Face decoders whose text this library reproduces.
SUPPORTED_HF_DECODERS = ("ByteLevel",)
#: What to do where decoding on ids is not exact.
TEXT_INPUT_HINT = "decode the rows yourself and pass the strings with tokenize= instead"


def gpt2_byte_alphabet() -> dict[str, int]:
    """The characters byte-level BPE vocabularies write bytes as (GPT-2's table), mapped back to the bytes.

    Printable Latin-1 bytes stand for themselves; the others (controls, space, ...) are shifted to
    code points from 256 on, in byte order.

    Example:
        >>> alphabet = gpt2_byte_alphabet()
        >>> alphabet["A"], alphabet["\\u0120"], len(alphabet)
        (65, 32, 256)
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [byte for byte in range(256) if byte not in printable]
    alphabet = {chr(byte): byte for byte in printable}
    alphabet.update({chr(256 + index): byte for index, byte in enumerate(shifted)})
    return alphabet


@dataclass(frozen=True, eq=False)
class Detokenizer:
    """The bytes each id of a subword vocabulary decodes to, and the decoder's rules for whole rows.

    Build one with :meth:`from_sentencepiece` or :meth:`from_huggingface` and pass it as
    ``detokenizer=`` to :func:`~torch_bleu.corpus_bleu`, :func:`~torch_bleu.sentence_bleu` or
    :class:`~torch_bleu.BLEUScore`: rows of ids are then scored as sacrebleu scores the strings the
    tokenizer's ``decode`` gives, without leaving the device.

    Attributes:
        entries: one ``bytes`` per id: what the id puts in the decoded text (empty for control and
            special ids).
        separators: ids that put nothing in the text but end a sequence of bytes, so that bytes on
            either side never form one character (SentencePiece decodes each run of byte pieces on
            its own, and a control id ends a run).
        invalid_utf8: how ill-formed UTF-8 becomes U+FFFD: ``"per_byte"`` (SentencePiece) or
            ``"maximal_subpart"`` (Hugging Face, Python).
        clean_up: whether transformers' ``clean_up_tokenization`` follows decoding.
        kind: a short description, for messages.
    """

    entries: tuple[bytes, ...]
    invalid_utf8: str
    separators: frozenset[int] = frozenset()
    clean_up: bool = False
    kind: str = "custom"
    _tables: dict[torch.device, tuple[Tensor, Tensor]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.invalid_utf8 not in INVALID_UTF8_RULES:
            raise ValueError(f"invalid_utf8 must be one of {INVALID_UTF8_RULES}, got {self.invalid_utf8!r}")
        if not self.entries:
            raise ValueError("a detokenizer needs at least one vocabulary entry")

    def __repr__(self) -> str:
        return f"Detokenizer({self.kind}, {self.vocab_size} ids, clean_up={self.clean_up})"

    @property
    def vocab_size(self) -> int:
        """How many ids the vocabulary has (``0 .. vocab_size - 1``)."""
        return len(self.entries)

    def tables(self, device: torch.device) -> tuple[Tensor, Tensor]:
        """``(entry_units, entry_lengths)`` on ``device``: ``(V, E)`` int32, zero-padded, and ``(V,)`` int64.

        An entry that is well-formed UTF-8 is held as its code points, another as raw bytes
        (``RAW + byte``, see :mod:`~torch_bleu.detokenize.utf8`), a separator as one
        :data:`~torch_bleu.detokenize.utf8.SEPARATOR`.
        """
        tables = self._tables.get(device)
        if tables is None:
            units = [_units(entry) for entry in self.entries]
            for index in self.separators:
                units[index] = [SEPARATOR]
            data = np.zeros((self.vocab_size, max(map(len, units), default=1) or 1), dtype=np.int32)
            for row, entry_units in zip(data, units):
                row[: len(entry_units)] = entry_units
            lengths = np.fromiter(map(len, units), dtype=np.int64, count=self.vocab_size)
            tables = (torch.from_numpy(data).to(device), torch.from_numpy(lengths).to(device))
            if not torch.compiler.is_compiling():
                self._tables[device] = tables
        return tables

    @classmethod
    def from_sentencepiece(cls, model: Any) -> Detokenizer:
        """The detokenizer of a SentencePiece model: a ``SentencePieceProcessor``, or the path of a ``.model`` file.

        ``▁`` decodes to a space, byte pieces ``<0xNN>`` to their byte, control ids to nothing (but
        they end a run of byte pieces, as in ``decode``), the unknown id to what ``decode`` writes for
        it (`` ⁇ ``). Each run of byte pieces is decoded on its own, with one U+FFFD per byte outside a
        well-formed character. ``decode`` also drops the space that begins a row; no sacrebleu
        tokenizer reads leading whitespace, so that is left out.
        """
        processor = _sentencepiece_processor(model)
        entries, separators = [], set()
        for index in range(processor.get_piece_size()):
            if processor.is_control(index):
                entries.append(b"")
                separators.add(index)
            elif processor.is_byte(index):
                entries.append(bytes([int(processor.id_to_piece(index)[3:5], 16)]))
            elif processor.is_unknown(index):
                entries.append(processor.decode([index]).encode())
            else:
                entries.append(processor.id_to_piece(index).replace(SENTENCEPIECE_SPACE, " ").encode())
        return cls(tuple(entries), "per_byte", frozenset(separators), kind="sentencepiece")

    @classmethod
    def from_huggingface(cls, tokenizer: Any, clean_up: bool | None = None) -> Detokenizer:
        """The detokenizer of a Hugging Face tokenizer with a byte-level decoder (GPT-2 style BPE).

        ``tokenizer`` is a ``tokenizers.Tokenizer`` or a transformers fast tokenizer. Rows are decoded
        as ``tokenizer.decode(ids, skip_special_tokens=True)`` decodes them: special tokens give
        nothing, and transformers' clean-up of spaces follows when the tokenizer's ``decode`` applies it
        (``clean_up`` overrides that; a bare ``tokenizers.Tokenizer`` does no clean-up).

        Raises:
            ValueError: for other decoders (Metaspace, WordPiece, ...), whose rules are not reproduced.
        """
        backend, setting = _huggingface_backend(tokenizer)
        decoder = json.loads(backend.to_str()).get("decoder") or {}
        if decoder.get("type") not in SUPPORTED_HF_DECODERS:
            raise ValueError(
                f"this tokenizer's decoder is {decoder.get('type') or 'missing'}; only byte-level decoders "
                f"({', '.join(SUPPORTED_HF_DECODERS)}) are reproduced on ids: {TEXT_INPUT_HINT}"
            )
        alphabet = gpt2_byte_alphabet()
        vocabulary = backend.get_vocab(with_added_tokens=True)
        special = {token.content for token in backend.get_added_tokens_decoder().values() if token.special}
        entries = [b""] * (max(vocabulary.values(), default=-1) + 1)
        for token, index in vocabulary.items():
            if token in special:
                continue
            if all(char in alphabet for char in token):
                entries[index] = bytes(alphabet[char] for char in token)
            else:  # the byte-level decoder writes a token outside its alphabet as it is
                entries[index] = token.encode()
        return cls(
            tuple(entries),
            "maximal_subpart",
            clean_up=setting if clean_up is None else clean_up,
            kind="huggingface byte-level",
        )


def _units(entry: bytes) -> list[int]:
    """An entry's code points when it is well-formed UTF-8 on its own, else its raw bytes."""
    try:
        return [ord(char) for char in entry.decode("utf-8")]
    except UnicodeDecodeError:
        return [RAW + byte for byte in entry]


def _sentencepiece_processor(model: Any) -> Any:
    try:
        import sentencepiece
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("SentencePiece models need sentencepiece: pip install 'torch-bleu[subwords]'") from error
    if isinstance(model, (str, os.PathLike)):
        return sentencepiece.SentencePieceProcessor(model_file=os.fspath(model))
    if not isinstance(model, sentencepiece.SentencePieceProcessor):
        raise TypeError(f"expected a SentencePieceProcessor or a model path, got {type(model).__name__}")
    return model


def _huggingface_backend(tokenizer: Any) -> tuple[Any, bool]:
    """The ``tokenizers.Tokenizer`` behind ``tokenizer``, and whether its ``decode`` cleans up spaces."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:  # a transformers fast tokenizer
        return backend, _cleans_up(tokenizer, backend)
    if hasattr(tokenizer, "to_str") and hasattr(tokenizer, "get_vocab"):
        return tokenizer, False
    raise TypeError(f"expected a tokenizers.Tokenizer or a transformers fast tokenizer, got {type(tokenizer).__name__}")


#: Text that transformers' clean-up changes (`` ,`` becomes ``,``), to see whether a tokenizer applies it.
CLEAN_UP_PROBE = "a , b"


def _cleans_up(tokenizer: Any, backend: Any) -> bool:
    """Whether a transformers tokenizer's ``decode`` cleans up spaces.

    Its ``clean_up_tokenization_spaces`` setting says so, but releases differ on when they honour it
    (transformers 5 skips it for BPE models unless told otherwise), so the tokenizer is asked: the
    probe decoded by it and by its backend, which never cleans up.
    """
    ids = tokenizer.encode(CLEAN_UP_PROBE, add_special_tokens=False)
    raw = backend.decode(ids, skip_special_tokens=True)
    if " ," not in raw:  # the vocabulary does not give the probe back: trust the setting
        return bool(getattr(tokenizer, "clean_up_tokenization_spaces", False))
    return bool(tokenizer.decode(ids, skip_special_tokens=True) != raw)


#: transformers' ``clean_up_tokenization``: these replacements, in this order.
CLEAN_UP_REPLACEMENTS = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)
