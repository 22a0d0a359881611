"""Size limits that every sentence of every file must respect, gold and runs alike.

Scoring only reads the sentences of the scoring subset, validation reads them
all. If validation accepted a sentence that scoring could not handle (a tree
too deep for a recursive walk, a sentence with so many relations that matching
takes minutes), a run's fate would depend on whether that sentence is a test
sentence: an oracle on the hidden test set. So the readers refuse, for every
sentence in the same way, whatever is beyond these limits, with the file, line
and sentence; everything within them is scored without failure (the tests
score sentences at the limits with every metric, under a reduced stack).

The figures leave a wide margin over real treebanks (the French Treebank,
Sequoia and the Penn Treebank have trees at most ~40 deep, sentences of a few
hundred words, and EASY gold at most a few hundred relations per sentence).
The total size of a run is bounded by the campaign's upload limit.
"""
from __future__ import annotations

from parseval.annotations.errors import Problem, N_

# brackets enclosing a word (Penn: ``(S (NP (NN x)))`` is 3 deep; square trees count the same way)
MAX_TREE_DEPTH = 200
# nodes of one tree, words included
MAX_TREE_NODES = 20_000
# words of one sentence: EASY forms, tree leaves, CoNLL-U words and empty nodes
MAX_SENTENCE_WORDS = 2_000
# EASY constituents (groups) and relations of one sentence
MAX_SENTENCE_GROUPS = 2_000
MAX_SENTENCE_RELATIONS = 4_000

WHAT = {
    "words": ("words", MAX_SENTENCE_WORDS),
    "nodes": ("tree nodes", MAX_TREE_NODES),
    "groups": ("constituents (groups)", MAX_SENTENCE_GROUPS),
    "relations": ("relations", MAX_SENTENCE_RELATIONS),
}


def depth_message(depth: int | None = None) -> str:
    found = f"more than {MAX_TREE_DEPTH}" if depth is None else str(depth)
    return f"tree nested {found} brackets deep: the limit is {MAX_TREE_DEPTH} for every sentence"


def size_problems(counts: dict[str, int], *, file: str | None, line: int | None, sentence: str | None,
                  element: str | None = None) -> list[Problem]:
    """A problem for each count of ``counts`` (keys of :data:`WHAT`) above its limit."""
    out = []
    for key, value in counts.items():
        label, limit = WHAT[key]
        if value > limit:
            out.append(Problem(N_('sentence too large: %(value)s %(label)s, the limit is %(limit)s for every sentence') % {"value": value, "label": label, "limit": limit},
                               file=file, line=line, sentence=sentence, element=element))
    return out


def tree_nodes(tree) -> int:
    """Nodes of a tree, words included, without recursion."""
    nodes, stack = 0, [tree]
    while stack:
        node = stack.pop()
        nodes += 1
        stack.extend(node.children)
    return nodes
