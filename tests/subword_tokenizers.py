"""Small subword tokenizers trained offline on ``tests/data/subword_corpus.txt``, for tests that decode ids.

Nothing here downloads anything: every tokenizer is trained from the ~400-line English and German corpus
beside this file (quotes, apostrophes, numbers such as 1,000.5 and 3-4, dashes, ampersands, HTML
entities, URLs, accented letters, a few CJK characters and emoji). Training is single-threaded, reads the
corpus in order (no sampling, no shuffling) and takes well under a second for each tokenizer, so the same
call gives the same vocabulary on every run.

Optional packages: importing this module imports none of sentencepiece, tokenizers or transformers. Each
training function imports what it needs through :func:`requires`, which calls ``pytest.importorskip``: a
test that calls one of them is *skipped* (not failed) where the package is missing, and needs no guard of
its own. :func:`skip_unless_installed` gives the same as a marker, for a whole test or module.

Two ways in:

* ``train_*`` functions train into a directory the caller owns (``tmp_path``), one fresh tokenizer per call;
* ``cached_*`` functions train once per test session into a private temporary directory (removed at exit)
  and hand every caller its *own copy*, rebuilt from the cached serialized model, so a test may mutate the
  object it gets (``enable_padding``, ``add_tokens``, ...) without disturbing other tests.

SentencePiece ids (constants below): ``<unk>`` = 0, ``<s>`` = 1, ``</s>`` = 2, ``<pad>`` = 3, all four
distinct; user-defined symbols come next, then (with ``byte_fallback=True``) the 256 pieces ``<0x00>`` ..
``<0xFF>`` at ids 4 + len(user_defined_symbols) onward, then the learned pieces. Normalization is
SentencePiece's default ``nmt_nfkc`` and character coverage its default 0.9995, so the rarest characters of
the corpus (some CJK characters) are unknown without byte fallback.

Byte-level BPE ids: ``<pad>`` = 0, ``<s>`` = 1, ``</s>`` = 2 (special), then the 256-symbol GPT-2 byte
alphabet and the merges; the added *non-special* token :data:`ADDED_TOKEN` (``<sep>``) is the last id.
:func:`as_transformers` wraps one in ``transformers.PreTrainedTokenizerFast``. :func:`train_metaspace_bpe`
(Metaspace decoder) and :func:`train_wordpiece` (WordPiece decoder) exist only as decoders to reject.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import sentencepiece
    import tokenizers
    import transformers

CORPUS = Path(__file__).resolve().parent / "data" / "subword_corpus.txt"

SENTENCEPIECE_MODEL_TYPES = ("unigram", "bpe", "word")
UNK_ID = 0
BOS_ID = 1
EOS_ID = 2
PAD_ID = 3
UNK_PIECE = "<unk>"
BOS_PIECE = "<s>"
EOS_PIECE = "</s>"
PAD_PIECE = "<pad>"

# the HF tokenizers' special tokens, in id order (ids 0, 1, 2), and the one added token that is not special
PAD_TOKEN = "<pad>"
BOS_TOKEN = "<s>"
EOS_TOKEN = "</s>"
SPECIAL_TOKENS = (PAD_TOKEN, BOS_TOKEN, EOS_TOKEN)
ADDED_TOKEN = "<sep>"
WORDPIECE_UNK = "[UNK]"

DEFAULT_SENTENCEPIECE_VOCAB = 1000  # unigram on this corpus allows at most about 1,800 pieces
DEFAULT_BPE_VOCAB = 1000


def missing(*modules: str) -> list[str]:
    """The names among ``modules`` that cannot be imported here (found without importing them)."""
    return [name for name in modules if not _importable(name)]


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec (or set to None)
        return False


def requires(*modules: str) -> None:
    """Skip the calling test (``pytest.importorskip``) unless every one of ``modules`` imports."""
    for name in modules:
        pytest.importorskip(name)


def skip_unless_installed(*modules: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker for a test or a module (``pytestmark = ...``) that needs ``modules``."""
    absent = missing(*modules)
    return pytest.mark.skipif(bool(absent), reason=f"needs {', '.join(absent)}")


