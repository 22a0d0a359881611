"""The error-insertion lab (after Rehbein & van Genabith 2007).

Correct trees are damaged with errors of a known type, and the damaged trees
are scored against the originals with evalb (PARSEVAL), the leaf-ancestor
metric and a dependency evaluation (both sides converted with the same head
rules). The same errors cost different amounts under different annotation
schemes and metrics: that is what the lab measures.

Error types (labels come from :class:`LabLabels`, one set per treebank):

``ATTACH I``
    a PP that is the last child of an NP (which is not the root) leaves the
    NP and becomes the NP's next sister (attached one level higher).
``ATTACH II``
    a PP whose parent is a clause, a VP or a middle field and whose left
    sister is an NP is moved into that NP as its last child (attached to the
    preceding noun instead of the verb).
``LABEL I``
    a PP is relabelled NP (function tags kept: ``PP-LOC`` -> ``NP-LOC``).
``LABEL II``
    a VP is relabelled PP.
``SPAN I``
    the word just left of a PP, inside the PP's left sister, is an adverb:
    it moves into the PP as its first child, together with any unary nodes
    above it that cover only that word (an ``ADVP`` over a lone ``RB``);
    nodes left empty are removed.
``SPAN II``
    the same with a noun.
``SPAN III``
    SPAN I and SPAN II in the same sentence: a SPAN I insertion, then a
    SPAN II insertion in the damaged tree.

Insertion: each type is inserted at most once per sentence. With
``random.Random(f"{seed}|{type}")`` the sentences are visited in a shuffled
order (the same order for every treebank of the same size, so that two
versions of the same corpus are damaged at the same sentences whenever both
offer a place), a place is picked at random among the sentence's places, and
this stops after ``per_type`` insertions (``None``: every sentence with a
place). The report gives, per type and treebank, the insertions made and the
sentences that offered a place; a type that found no place is listed under
``not_applied``.

Scoring: for each type, the damaged sentences against their originals.
``weighted`` is the mean of the per-type scores weighted by the number of
insertions of each type; ``pooled`` scores all damaged sentences of all
types as one test set (computed from the per-type counts: brackets for
evalb, words and sentences for leaf-ancestor, triples and words for the
dependencies).
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from parseval.annotations.errors import InputError
from parseval.annotations.trees.headrules import base_label, split_label, MIN_FIT, fit, load_head_rules
from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import make_signature
from parseval.evaluation.deps.convert import trees_to_dependencies, remove_null_elements
from parseval.evaluation.deps.metrics import PunctRule, score_dependencies
from parseval.evaluation.deps.treemetrics import evalb_scores, leaf_ancestor_scores, implementations

ERROR_TYPES = ("ATTACH I", "ATTACH II", "LABEL I", "LABEL II", "SPAN I", "SPAN II", "SPAN III")


# -- labels per treebank --------------------------------------------------------


@dataclass
class LabLabels:
    """Which labels play which role in a treebank's scheme."""

    pp: list[str] = field(default_factory=lambda: ["PP"])
    np: list[str] = field(default_factory=lambda: ["NP"])
    vp: list[str] = field(default_factory=lambda: ["VP"])
    clause: list[str] = field(default_factory=lambda: ["S", "SINV", "SQ", "SBAR", "SBARQ"])
    middle_field: list[str] = field(default_factory=list)
    adverb_tags: list[str] = field(default_factory=lambda: ["RB", "RBR", "RBS"])
    noun_tags: list[str] = field(default_factory=lambda: ["NN", "NNS", "NNP", "NNPS"])
    punct_tags: list[str] = field(default_factory=lambda: [",", ":", "``", "''", "."])
    head_rules: str = "penn"
    head_functions: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict, *, file: str | None = None) -> "LabLabels":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown label keys {sorted(unknown)} (known: {sorted(known)})", file=file)
        kw = {}
        for k, v in data.items():
            if k == "head_rules":
                if not isinstance(v, str):
                    raise InputError("head_rules must be a string (penn or a file)", file=file)
                kw[k] = v
            elif isinstance(v, str):
                kw[k] = v.split()
            elif isinstance(v, list) and all(isinstance(x, str) for x in v):
                kw[k] = list(v)
            else:
                raise InputError(f"{k} must be a list of labels or a space-separated string", file=file)
        return cls(**kw)


