"""What a subword vocabulary decodes to: one table of bytes per id, built once on the host.

:class:`Detokenizer` holds, for every id of a SentencePiece model or a Hugging Face byte-level BPE
tokenizer, the UTF-8 bytes its ``decode`` puts in the text, and the decoder's rules that act on the
whole row (how ill-formed UTF-8 is replaced; transformers' clean-up of spaces). With it, rows of ids
become text on the device (:mod:`~torch_bleu.detokenize.pipeline`) exactly as ``decode`` writes it.

sentencepiece, tokenizers and transformers are optional: each is imported by the constructor that
reads its objects.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Union

import numpy as np
import torch
from torch import Tensor

from ..arrays import device_constant
from .utf8 import INVALID_UTF8_RULES, RAW, SEPARATOR

if TYPE_CHECKING:
    import sentencepiece
    import tokenizers


class FastTokenizer(Protocol):
    """A transformers fast tokenizer (``PreTrainedTokenizerFast``), as far as a detokenizer reads it."""

    @property
    def backend_tokenizer(self) -> tokenizers.Tokenizer: ...


#: What :meth:`Detokenizer.from_sentencepiece` reads: a loaded model, or the path of its ``.model`` file.
SentencePieceModel = Union["sentencepiece.SentencePieceProcessor", str, "os.PathLike[str]"]
#: What :meth:`Detokenizer.from_huggingface` reads: a ``tokenizers.Tokenizer`` or a transformers fast tokenizer.
HuggingFaceTokenizer = Union["tokenizers.Tokenizer", FastTokenizer]

#: SentencePiece's word-boundary mark, decoded as a space.
SENTENCEPIECE_SPACE = "\u2581"
#: Hugging Face decoders whose text this library reproduces.
SUPPORTED_HF_DECODERS = ("ByteLevel",)
#: What to do where decoding on ids is not exact.
TEXT_INPUT_HINT = "decode the rows yourself and score the strings instead"


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
        fingerprint: a digest of what the detokenizer decodes to (its entries, separators and rules):
            equal for detokenizers that decode every row alike, whatever object holds them.
    """

    entries: tuple[bytes, ...]
    invalid_utf8: str
    separators: frozenset[int] = frozenset()
    clean_up: bool = False
    kind: str = "custom"
    fingerprint: str = field(init=False, repr=False)
    _host_tables: tuple[np.ndarray, np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.invalid_utf8 not in INVALID_UTF8_RULES:
            raise ValueError(f"invalid_utf8 must be one of {INVALID_UTF8_RULES}, got {self.invalid_utf8!r}")
        if not self.entries:
            raise ValueError("a detokenizer needs at least one vocabulary entry")
        # built here, on the host, once: a compiled graph then takes them as constants
        object.__setattr__(
            self, "fingerprint", _fingerprint(self.entries, self.separators, self.invalid_utf8, self.clean_up)
        )
        object.__setattr__(self, "_host_tables", _tables(self.entries, self.separators))

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
        :data:`~torch_bleu.detokenize.utf8.SEPARATOR`. Built once on the host, copied once per device.
        """
        units, lengths = self._host_tables
        return (
            device_constant(("detokenizer units", self.fingerprint), device, lambda: units),
            device_constant(("detokenizer lengths", self.fingerprint), device, lambda: lengths),
        )

    @classmethod
    def from_sentencepiece(cls, model: SentencePieceModel) -> Detokenizer:
        """The detokenizer of a SentencePiece model: a ``SentencePieceProcessor``, or the path of a ``.model`` file.

        ``▁`` decodes to a space, byte pieces ``<0xNN>`` to their byte, control ids to nothing (but
        they end a run of byte pieces, as in ``decode``), the unknown id to what ``decode`` writes for
        it (`` ⁇ ``). Each run of byte pieces is decoded on its own, with one U+FFFD per byte outside a
        well-formed character. ``decode`` also drops the space that begins a row; no sacrebleu
        tokenizer reads leading whitespace, so that is left out.

        Raises:
            ValueError: for a model with denormalization rules (trained with
                ``--denormalization_rule_tsv``), which ``decode`` applies to the text and this
                detokenizer does not reproduce.
        """
        processor = _sentencepiece_processor(model)
        if _has_denormalization_rules(processor.serialized_model_proto()):
            raise ValueError(
                "this SentencePiece model has denormalization rules, which decode() applies to the decoded text "
                f"and which are not reproduced on ids: {TEXT_INPUT_HINT}"
            )
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
    def from_huggingface(cls, tokenizer: HuggingFaceTokenizer, clean_up: bool | None = None) -> Detokenizer:
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


def _fingerprint(entries: tuple[bytes, ...], separators: frozenset[int], invalid_utf8: str, clean_up: bool) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for entry in entries:
        digest.update(len(entry).to_bytes(4, "little") + entry)
    digest.update(repr((sorted(separators), invalid_utf8, clean_up)).encode())
    return digest.hexdigest()


def _tables(entries: tuple[bytes, ...], separators: frozenset[int]) -> tuple[np.ndarray, np.ndarray]:
    """The units of every entry, zero-padded, and their numbers (see :meth:`Detokenizer.tables`)."""
    units = [_units(entry) for entry in entries]
    for index in separators:
        units[index] = [SEPARATOR]
    data = np.zeros((len(units), max(map(len, units), default=1) or 1), dtype=np.int32)
    for row, entry_units in zip(data, units):
        row[: len(entry_units)] = entry_units
    return data, np.fromiter(map(len, units), dtype=np.int64, count=len(units))


def _units(entry: bytes) -> list[int]:
    """An entry's code points when it is well-formed UTF-8 on its own, else its raw bytes."""
    try:
        return [ord(char) for char in entry.decode("utf-8")]
    except UnicodeDecodeError:
        return [RAW + byte for byte in entry]


#: Fields of SentencePiece's ``ModelProto`` and ``NormalizerSpec`` (``sentencepiece_model.proto``).
DENORMALIZER_SPEC_FIELD = 5
PRECOMPILED_CHARSMAP_FIELD = 2


def _has_denormalization_rules(model_proto: bytes) -> bool:
    """Whether a serialized SentencePiece model has a denormalizer with rules (a non-empty charsmap)."""
    for number, value in _protobuf_fields(model_proto):
        if number == DENORMALIZER_SPEC_FIELD and isinstance(value, bytes):
            return any(inner == PRECOMPILED_CHARSMAP_FIELD and bool(rules) for inner, rules in _protobuf_fields(value))
    return False


def _protobuf_fields(message: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level ``(field number, value)`` pairs of a serialized protocol buffer message (values of
    length-delimited fields as bytes, of the others as integers), by the protocol's wire format.

    Example:
        >>> _protobuf_fields(bytes([0x08, 0x96, 0x01, 0x2A, 0x02, 0x61, 0x62]))
        [(1, 150), (5, b'ab')]
    """
    found: list[tuple[int, int | bytes]] = []
    position = 0
    while position < len(message):
        key, position = _varint(message, position)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, position = _varint(message, position)
            found.append((number, value))
        elif wire_type == 2:
            length, position = _varint(message, position)
            found.append((number, message[position : position + length]))
            position += length
        elif wire_type in (1, 5):  # fixed 64 or 32 bits
            size = 8 if wire_type == 1 else 4
            found.append((number, int.from_bytes(message[position : position + size], "little")))
            position += size
        else:
            raise ValueError(f"unexpected protocol buffer wire type {wire_type} in a SentencePiece model")
    return found


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """The base-128 integer at ``position`` and the position after it."""
    value, shift = 0, 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def _sentencepiece_processor(model: object) -> Any:
    try:
        import sentencepiece
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("SentencePiece models need sentencepiece: pip install 'torch-bleu[subwords]'") from error
    if isinstance(model, (str, os.PathLike)):
        return sentencepiece.SentencePieceProcessor(model_file=os.fspath(model))
    if not isinstance(model, sentencepiece.SentencePieceProcessor):
        raise TypeError(f"expected a SentencePieceProcessor or a model path, got {type(model).__name__}")
    return model


def _huggingface_backend(tokenizer: object) -> tuple[Any, bool]:
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
