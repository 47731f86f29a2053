"""ROUGE (Google's rouge-score): ROUGE-N, ROUGE-L and ROUGE-Lsum of strings, ids or subword ids.

:mod:`.config` (the options; each type's kind from :mod:`.kinds`: ``NGrams(n)``, ``LCS``, ``UnionLCS``,
with each kind's counts and a pair's statistics from its hits written once), :mod:`.counting` (input to
each sentence's statistics, of its best or averaged references), :mod:`.score` (precision, recall and
F-measure; exact corpus means in fixed point), :mod:`.states` (what the metric's states can hold, checked
where weights and states come in), :mod:`.bootstrap` (rouge-score's intervals), :mod:`.coco`
(pycocoevalcap's ROUGE-L of captions, ``convention="coco"``: its words, its choice of references),
:mod:`.functional` and :mod:`.metric` (the public API).

Words: :mod:`.words` reads strings as rouge-score's tokenizer does (:mod:`.stemming`,
:mod:`.unicode_tokens`), :mod:`.code_points` reads decoded code points on their device; each word keeps
the number of its sentence (a newline, or ``sentence_sep_id`` in rows of ids, starts one).
:func:`.statistics.pair_statistics` alone chooses where rows of words are counted: on the host
(:mod:`.host_statistics`, :mod:`.host_union_lcs`) or on the device (:mod:`.device_statistics`,
:mod:`.device_lcs`).

Where ``rougeLsum`` (:class:`.kinds.UnionLCS`) is computed, for each kind of input
(:mod:`torch_bleu.inputs.kinds`):

* strings: :func:`.words.text_words` (sentences at newlines), then on the host
  :func:`.host_statistics.host_pair_statistics`: where both summaries are one sentence the LCS
  (rapidfuzz), else :func:`.host_union_lcs.union_lcs_on_host` (bit-vectors, 32-bit lanes), its marked
  words clipped by the prediction's;
* token ids: sentences at ``sentence_sep_id``; on the CPU the same host kernels, on an accelerator
  :func:`.device_statistics.device_pair_statistics` with :func:`.device_lcs.union_lcs_marks`, its marked
  words clipped by the engine's unigram counts;
* subword ids: decoded on their device (:mod:`torch_bleu.detokenize`), words and sentences (at
  newlines) by :func:`.code_points.rouge_char_words`, then counted as token ids are; with
  ``use_stemmer`` or ``split_sentences`` the decoded text comes to the host and is counted as strings are.

:mod:`.sentence_splitting` splits text into sentences with the user's splitter (``split_sentences``) and
warns when ``rougeLsum`` can only equal ``rougeL``.
"""