PRESETS: dict[str, LabLabels] = {
    "penn": LabLabels(),
    # TIGER: flat NPs and PPs, S/VP, HD-marked heads
    "tiger": LabLabels(
        pp=["PP"], np=["NP"], vp=["VP"], clause=["S"], middle_field=[], adverb_tags=["ADV"],
        noun_tags=["NN", "NE"], punct_tags=["$,", "$.", "$("], head_functions=["HD"]),
    # TüBa-D/Z: phrases PX/NX/VXFIN..., clauses SIMPX, topological fields
    "tueba": LabLabels(
        pp=["PX"], np=["NX"], vp=["VXFIN", "VXINF"], clause=["SIMPX", "R-SIMPX"], middle_field=["MF"],
        adverb_tags=["ADV"], noun_tags=["NN", "NE"], punct_tags=["$,", "$.", "$("], head_functions=["HD"]),
    # French Treebank and Sequoia (CC tag set): verbal nucleus VN and infinitival / participial phrases
    # as verb phrases, SENT and the subordinate, inserted and relative clauses, the French head rules
    "ftb": LabLabels(
        pp=["PP"], np=["NP"], vp=["VN", "VPinf", "VPpart"], clause=["SENT", "Ssub", "Sint", "Srel"],
        middle_field=[], adverb_tags=["ADV"], noun_tags=["NC", "NPP"], punct_tags=["PONCT"],
        head_rules="ftb"),
}
DEFAULT_PRESET = "penn"
_LABEL = re.compile(r"[(\[]\s*([^\s()\[\]]+)")


def labels_in_text(text: str) -> set[str]:
    """The labels of a bracketed text (phrases and tags, function tags removed), read without parsing it."""
    return {base_label(label) for label in _LABEL.findall(text)}


def preset_for_labels(labels) -> str:
    """The preset that gives a role to the most labels of the set (ties: the first, penn).

    Sequoia's labels: 14 in the French Treebank roles, 2 in the Penn ones (NP, PP), 3 in TIGER's; the
    PTB sample's: 20 in the Penn roles, 5 in TIGER's, 2 in the French Treebank's. A few English trees
    with S, NP and VP only tie Penn and TIGER: Penn.
    """
    labels = set(labels)
    best, best_count = DEFAULT_PRESET, -1
    for name, preset in PRESETS.items():
        roles = {label for values in (preset.pp, preset.np, preset.vp, preset.clause, preset.middle_field,
                                      preset.adverb_tags, preset.noun_tags, preset.punct_tags) for label in values}
        count = len(roles & labels)
        if count > best_count:
            best, best_count = name, count
    return best


def preset_for_trees(trees) -> str:
    """:func:`preset_for_labels` of the trees' labels (phrases and tags)."""
    return preset_for_labels({base_label(node.label) for tree in trees for node in tree.subtrees()})


def load_lab_labels(spec: "str | Path | dict | LabLabels | None") -> LabLabels:
    """A preset name (penn, tiger, tueba, ftb), a JSON or TOML file, a dict, or a :class:`LabLabels`."""
    if spec is None:
        return LabLabels()
    if isinstance(spec, LabLabels):
        return spec
    if isinstance(spec, dict):
        return LabLabels.from_dict(spec)
    key = str(spec)
    if key in PRESETS:
        return PRESETS[key]
    path = Path(key)
    if not path.is_file():
        raise InputError(f"labels {key!r}: neither a preset ({', '.join(PRESETS)}) nor a file")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"not valid TOML: {exc}", file=str(path)) from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError("the labels file must hold one object/table", file=str(path))
    return LabLabels.from_dict(data, file=str(path))


# -- tree helpers -------------------------------------------------------------------


def _walk(node: Tree, parent: Tree | None = None) -> Iterator[tuple[Tree, Tree | None]]:
    """Pre-order (node, parent) over the non-word nodes."""
    stack = [(node, parent)]
    while stack:
        n, p = stack.pop()
        if n.word is not None:
            continue
        yield n, p
        stack.extend((k, n) for k in reversed(n.children))


def _has(node: Tree, labels) -> bool:
    return node.word is None and base_label(node.label) in labels and not node.is_preterminal


def _relabel(node: Tree, new_base: str) -> None:
    base, _ = split_label(node.label)
    node.label = new_base + node.label[len(base):]


def _index(parent: Tree, node: Tree) -> int:
    for i, kid in enumerate(parent.children):
        if kid is node:
            return i
    raise ValueError("not a child")


