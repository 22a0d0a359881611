"""Parse a CoNLL-U corpus with an installed spaCy pipeline, on its raw text or on its gold words.

    .venv/bin/python scripts/parse_with_spacy.py --model fr_core_news_sm --input GOLD.conllu \\
        --mode raw|gold-words --output OUT.conllu

``raw``: the parser tokenises and segments the ``# text`` lines itself (score
with ``python -m evaluation deps --preset conll18``); ``gold-words``: each gold
sentence's words are parsed as one sentence and written back with the gold
comments and multiword tokens. See ``parseval/annotations/spacy_conllu.py``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parseval.annotations.conllu import read_conllu  # noqa: E402
from parseval.annotations.spacy_conllu import load_pipeline, parse_gold_words, parse_raw_text  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="installed spaCy pipeline package, e.g. fr_core_news_sm")
    parser.add_argument("--input", required=True, help="gold CoNLL-U file")
    parser.add_argument("--mode", choices=["raw", "gold-words"], required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    gold = read_conllu(args.input)
    nlp = load_pipeline(args.model)
    start = time.perf_counter()
    text = parse_raw_text(nlp, gold) if args.mode == "raw" else parse_gold_words(nlp, gold)
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"{args.model} {args.mode}: {len(gold)} gold sentences parsed in {time.perf_counter() - start:.1f} s "
          f"-> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