# --- SentencePiece -------------------------------------------------------------------------------------


def sentencepiece_model_path(
    directory: Path,
    model_type: str,
    vocab_size: int = DEFAULT_SENTENCEPIECE_VOCAB,
    byte_fallback: bool = False,
    user_defined_symbols: Sequence[str] = (),
    denormalization_rules: Sequence[tuple[str, str]] = (),
) -> Path:
    """Train a SentencePiece model of ``model_type`` ("unigram", "bpe" or "word") into ``directory``; its
    ``.model`` path.

    The file name records the settings, so models of different settings can share a directory. Pad, bos,
    eos and unk are :data:`PAD_ID`, :data:`BOS_ID`, :data:`EOS_ID` and :data:`UNK_ID`.
    ``denormalization_rules`` are ``(text, replacement)`` pairs that ``decode`` applies.
    """
    requires("sentencepiece")
    import sentencepiece as spm

    if model_type not in SENTENCEPIECE_MODEL_TYPES:
        raise ValueError(f"model_type must be one of {SENTENCEPIECE_MODEL_TYPES}, not {model_type!r}")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    name = f"sp-{model_type}-{vocab_size}{'-bytes' if byte_fallback else ''}"
    if user_defined_symbols:
        name += f"-user{len(user_defined_symbols)}"
    rules = ""
    if denormalization_rules:
        name += f"-denormalized{len(denormalization_rules)}"
        rules = str(directory / f"{name}.tsv")
        with open(rules, "w", encoding="utf-8") as tsv:  # code points in hex, as SentencePiece reads them
            for text, replacement in denormalization_rules:
                tsv.write(" ".join(f"{ord(char):X}" for char in text) + "\t")
                tsv.write(" ".join(f"{ord(char):X}" for char in replacement) + "\n")
    prefix = directory / name
    spm.SentencePieceTrainer.train(
        input=str(CORPUS),
        model_prefix=str(prefix),
        model_type=model_type,
        vocab_size=vocab_size,
        byte_fallback=byte_fallback,
        user_defined_symbols=list(user_defined_symbols),
        denormalization_rule_tsv=rules,
        unk_id=UNK_ID,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        pad_id=PAD_ID,
        unk_piece=UNK_PIECE,
        bos_piece=BOS_PIECE,
        eos_piece=EOS_PIECE,
        pad_piece=PAD_PIECE,
        input_sentence_size=0,  # every line, no sampling
        shuffle_input_sentence=False,
        num_threads=1,
        minloglevel=2,  # no training log on stderr
    )
    return prefix.with_suffix(".model")


def train_sentencepiece(
    directory: Path,
    model_type: str,
    vocab_size: int = DEFAULT_SENTENCEPIECE_VOCAB,
    byte_fallback: bool = False,
    user_defined_symbols: Sequence[str] = (),
) -> sentencepiece.SentencePieceProcessor:
    """Train (see :func:`sentencepiece_model_path`) and load a SentencePiece model.

    The model file is ``sentencepiece_model_path(...)`` with the same arguments; the processor's
    ``serialized_model_proto()`` gives the same model as bytes.
    """
    path = sentencepiece_model_path(directory, model_type, vocab_size, byte_fallback, user_defined_symbols)
    return load_sentencepiece(path)


def load_sentencepiece(model: Path | bytes) -> sentencepiece.SentencePieceProcessor:
    """A processor for a ``.model`` file or for serialized model bytes."""
    requires("sentencepiece")
    import sentencepiece as spm

    if isinstance(model, bytes):
        return spm.SentencePieceProcessor(model_proto=model)
    return spm.SentencePieceProcessor(model_file=str(model))


# --- Hugging Face tokenizers ---------------------------------------------------------------------------


def _corpus_lines() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()