def _detach(parent: Tree, node: Tree) -> None:
    """Remove ``node`` from ``parent`` by identity (Tree equality is structural:
    ``list.remove`` would take the first *equal* sister)."""
    del parent.children[_index(parent, node)]


def _rightmost_chain(node: Tree) -> list[Tree]:
    """``node`` and its rightmost descendants down to the last preterminal (or word)."""
    chain = [node]
    while not chain[-1].is_word and not chain[-1].is_preterminal and chain[-1].children:
        chain.append(chain[-1].children[-1])
    return chain


def _prune_empty(node: Tree) -> None:
    """Remove, bottom-up, non-word nodes that have no children left."""
    for kid in node.children:
        if not kid.is_word:
            _prune_empty(kid)
    node.children = [k for k in node.children if k.is_word or k.children]


# -- the error types ------------------------------------------------------------------
# Each finder gets the (node, parent) pairs of a tree and returns its places;
# each place is a zero-argument function that makes the change in place (on
# a working copy).

Place = Callable[[], None]


def _attach1(nodes: list, L: LabLabels) -> list[Place]:
    parents = {id(n): p for n, p in nodes}
    places = []
    for node, parent in nodes:
        if parent is None or not _has(node, L.pp) or not _has(parent, L.np):
            continue
        if parent.children[-1] is not node or len(parent.children) < 2:
            continue
        grand = parents.get(id(parent))
        if grand is None:
            continue

        def apply(pp=node, np=parent, g=grand):
            np.children.pop()
            g.children.insert(_index(g, np) + 1, pp)

        places.append(apply)
    return places


def _attach2(nodes: list, L: LabLabels) -> list[Place]:
    hosts = set(L.clause) | set(L.vp) | set(L.middle_field)
    places = []
    for node, parent in nodes:
        if parent is None or not _has(node, L.pp) or not _has(parent, hosts):
            continue
        i = _index(parent, node)
        if i == 0 or not _has(parent.children[i - 1], L.np):
            continue

        def apply(pp=node, host=parent, np=parent.children[i - 1]):
            _detach(host, pp)
            np.children.append(pp)

        places.append(apply)
    return places


def _relabel_places(src: str, dst: str) -> Callable[[list, LabLabels], list[Place]]:
    def finder(nodes: list, L: LabLabels) -> list[Place]:
        labels = getattr(L, src)
        places = []
        for node, parent in nodes:
            if parent is not None and _has(node, labels):
                places.append(lambda n=node: _relabel(n, getattr(L, dst)[0]))
        return places

    return finder


def _span(tags_attr: str) -> Callable[[list, LabLabels], list[Place]]:
    def finder(nodes: list, L: LabLabels) -> list[Place]:
        tags = set(getattr(L, tags_attr))
        places = []
        for node, parent in nodes:
            if parent is None or not _has(node, L.pp):
                continue
            i = _index(parent, node)
            if i == 0:
                continue
            chain = _rightmost_chain(parent.children[i - 1])
            pre = chain[-1]
            if not pre.is_preterminal or base_label(pre.label) not in tags:
                continue
            # move the highest node of the chain that covers only this word
            k = len(chain) - 1
            while k > 0 and len(chain[k - 1].children) == 1:
                k -= 1
            moved = chain[k]
            holder = chain[k - 1] if k > 0 else parent

            def apply(pp=node, moved=moved, holder=holder, top=parent):
                _detach(holder, moved)
                pp.children.insert(0, moved)
                _prune_empty(top)

            places.append(apply)
        return places

    return finder


_FINDERS = {
    "ATTACH I": _attach1,
    "ATTACH II": _attach2,
    "LABEL I": _relabel_places("pp", "np"),
    "LABEL II": _relabel_places("vp", "pp"),
    "SPAN I": _span("adverb_tags"),
    "SPAN II": _span("noun_tags"),
}


def _places(tree: Tree, error_type: str, labels: LabLabels) -> list[Place]:
    return _FINDERS[error_type](list(_walk(tree)), labels)


def census(tree: Tree, labels: LabLabels | None = None) -> dict[str, int]:
    """Places per error type in ``tree``, in one walk (SPAN III: SPAN I places if SPAN II places exist too)."""
    labels = labels or LabLabels()
    nodes = list(_walk(tree))
    out = {t: len(f(nodes, labels)) for t, f in _FINDERS.items()}
    out["SPAN III"] = out["SPAN I"] if out["SPAN II"] else 0
    return out


