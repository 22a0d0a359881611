"""Constituency trees to dependencies with head rules.

1. Penn null elements are removed first: every preterminal tagged ``-NONE-``
   goes, then every node left with no children (bottom-up).
2. Words are numbered 1..n left to right (a preterminal's tag is the XPOS,
   and the UPOS through the table's ``@upos`` lines, or the tag itself when
   the table has none; a bare word of a square-bracket tree gets tag ``_``).
3. Bottom-up, each node's head child is chosen by the head rules
   (:mod:`parseval.annotations.trees.headrules`); a node's lexical head is its head
   child's lexical head, and the lexical head of every other child depends on
   it. The root's lexical head gets HEAD 0.
4. The relation label of a dependent is the label, without function tags, of
   its maximal projection (the highest node it heads): ``NP``, ``PP``,
   ``ADVP``, or the POS tag for a bare preterminal; the root word gets
   ``ROOT``. Labels therefore say *what* attaches, not the grammatical
   function, so that converting trees with and without function tags gives
   comparable labels.
"""
from __future__ import annotations

from parseval.annotations.conllu import DepSentence, Word
from parseval.annotations.trees.headrules import HeadRules, base_label, load_head_rules
from parseval.annotations.trees.tree import Tree
from parseval.annotations.trees.transforms import apply_transforms
from parseval.evaluation.deps.metrics import score_dependencies
from parseval.evaluation.signature import make_signature

NULL_TAG = "-NONE-"


def remove_null_elements(tree: Tree, null_tag: str = NULL_TAG) -> Tree | None:
    """``tree`` without ``-NONE-`` preterminals and the nodes they leave empty (None if nothing is left).

    The input is not modified; unchanged subtrees are shared with it, not
    copied (a tree without null elements comes back as itself), so copy the
    result before changing it in place.
    """
    if tree.is_word:
        return tree
    if tree.is_preterminal:
        return None if tree.label == null_tag else tree
    changed = False
    kids = []
    for k in tree.children:
        nk = remove_null_elements(k, null_tag)
        if nk is not k:
            changed = True
        if nk is not None:
            kids.append(nk)
    if not changed:
        return tree
    if not kids:
        return None
    return type(tree)(tree.label, kids)


def tree_to_dependencies(
    tree: Tree,
    rules: HeadRules | str = "penn",
    *,
    index: int = 1,
    file: str | None = None,
    head_functions=None,
) -> DepSentence:
    if not isinstance(rules, HeadRules) or head_functions:
        rules = load_head_rules(rules, head_functions=head_functions)
    clean = remove_null_elements(tree)
    sent = DepSentence(file=file, index=index, comments=[f"sent_id = {index}"])
    if clean is None:
        return sent
    words: list[Word] = []

    def walk(node: Tree) -> int:
        """Return the word id of ``node``'s lexical head."""
        if node.is_word:
            words.append(Word(len(words) + 1, node.word, upos="_", xpos="_"))
            return len(words)
        if node.is_preterminal:
            tag = base_label(node.label) or "_"
            words.append(Word(len(words) + 1, node.children[0].word, upos=rules.upos_of(tag), xpos=tag))
            return len(words)
        heads = [walk(k) for k in node.children]
        h = rules.head_index(node)
        for i, (kid, wid) in enumerate(zip(node.children, heads)):
            if i == h:
                continue
            w = words[wid - 1]
            w.head = heads[h]
            w.deprel = (base_label(kid.label) if not kid.is_word else "_") or "_"
        return heads[h]

    root = walk(clean)
    words[root - 1].head = 0
    words[root - 1].deprel = "ROOT"
    sent.words = words
    sent.comments.append("text = " + " ".join(w.form for w in words))
    return sent


def trees_to_dependencies(
    trees: list[Tree],
    rules: HeadRules | str = "penn",
    *,
    head_functions=None,
    file: str | None = None,
) -> list[DepSentence]:
    """Convert every tree (input trees are not modified)."""
    rules = load_head_rules(rules, head_functions=head_functions)
    return [tree_to_dependencies(t, rules, index=i, file=file) for i, t in enumerate(trees, 1)]


def conversion_reliability(
    trees: list[Tree],
    rules: HeadRules | str = "penn",
    *,
    head_functions=None,
    punct=None,
) -> dict:
    """The paper's reliability check: convert with function labels and again with them
    stripped, and score the second against the first (Lin P/R/F, UAS, LAS; fractions).

    ``punct``: a :class:`~parseval.evaluation.deps.metrics.PunctRule` or spec; default the
    Penn punctuation tags (evalb's COLLINS.prm set) on XPOS.
    """
    rules = load_head_rules(rules, head_functions=head_functions)
    with_f = trees_to_dependencies(trees, rules)
    without = trees_to_dependencies(apply_transforms(trees, "strip-functions"), rules)
    doc = score_dependencies(with_f, without, punct=punct or "penn", pos="xpos")
    doc["signature"] = make_signature(
        "conversion-reliability", head_rules=rules.name,
        head_functions=sorted(rules.head_functions) or None, punct=punct or "penn")
    doc["metric"] = "conversion-reliability"
    return doc
