"""What users pass as ``preds`` and ``target``, checked and brought to the shapes the metrics count.

:mod:`.ids` takes padded, multi-reference and ragged token ids; :mod:`.strings` takes strings, and subword
ids beside reference strings; both give a :class:`~.batch.TokenBatch`, except strings that a metric reads
as text (:func:`~.strings.sentences`). Shapes and dtypes are checked before anything is counted, and never
by reading a device's values.
"""
