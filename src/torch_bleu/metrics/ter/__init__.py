"""TER (sacrebleu's ``TER``): edits, word-block shifts included, per mean reference word.

:mod:`.config` (the options, and the most references a sentence may have), :mod:`.counting` (input to
each sentence's statistics), :mod:`.statistics` (words, and each sentence's fewest edits and mean
reference length), :mod:`.score` (TER of summed statistics), :mod:`.functional` and :mod:`.metric` (the
public API), :mod:`.corpus` and :mod:`.command_line` (whole corpora for the command line).

Every kind of input is counted on the host, where sacrebleu's greedy shift search runs: strings as
they are, subword ids decoded on their device and read back as strings (:mod:`.counting`). The search
(:mod:`.shifts`) works on every pair of a batch at once; its edit distances are rapidfuzz's where
sacrebleu's beam cannot change them (:mod:`.candidate_distance`), else the beam's own
(:mod:`.edit_distance`, within :mod:`.band`).
"""
