"""How plausible are dependency trees converted from Sequoia's constituency trees with a head-rule table?

    python scripts/head_rules_uas.py [--head-rules penn,ftb] [--data ../shared/data]

Every Sequoia tree (``sequoia-const``) is converted with each table and
scored against its UD French Sequoia sentence (``ud-french``, matched by
``sent_ids.tsv``) with the CoNLL 2018 scorer: words are aligned on the
characters, so the multiword units of the trees (``à_peu_près``, one word,
read with spaces; ``-LRB-`` read as ``(``) and UD's split contractions (*au* = *à le*) simply stay
unaligned. Prints, per table, the number of branching nodes that found their
head by a rule, UAS (F1 over all words, and accuracy over aligned words) and
UPOS accuracy. The two schemes differ by design (UD makes content words heads:
the noun heads a prepositional phrase, the French Treebank table the
preposition), so the figure measures plausibility, not a target of 100.
The table check (``check_fit``) is skipped here so that every table can be
measured.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parseval.annotations.conllu import write_conllu  # noqa: E402
from parseval.annotations.trees.detect import read_trees  # noqa: E402
from parseval.annotations.trees.escapes import unescape_word  # noqa: E402
from parseval.annotations.trees.headrules import load_head_rules  # noqa: E402
from parseval.evaluation.deps.conll18 import score_conll18  # noqa: E402
from parseval.evaluation.deps.conll18_reader import parse_conll18  # noqa: E402
from parseval.evaluation.deps.convert import tree_to_dependencies  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
TYPO = "Europar.550_00017"  # C02 in the trees, CO2 in UD (see the data README)


def ud_blocks(folder: Path) -> dict[str, str]:
    out = {}
    for split in ("train", "dev", "test"):
        for block in (folder / f"fr_sequoia-ud-{split}.conllu").read_text(encoding="utf-8").strip().split("\n\n"):
            sent_id = next(line.split("=", 1)[1].strip() for line in block.split("\n")
                           if line.startswith("# sent_id"))
            out[sent_id] = block
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--head-rules", default="penn,ftb")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    trees = read_trees(args.data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict")
    ids = [row.split("\t")[0] for row in
           (args.data / "sequoia-const" / "sent_ids.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    ud = ud_blocks(args.data / "ud-french")
    pairs = [(tree, sent_id) for tree, sent_id in zip(trees, ids) if sent_id != TYPO and sent_id in ud]
    gold = parse_conll18("\n\n".join(ud[sent_id] for _, sent_id in pairs) + "\n\n", file="UD Sequoia")
    print(f"{len(pairs)} sentences")
    for name in args.head_rules.split(","):
        rules = load_head_rules(name)
        sents, branching, by_rule = [], 0, 0
        for index, (tree, _) in enumerate(pairs, 1):
            for node in tree.subtrees():
                if len(node.children) > 1:
                    branching += 1
                    by_rule += rules.by_rule(node)
            sent = tree_to_dependencies(tree, rules, index=index)
            for word in sent.words:
                word.form = unescape_word(word.form).replace("_", " ")
            sents.append(sent)
        rows = score_conll18(gold, parse_conll18(write_conllu(sents), file=name))["rows"]
        uas, upos = rows["UAS"], rows["UPOS"]
        print(f"{name:6} by rule {100 * by_rule / branching:5.1f}%  UAS F1 {100 * uas['f1']:5.2f}  "
              f"UAS aligned {100 * uas['aligned_accuracy']:5.2f}  UPOS aligned {100 * upos['aligned_accuracy']:5.2f}  "
              f"(words aligned {rows['Words']['correct']} of {rows['Words']['gold']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
