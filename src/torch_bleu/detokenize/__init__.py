"""Subword ids to sacrebleu's words on the device: decode as the tokenizer's ``decode`` does, tokenize as sacrebleu.

:class:`~torch_bleu.detokenize.detokenizer.Detokenizer` reads a vocabulary once, on the host;
:mod:`~torch_bleu.detokenize.pipeline` does the rest on the ids' device with static shapes.
"""