def find_places(tree: Tree, error_type: str, labels: LabLabels | None = None) -> int:
    """How many places ``tree`` offers for ``error_type``."""
    return census(tree, labels)[_check_type(error_type)]


def _check_type(error_type: str) -> str:
    if error_type not in ERROR_TYPES:
        raise InputError(f"unknown error type {error_type!r} (known: {', '.join(ERROR_TYPES)})")
    return error_type


def insert_error(tree: Tree, error_type: str, labels: LabLabels | None = None,
                 rng: random.Random | None = None) -> Tree | None:
    """A damaged copy of ``tree`` with one error of ``error_type``, or None if it offers no place."""
    labels = labels or LabLabels()
    rng = rng or random.Random(0)
    _check_type(error_type)
    work = tree.copy()
    steps = ["SPAN I", "SPAN II"] if error_type == "SPAN III" else [error_type]
    if error_type == "SPAN III" and not (_places(work, "SPAN I", labels) and _places(work, "SPAN II", labels)):
        return None
    for step in steps:
        places = _places(work, step, labels)
        if not places:
            return None
        rng.choice(places)()
    return work


def insert_errors(trees: list[Tree], error_type: str, labels: LabLabels | None = None, *,
                  seed: int = 0, per_type: int | None = 100, censuses: list[dict] | None = None) -> dict:
    """Damage up to ``per_type`` sentences with ``error_type``; the input is not modified.

    ``censuses``: :func:`census` of every tree, when already computed.

    Returns ``{"indices": [...], "damaged": [Tree...], "insertions": n,
    "sentences_with_place": m}`` (indices into ``trees``, in visiting order).
    """
    labels = labels or LabLabels()
    _check_type(error_type)
    rng = random.Random(f"{seed}|{error_type}")
    order = list(range(len(trees)))
    rng.shuffle(order)
    indices, damaged = [], []
    with_place = 0
    if censuses is None:
        censuses = [census(t, labels) for t in trees]
    for i in order:
        if censuses[i][error_type] == 0:
            continue
        with_place += 1
        if per_type is not None and len(indices) >= per_type:
            continue
        out = insert_error(trees[i], error_type, labels, rng)
        if out is None:
            continue
        indices.append(i)
        damaged.append(out)
    return {"indices": indices, "damaged": damaged, "insertions": len(indices),
            "sentences_with_place": with_place}


# -- scoring -----------------------------------------------------------------------------


RATIOS = {
    "evalb": ("precision", "recall", "f"),
    "leaf_ancestor": ("word_mean", "sentence_mean"),
    "dependency": ("uas", "las", "precision", "recall", "f"),
}


def _score(gold: list[Tree], test: list[Tree], labels: LabLabels, rules) -> dict | None:
    if not gold:
        return None
    deps = score_dependencies(
        trees_to_dependencies(gold, rules), trees_to_dependencies(test, rules),
        punct=PunctRule("xpos", frozenset(labels.punct_tags)), pos="xpos")["totals"]
    return {
        "sentences": len(gold),
        "evalb": evalb_scores(gold, test),
        "leaf_ancestor": leaf_ancestor_scores(gold, test),
        "dependency": {k: deps[k] for k in ("uas", "las", "precision", "recall", "f",
                                            "words", "gold", "test", "matched")},
    }


def _weighted(per_type: dict, counts: dict) -> dict | None:
    """Mean of the per-type ratios, each type weighted by its number of insertions."""
    total = sum(counts[t] for t in per_type if per_type[t])
    if not total:
        return None
    out: dict = {m: {k: 0.0 for k in keys} for m, keys in RATIOS.items()}
    for t, sc in per_type.items():
        if not sc:
            continue
        w = counts[t] / total
        for metric, keys in RATIOS.items():
            for k in keys:
                out[metric][k] += w * sc[metric][k]
    out["insertions"] = total
    return out


