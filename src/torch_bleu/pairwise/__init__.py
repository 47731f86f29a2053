"""Scores of every candidate against every reference of the same source: pairwise sentence BLEU and
chrF (MBR utility matrices), self-BLEU, MBR selection, and BLEU / chrF rewards for RL trainers."""
