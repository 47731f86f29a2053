"""WER and CER (jiwer's ``wer``, ``cer`` and ``process_words``): hits, substitutions, deletions and insertions.

:mod:`.config` (the options; CER is WER of characters), :mod:`.counting` (input to each sentence's
``(B, 4)`` counts), :mod:`.score` (WER, CER, MER, WIL and WIP of summed counts), :mod:`.functional`
and :mod:`.metric` (the public API).

From each kind of input (:mod:`torch_bleu.inputs.kinds`) to its alignment kernel:

* strings: jiwer's units (:func:`.units.word_strings`; characters stripped at the ends for CER),
  aligned on the host by rapidfuzz (:func:`.host_alignment.pair_counts`);
* token ids on the CPU: each kept id one unit, aligned on the host
  (:func:`.host_alignment.unit_counts`); on an accelerator, aligned where they are, with sizes from
  shapes only (:func:`.device_splits.error_counts`, which cuts long rows where rapidfuzz cuts them, and
  :mod:`.device_alignment`, the distance matrices and their walks back);
* subword ids: decoded on their device (:mod:`torch_bleu.detokenize`), made units there
  (:func:`.units.text_units`), then aligned on the host or on the device as token ids are.
"""