def _pooled(per_type: dict) -> dict | None:
    """All damaged sentences of all types as one test set, from the per-type counts."""
    scored = [sc for sc in per_type.values() if sc]
    if not scored:
        return None

    def div(a, b):
        return a / b if b else 0.0

    def f(p, r):
        return 2 * p * r / (p + r) if p + r else 0.0

    ev = {k: sum(sc["evalb"][k] for sc in scored) for k in ("matched", "gold_brackets", "test_brackets")}
    ep, er = div(ev["matched"], ev["test_brackets"]), div(ev["matched"], ev["gold_brackets"])
    la_words = sum(sc["leaf_ancestor"]["words"] for sc in scored)
    la_sents = sum(sc["leaf_ancestor"]["sentences"] for sc in scored)
    dep = {k: sum(sc["dependency"][k] for sc in scored) for k in ("words", "gold", "test", "matched")}
    dp, dr = div(dep["matched"], dep["test"]), div(dep["matched"], dep["gold"])
    return {
        "sentences": sum(sc["sentences"] for sc in scored),
        "evalb": {"precision": ep, "recall": er, "f": f(ep, er), **ev},
        "leaf_ancestor": {
            "word_mean": div(sum(sc["leaf_ancestor"]["word_mean"] * sc["leaf_ancestor"]["words"]
                                 for sc in scored), la_words),
            "sentence_mean": div(sum(sc["leaf_ancestor"]["sentence_mean"] * sc["leaf_ancestor"]["sentences"]
                                     for sc in scored), la_sents),
            "words": la_words, "sentences": la_sents},
        "dependency": {
            "uas": div(sum(sc["dependency"]["uas"] * sc["dependency"]["words"] for sc in scored), dep["words"]),
            "las": div(sum(sc["dependency"]["las"] * sc["dependency"]["words"] for sc in scored), dep["words"]),
            "precision": dp, "recall": dr, "f": f(dp, dr), **dep},
    }


def run_error_lab(
    treebanks: dict[str, list[Tree]],
    labels: "dict[str, LabLabels | str | dict] | LabLabels | str | None" = None,
    *,
    seed: int = 12345,
    per_type: int | None = 100,
    types: list[str] | tuple[str, ...] = ERROR_TYPES,
    examples: int = 1,
    progress: Callable[[str, str], None] | None = None,
) -> dict:
    """Insert every error type into every treebank and score. JSON-serialisable.

    ``labels`` is one label set for all treebanks or a dict ``name -> label
    set`` (preset name, file, dict or :class:`LabLabels`); None (for all, or
    for one treebank) chooses the preset from that treebank's labels
    (:func:`preset_for_trees`), recorded as the bank's ``preset``. Returns::

        {"signature", "seed", "per_type", "types", "implementations",
         "treebanks": {name: {"sentences", "labels", "preset" (when chosen from the labels),
                              "insertions": {type: {"made", "sentences_with_place", "status"}},
                              "scores": {type: {"sentences", "evalb": {precision, recall, f},
                                                "leaf_ancestor": {word_mean, sentence_mean},
                                                "dependency": {uas, las, precision, recall, f}} | None},
                              "weighted": {...} | None, "pooled": {...} | None,
                              "examples": {type: [{"sentence", "before", "after"}]}}},
         "not_applied": [{"treebank", "type", "reason"}],
         "warnings": [{"treebank", "message"}] (head rules that do not fit a treebank's labels),
         "comparison": [{"type", name: {"evalb_f", "leaf_ancestor", "las", "insertions"}, ...}]}

    All scores are fractions in [0, 1]. ``progress(treebank, type)`` is called
    before each type is inserted and scored (for a Celery task's state).
    """
    if not treebanks:
        raise InputError("the error lab needs at least one treebank")
    for t in types:
        _check_type(t)
    if isinstance(labels, dict) and labels and set(labels) <= set(treebanks) and not (
        set(labels) & set(LabLabels.__dataclass_fields__)
    ):
        per_bank = {name: None if labels.get(name) is None else load_lab_labels(labels.get(name))
                    for name in treebanks}
    else:
        one = None if labels is None else load_lab_labels(labels)
        per_bank = {name: one for name in treebanks}

    result: dict = {
        "signature": make_signature(
            "error-lab", seed=seed, per_type="all" if per_type is None else per_type,
            types=[t.replace(" ", "") for t in types], evalb="COLLINS", la="sampson2003",
            deps="headrules"),
        "seed": seed,
        "per_type": per_type,
        "types": list(types),
        "implementations": implementations(),
        "treebanks": {},
        "not_applied": [],
        "warnings": [],
        "comparison": [],
    }
    for name, trees in treebanks.items():
        # null elements are not words (unchanged trees are shared, never modified: insertion copies)
        trees = [remove_null_elements(t) or Tree(t.label, []) for t in trees]
        L = per_bank[name]
        chosen = preset_for_trees(trees) if L is None else None
        if chosen is not None:
            L = PRESETS[chosen]
        rules = load_head_rules(L.head_rules, head_functions=L.head_functions)
        bank = {"sentences": len(trees), "labels": asdict(L), "insertions": {}, "scores": {},
                "examples": {}}
        by_rule, branching, _, _ = fit(trees, rules)
        if branching and by_rule / branching < MIN_FIT:
            # a table for another tag set chooses heads by its fallback: say so beside LAS and UAS
            result["warnings"].append({"treebank": name, "message": (
                f"head rules {rules.name!r} find only {by_rule} of {branching} heads of these trees by a rule "
                f"({100 * by_rule / branching:.1f}%): LAS and UAS are not meaningful; choose the label roles "
                "(and their head_rules) of this treebank's tag set")})
        if chosen is not None:
            bank["preset"] = chosen
        counts = {}
        censuses = [census(tree, L) for tree in trees]
        for t in types:
            if progress is not None:
                progress(name, t)
            ins = insert_errors(trees, t, L, seed=seed, per_type=per_type, censuses=censuses)
            made = ins["insertions"]
            counts[t] = made
            status = "ok" if made else "no place"
            bank["insertions"][t] = {"made": made, "sentences_with_place": ins["sentences_with_place"],
                                     "status": status}
            if not made:
                result["not_applied"].append({
                    "treebank": name, "type": t,
                    "reason": "no sentence offers a place for this error with these labels"})
                bank["scores"][t] = None
                bank["examples"][t] = []
                continue
            gold = [trees[i] for i in ins["indices"]]
            bank["scores"][t] = _score(gold, ins["damaged"], L, rules)
            bank["examples"][t] = [
                {"sentence": i + 1, "before": trees[i].to_penn(), "after": d.to_penn()}
                for i, d in list(zip(ins["indices"], ins["damaged"]))[:examples]
            ]
        bank["weighted"] = _weighted(bank["scores"], counts)
        bank["pooled"] = _pooled(bank["scores"])
        result["treebanks"][name] = bank

    for t in list(types) + ["weighted", "pooled"]:
        row: dict = {"type": t}
        for name, bank in result["treebanks"].items():
            sc = bank[t] if t in ("weighted", "pooled") else bank["scores"][t]
            row[name] = None if not sc else {
                "evalb_f": sc["evalb"]["f"],
                "leaf_ancestor": sc["leaf_ancestor"]["word_mean"],
                "las": sc["dependency"]["las"],
                "uas": sc["dependency"]["uas"],
                "insertions": sc.get("insertions", sc.get("sentences")),
            }
        result["comparison"].append(row)
    return result