def train_byte_level_bpe(directory: Path | None = None, vocab_size: int = DEFAULT_BPE_VOCAB) -> tokenizers.Tokenizer:
    """A GPT-2 style byte-level BPE: ByteLevel pre-tokenizer (no prefix space) and decoder, all 256 bytes.

    Special tokens ``<pad>``, ``<s>``, ``</s>`` are ids 0, 1, 2; :data:`ADDED_TOKEN` is added as a plain
    (non-special) token after training. With ``directory``, the tokenizer is also saved there as
    ``byte-level-bpe-<vocab_size>.json``.
    """
    requires("tokenizers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_corpus_lines(), trainer=trainer, length=None)
    tokenizer.add_tokens([ADDED_TOKEN])
    _save(tokenizer, directory, f"byte-level-bpe-{vocab_size}.json")
    return tokenizer


def train_metaspace_bpe(directory: Path | None = None, vocab_size: int = 500) -> tokenizers.Tokenizer:
    """A BPE with a Metaspace pre-tokenizer and *Metaspace decoder* (SentencePiece-like; a decoder to reject)."""
    requires("tokenizers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=UNK_PIECE))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=[UNK_PIECE, *SPECIAL_TOKENS], show_progress=False
    )
    tokenizer.train_from_iterator(_corpus_lines(), trainer=trainer, length=None)
    _save(tokenizer, directory, f"metaspace-bpe-{vocab_size}.json")
    return tokenizer


def train_wordpiece(directory: Path | None = None, vocab_size: int = 500) -> tokenizers.Tokenizer:
    """A BERT-style WordPiece (``##`` continuations) with a *WordPiece decoder* (a decoder to reject).

    Not trained with ``WordPieceTrainer``: that gives different ids from run to run (its ``##`` alphabet
    comes out of a hash map). The vocabulary here is built directly, in a fixed order: the four special
    tokens, every character of the corpus, the same characters with ``##``, then the corpus's most frequent
    pre-tokenized words (ties alphabetical) up to ``vocab_size``.
    """
    requires("tokenizers")
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

    normalizer = normalizers.BertNormalizer(lowercase=False)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    counts: dict[str, int] = {}
    for line in _corpus_lines():
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(line)):
            counts[word] = counts.get(word, 0) + 1
    characters = sorted({character for word in counts for character in word})
    tokens = ["[PAD]", WORDPIECE_UNK, "[CLS]", "[SEP]", *characters, *(f"##{c}" for c in characters)]
    known = set(tokens)
    for word, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if len(tokens) >= vocab_size:
            break
        if word not in known:
            tokens.append(word)
            known.add(word)
    tokenizer = Tokenizer(models.WordPiece({token: i for i, token in enumerate(tokens)}, unk_token=WORDPIECE_UNK))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.add_special_tokens(["[PAD]", WORDPIECE_UNK, "[CLS]", "[SEP]"])
    _save(tokenizer, directory, f"wordpiece-{vocab_size}.json")
    return tokenizer


def _save(tokenizer: tokenizers.Tokenizer, directory: Path | None, name: str) -> None:
    if directory is not None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        tokenizer.save(str(directory / name))


def copy_tokenizer(tokenizer: tokenizers.Tokenizer) -> tokenizers.Tokenizer:
    """An independent copy (through the tokenizer's JSON form)."""
    from tokenizers import Tokenizer

    return Tokenizer.from_str(tokenizer.to_str())


def as_transformers(
    tokenizer: tokenizers.Tokenizer, clean_up: bool, force_clean_up_for_bpe: bool = False
) -> transformers.PreTrainedTokenizerFast:
    """``tokenizer`` (a copy) as a transformers fast tokenizer with pad/bos/eos set.

    ``clean_up`` is the wrapper's ``clean_up_tokenization_spaces`` attribute, which ``decode`` uses unless
    told otherwise. transformers 5 ignores it (with a warning) when the backend model is a ``BPE``, unless
    ``clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output`` is set, which
    ``force_clean_up_for_bpe=True`` does. Pad/bos/eos are :data:`PAD_TOKEN`, :data:`BOS_TOKEN`,
    :data:`EOS_TOKEN` when the tokenizer has them; a WordPiece tokenizer gets ``[PAD]``, ``[CLS]``,
    ``[SEP]`` and ``[UNK]``.
    """
    requires("tokenizers", "transformers")
    from transformers import PreTrainedTokenizerFast

    vocab = tokenizer.get_vocab(with_added_tokens=True)
    tokens: dict[str, Any]
    if PAD_TOKEN in vocab:
        tokens = {"pad_token": PAD_TOKEN, "bos_token": BOS_TOKEN, "eos_token": EOS_TOKEN}
        if UNK_PIECE in vocab:
            tokens["unk_token"] = UNK_PIECE
    else:
        tokens = {"pad_token": "[PAD]", "bos_token": "[CLS]", "eos_token": "[SEP]", "unk_token": WORDPIECE_UNK}
    if force_clean_up_for_bpe:
        tokens["clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output"] = True
    return PreTrainedTokenizerFast(
        tokenizer_object=copy_tokenizer(tokenizer), clean_up_tokenization_spaces=clean_up, **tokens
    )


