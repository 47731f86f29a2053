"""A few translation prompts and a byte-level BPE trained on them, shared by the language-model examples
(GRPO rewards, MBR decoding): everything made offline, in a second."""

from __future__ import annotations

#: ``(prompt, reference)`` pairs: what the tiny models learn and are asked.
PAIRS = [
    ("Translate to English: Die Katze sitzt auf der Matte.", "The cat sits on the mat."),
    ("Translate to English: Der Hund bellt.", "The dog barks."),
    ("Translate to English: Guten Morgen!", "Good morning!"),
    ("Translate to English: Wie geht es dir?", "How are you?"),
    ("Translate to English: Das Haus ist alt.", "The house is old."),
    ("Translate to English: Ich trinke Wasser.", "I drink water."),
    ("Translate to English: Es regnet heute.", "It is raining today."),
    ("Translate to English: Wir lesen ein Buch.", "We are reading a book."),
]


def tiny_tokenizer(padding_side: str = "right"):  # type: ignore[no-untyped-def]
    """A byte-level BPE trained on :data:`PAIRS`, as a transformers tokenizer (``padding_side="left"`` for
    generation from prompts of different lengths)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<pad>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator([text for pair in PAIRS for text in pair], trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", bos_token="<s>", eos_token="</s>", padding_side=padding_side
    )
