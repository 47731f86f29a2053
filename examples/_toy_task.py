"""A tiny translation task and model shared by the examples: digits to English number words.

The source is the digits of a number, the target its English words::

    4 0 5 1 2   ->   forty thousand five hundred twelve

Both sides are id tensors padded with ``PAD``; targets are wrapped in ``BOS ... EOS``. The model is a
small encoder-decoder Transformer that learns the task in well under a minute on a laptop CPU, with
BLEU climbing from about 15 to almost 100, which makes it a handy stand-in for a real seq2seq model.

Example:
    >>> " ".join(number_to_words(40512))
    'forty thousand five hundred twelve'
    >>> src, tgt = encode_numbers([7, 40512])
    >>> src.tolist()
    [[10, 0, 0, 0, 0, 0], [7, 3, 8, 4, 5, 0]]
    >>> decode_digits(src[1]), decode_words(tgt[1])
    ('40512', 'forty thousand five hundred twelve')
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import torch
from torch import Tensor, nn

PAD, BOS, EOS = 0, 1, 2
SPECIALS = ["<pad>", "<bos>", "<eos>"]

ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

SOURCE_VOCAB = SPECIALS + list("0123456789")
TARGET_VOCAB = SPECIALS + ONES + TEENS + TENS[2:] + ["hundred", "thousand"]
TARGET_IDS = {word: index for index, word in enumerate(TARGET_VOCAB)}

MAX_DIGITS = 6
MAX_SOURCE_LEN = MAX_DIGITS
MAX_TARGET_LEN = 12  # "seven hundred seventy seven thousand seven hundred seventy seven" is 9 words, + BOS/EOS


def seed_everything(seed: int) -> None:
    """Seed Python's and torch's generators (CPU and every GPU) so runs repeat exactly."""
    random.seed(seed)
    torch.manual_seed(seed)


def _below_thousand(n: int) -> list[str]:
    words = []
    if n >= 100:
        words += [ONES[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        words.append(TENS[n // 10])
        if n % 10:
            words.append(ONES[n % 10])
    elif n >= 10:
        words.append(TEENS[n - 10])
    elif n > 0:
        words.append(ONES[n])
    return words


def number_to_words(n: int) -> list[str]:
    """English words of ``0 <= n < 10**6``, without "and" or hyphens.

    Example:
        >>> " ".join(number_to_words(777777))
        'seven hundred seventy seven thousand seven hundred seventy seven'
        >>> number_to_words(0)
        ['zero']
    """
    if not 0 <= n < 10**MAX_DIGITS:
        raise ValueError(f"n must be in [0, {10**MAX_DIGITS}), got {n}")
    if n == 0:
        return ["zero"]
    thousands, rest = divmod(n, 1000)
    words = [*_below_thousand(thousands), "thousand"] if thousands else []
    return words + _below_thousand(rest)


def encode_numbers(numbers: Sequence[int]) -> tuple[Tensor, Tensor]:
    """Source ``(N, MAX_SOURCE_LEN)`` digit ids and target ``(N, MAX_TARGET_LEN)`` ``BOS words EOS`` ids."""
    src = torch.full((len(numbers), MAX_SOURCE_LEN), PAD, dtype=torch.long)
    tgt = torch.full((len(numbers), MAX_TARGET_LEN), PAD, dtype=torch.long)
    for row, n in enumerate(numbers):
        digits = [SOURCE_VOCAB.index(d) for d in str(n)]
        words = [BOS] + [TARGET_IDS[w] for w in number_to_words(n)] + [EOS]
        src[row, : len(digits)] = torch.tensor(digits)
        tgt[row, : len(words)] = torch.tensor(words)
    return src, tgt


def decode_digits(ids: Tensor) -> str:
    """The number written by one source row."""
    return "".join(SOURCE_VOCAB[token] for token in ids.tolist() if token != PAD)


def decode_words(ids: Tensor) -> str:
    """The words of one target row, stopping at ``EOS`` and skipping ``PAD``/``BOS``."""
    words = []
    for token in ids.tolist():
        if token == EOS:
            break
        if token not in (PAD, BOS):
            words.append(TARGET_VOCAB[token])
    return " ".join(words)


def random_numbers(count: int, rng: random.Random) -> list[int]:
    """``count`` random numbers whose digit count is uniform over 1..6, so short ones are common too."""
    numbers = []
    for _ in range(count):
        digits = rng.randint(1, MAX_DIGITS)
        numbers.append(rng.randrange(0 if digits == 1 else 10 ** (digits - 1), 10**digits))
    return numbers


def make_splits(train_size: int, valid_size: int, seed: int) -> tuple[tuple[Tensor, Tensor], tuple[Tensor, Tensor]]:
    """Train and validation ``(src, tgt)`` sets drawn independently from the same distribution.

    Short numbers occur in both (there are only ten one-digit numbers), as common phrases do in a real
    corpus; most long numbers of the validation set were never seen in training.

    Example:
        >>> (train_src, train_tgt), (valid_src, valid_tgt) = make_splits(100, 20, seed=0)
        >>> tuple(train_src.shape), tuple(valid_tgt.shape)
        ((100, 6), (20, 12))
    """
    rng = random.Random(seed)
    return encode_numbers(random_numbers(train_size, rng)), encode_numbers(random_numbers(valid_size, rng))


class TinyTranslator(nn.Module):
    """An encoder-decoder Transformer with learned positions (about 170k parameters)."""

    def __init__(self, d_model: int = 64, heads: int = 4, layers: int = 2, feedforward: int = 128) -> None:
        super().__init__()
        self.src_embed = nn.Embedding(len(SOURCE_VOCAB), d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(len(TARGET_VOCAB), d_model, padding_idx=PAD)
        self.src_pos = nn.Parameter(torch.randn(MAX_SOURCE_LEN, d_model) * 0.02)
        self.tgt_pos = nn.Parameter(torch.randn(MAX_TARGET_LEN, d_model) * 0.02)
        encoder_layer = nn.TransformerEncoderLayer(d_model, heads, feedforward, dropout=0.0, batch_first=True)
        decoder_layer = nn.TransformerDecoderLayer(d_model, heads, feedforward, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(encoder_layer, layers, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(decoder_layer, layers)
        self.project = nn.Linear(d_model, len(TARGET_VOCAB))
        self.scale = math.sqrt(d_model)

    def encode(self, src: Tensor) -> Tensor:
        """Encoder memory ``(B, Ls, d_model)`` of source ids ``(B, Ls)``."""
        x = self.src_embed(src) * self.scale + self.src_pos[: src.shape[1]]
        return self.encoder(x, src_key_padding_mask=src == PAD)

    def decode(self, memory: Tensor, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Next-token logits ``(B, Lt, V)`` for every prefix of ``tgt_in`` ``(B, Lt)`` (causal)."""
        length = tgt_in.shape[1]
        y = self.tgt_embed(tgt_in) * self.scale + self.tgt_pos[:length]
        causal = nn.Transformer.generate_square_subsequent_mask(length, device=tgt_in.device)
        hidden = self.decoder(y, memory, tgt_mask=causal, tgt_is_causal=True, memory_key_padding_mask=src == PAD)
        return self.project(hidden)

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        return self.decode(self.encode(src), src, tgt_in)