# --- once per session ----------------------------------------------------------------------------------


@functools.cache
def session_directory() -> Path:
    """A temporary directory for this process's cached tokenizers, removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix="torch-bleu-subword-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def cached_sentencepiece_path(
    model_type: str,
    vocab_size: int = DEFAULT_SENTENCEPIECE_VOCAB,
    byte_fallback: bool = False,
    user_defined_symbols: tuple[str, ...] = (),
) -> Path:
    """The ``.model`` file of :func:`sentencepiece_model_path`, trained once per session (do not modify it)."""
    return _cached_sentencepiece_path(model_type, vocab_size, byte_fallback, tuple(user_defined_symbols))


@functools.cache
def _cached_sentencepiece_path(
    model_type: str, vocab_size: int, byte_fallback: bool, user_defined_symbols: tuple[str, ...]
) -> Path:
    return sentencepiece_model_path(session_directory(), model_type, vocab_size, byte_fallback, user_defined_symbols)


def cached_sentencepiece(
    model_type: str,
    vocab_size: int = DEFAULT_SENTENCEPIECE_VOCAB,
    byte_fallback: bool = False,
    user_defined_symbols: tuple[str, ...] = (),
) -> sentencepiece.SentencePieceProcessor:
    """A new processor for the session's model of these settings (trained on first use)."""
    return load_sentencepiece(cached_sentencepiece_path(model_type, vocab_size, byte_fallback, user_defined_symbols))


@functools.cache
def _cached_json(kind: str, vocab_size: int) -> str:
    train = {"byte_level_bpe": train_byte_level_bpe, "metaspace_bpe": train_metaspace_bpe, "wordpiece": train_wordpiece}
    return train[kind](None, vocab_size).to_str()


def _from_cache(kind: str, vocab_size: int) -> tokenizers.Tokenizer:
    requires("tokenizers")
    from tokenizers import Tokenizer

    return Tokenizer.from_str(_cached_json(kind, vocab_size))


def cached_byte_level_bpe(vocab_size: int = DEFAULT_BPE_VOCAB) -> tokenizers.Tokenizer:
    """A new copy of the session's :func:`train_byte_level_bpe` tokenizer (trained on first use)."""
    return _from_cache("byte_level_bpe", vocab_size)


def cached_metaspace_bpe(vocab_size: int = 500) -> tokenizers.Tokenizer:
    """A new copy of the session's :func:`train_metaspace_bpe` tokenizer (trained on first use)."""
    return _from_cache("metaspace_bpe", vocab_size)


def cached_wordpiece(vocab_size: int = 500) -> tokenizers.Tokenizer:
    """A new copy of the session's :func:`train_wordpiece` tokenizer (trained on first use)."""
    return _from_cache("wordpiece", vocab_size)


def cached_transformers(
    clean_up: bool, force_clean_up_for_bpe: bool = False, vocab_size: int = DEFAULT_BPE_VOCAB
) -> transformers.PreTrainedTokenizerFast:
    """A new transformers wrapper (:func:`as_transformers`) of the session's byte-level BPE."""
    return as_transformers(cached_byte_level_bpe(vocab_size), clean_up, force_clean_up_for_bpe)
