"""What users pass as ``preds`` and ``target``: its kind decided, checked, and brought to the shapes the metrics count.

:mod:`.kinds` is the one dispatch every metric reads its batch through: strings as ``Text``, rows of ids as
``TokenIds``, subword ids as ``SubwordIds``; :mod:`.advice` words what a metric says of input of the wrong
kind. :mod:`.ids` takes padded, multi-reference and ragged token ids; :mod:`.strings` takes strings, and
subword ids beside reference strings; ids become a :class:`~.batch.TokenBatch`. Shapes and dtypes are
checked before anything is counted, and never by reading a device's values.
"""