def teacher_forcing_loss(model: TinyTranslator, src: Tensor, tgt: Tensor) -> Tensor:
    """Cross-entropy of predicting ``tgt[:, 1:]`` from ``tgt[:, :-1]``, ignoring padding."""
    logits = model(src, tgt[:, :-1])
    return nn.functional.cross_entropy(logits.transpose(1, 2), tgt[:, 1:], ignore_index=PAD)


def _never_emitted(device: torch.device) -> Tensor:
    """``(V,)`` mask of the ids the model never emits itself: ``PAD`` and ``BOS``."""
    mask = torch.zeros(len(TARGET_VOCAB), dtype=torch.bool, device=device)
    mask[[PAD, BOS]] = True
    return mask


def _generate(model: TinyTranslator, src: Tensor, max_len: int, sample: bool) -> Tensor:
    """Decode up to ``max_len`` tokens after ``BOS``, by argmax or by sampling: ``(B, max_len)`` ids
    without ``BOS``. The model never emits ``PAD`` or ``BOS`` itself, and the slots after a row's ``EOS``
    are ``PAD``.
    """
    memory = model.encode(src)
    never_emitted = _never_emitted(src.device)
    batch = src.shape[0]
    tokens = torch.full((batch, 1), BOS, dtype=torch.long, device=src.device)
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        logits = model.decode(memory, src, tokens)[:, -1].masked_fill(never_emitted, float("-inf"))
        log_probs = logits.log_softmax(-1)
        step = torch.multinomial(log_probs.exp(), 1).squeeze(1) if sample else log_probs.argmax(-1)
        step = torch.where(finished, PAD, step)
        tokens = torch.cat([tokens, step.unsqueeze(1)], dim=1)
        finished = finished | (step == EOS)
    return tokens[:, 1:]


def sequence_log_prob(model: TinyTranslator, src: Tensor, ids: Tensor) -> Tensor:
    """The ``(B,)`` summed log-probability of decoded ``ids`` (``(B, L)``, without ``BOS``; ``PAD``
    after ``EOS``), with gradients, in one teacher-forced pass.

    The decoder is causal, so every position sees exactly the prefix it saw while decoding, and the
    log-probabilities are those of the decoding steps (``PAD`` and ``BOS`` excluded, as there).
    """
    tgt_in = torch.cat([torch.full_like(ids[:, :1], BOS), ids[:, :-1]], dim=1)
    logits = model(src, tgt_in).masked_fill(_never_emitted(ids.device), float("-inf"))
    emitted = ids != PAD
    chosen = logits.log_softmax(-1).gather(2, ids.masked_fill(~emitted, EOS).unsqueeze(2)).squeeze(2)
    return torch.where(emitted, chosen, 0.0).sum(1)


@torch.no_grad()
def greedy_decode(model: TinyTranslator, src: Tensor, max_len: int = MAX_TARGET_LEN - 1) -> Tensor:
    """Greedy (argmax) decoding: ``(B, max_len)`` ids ending in ``EOS``, then ``PAD``."""
    return _generate(model, src, max_len, sample=False)


def sample_decode(model: TinyTranslator, src: Tensor, max_len: int = MAX_TARGET_LEN - 1) -> tuple[Tensor, Tensor]:
    """Sample from the model: the ``(B, max_len)`` ids and their summed log-probability (with gradients).

    The tokens are drawn without building a graph; :func:`sequence_log_prob` then scores them in one
    pass, far cheaper to run backwards through than the step-by-step decoding.
    """
    with torch.no_grad():
        ids = _generate(model, src, max_len, sample=True)
    return ids, sequence_log_prob(model, src, ids)
