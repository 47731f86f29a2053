"""CIDEr-D as pycocoevalcap 1.2's ``Cider().compute_score`` computes it (COCO captioning's "CIDEr").

:mod:`.config` (the options), :mod:`.counting` (strings or rows of ids to one flat corpus of word ids),
:mod:`.consensus` (the TF-IDF n-gram vectors and their clipped, length-penalized cosines, in NumPy) and
:mod:`.functional` (the public API). Document frequencies come from every image's references at once, so
scores are computed per call, on the host.
"""
