"""CIDEr-D as pycocoevalcap 1.2's ``Cider().compute_score`` computes it (COCO captioning's "CIDEr"), and the
self-critical training reward built on it.

:mod:`.config` (the options), :mod:`.counting` (strings or rows of ids to padded rows of word ids, each image's
references beside its captions), :mod:`.consensus` (the TF-IDF n-gram vectors and their clipped,
length-penalized cosines, in PyTorch on the ids' device), :mod:`.document_frequency` (a training corpus' document
frequencies, self-critical.pytorch's pickles) and :mod:`.training_corpus` (counting them), :mod:`.scoring`
(the three together), :mod:`.functional` and :mod:`.metric` (the public API) and :mod:`.self_critical` (the
SCST reward). Document frequencies come from every image's references at once (a corpus is scored in one call
or one ``compute()``), or from a training corpus.
"""