def format_report(result: dict) -> str:
    names = list(result["treebanks"])
    lines = [f"signature: {result['signature']}", ""]
    head = f"{'error type':<12}" + "".join(f"| {n[:30]:<38}" for n in names)
    sub = f"{'':<12}" + "".join(f"| {'n':>5} {'evalb F':>8} {'LA':>7} {'LAS':>7} {'UAS':>7} " for _ in names)
    lines += [head, sub, "-" * len(sub)]
    for row in result["comparison"]:
        cells = []
        for n in names:
            c = row[n]
            if c is None:
                cells.append(f"| {'no place':>38} ")
            else:
                cells.append(f"| {c['insertions']:>5} {100 * c['evalb_f']:>8.2f} {100 * c['leaf_ancestor']:>7.2f}"
                             f" {100 * c['las']:>7.2f} {100 * c['uas']:>7.2f} ")
        lines.append(f"{row['type']:<12}" + "".join(cells))
    lines.append("")
    for n in names:
        b = result["treebanks"][n]
        made = ", ".join(f"{t}: {v['made']}/{v['sentences_with_place']}" for t, v in b["insertions"].items())
        chosen = f" (label roles: preset {b['preset']}, chosen from the trees' labels)" if b.get("preset") else ""
        lines.append(f"{n}: {b['sentences']} sentences{chosen}; insertions made / sentences with a place: {made}")
    for na in result["not_applied"]:
        lines.append(f"not applied: {na['type']} in {na['treebank']} ({na['reason']})")
    for w in result.get("warnings", []):
        lines.append(f"warning: {w['treebank']}: {w['message']}")
    impl = result.get("implementations", {})
    if impl:
        lines.append("metrics: " + "; ".join(f"{k} = {v}" for k, v in impl.items()))
    return "\n".join(lines) + "\n"
