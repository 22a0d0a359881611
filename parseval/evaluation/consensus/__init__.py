"""Combining every run of a campaign into one consensus annotation.

EASY set out "to produce a treebank by combining automatically all the data
annotated by the participants". This package is that half of the protocol,
as pure functions over the annotation models, so that the command line
(``python -m evaluation combine``), the workers and the tests share one
implementation.

Every kind combines **sentence by sentence**: the runs' analyses of one
sentence are tallied as weighted votes (:mod:`.votes`), the winners are
assembled into one analysis that obeys the kind's well-formedness (EASY
groups never overlap, a dependency analysis is a tree, brackets never
cross), and each kept item carries its *agreement*: the share of the total
weight that voted for it. Memory therefore grows with the longest sentence
and the number of runs, never with the corpus.

* EASY (:mod:`.easy`): groups by weighted vote, then the non-overlapping
  selection of maximal weight among those above the threshold; relations by
  weighted vote on (type, argument ranges), mapped onto the chosen groups.
* Dependencies (:mod:`.deps`): reparsing after Sagae and Lavie (2006):
  weighted arc votes, a maximum spanning tree (Chu-Liu-Edmonds, from
  networkx), labels by weighted vote among the runs that chose the arc.
* Constituency (:mod:`.trees`): constituent voting after Henderson and Brill
  (1999): labelled spans kept with more than half the weight always form a
  tree; tags by vote.

Weights are given by the caller: equal, or learned from the runs' scores on
the development sample (never on the test subset: see ``docs/consensus.md``).
"""
