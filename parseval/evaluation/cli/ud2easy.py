"""``python -m evaluation ud2easy``: UD parses (CoNLL-U) -> EASY run documents.

``--corpus CORPUS``: an EASY file or a folder of them (forms and ids are what
count; gold files work too). ``--conllu PARSES``: a folder with one
``<document>.conllu`` per corpus document (or a single CoNLL-U file when CORPUS
is one file), whose sentences carry ``# sent_id = <EASY sentence id>``.
``--out RUN_DIR``: one run document per corpus document is written there under
the corpus file's name.
"""
from __future__ import annotations

import sys
from pathlib import Path

from parseval.annotations.conllu import read_conllu
from parseval.annotations.easy.reader import document_key, read_document
from parseval.annotations.easy.writer import write_document
from parseval.annotations.errors import InputError
from parseval.evaluation.easy.files import list_xml
from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION, convert_document


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", required=True, help="EASY corpus file or folder (forms and sentence ids)")
    parser.add_argument("--conllu", required=True, metavar="PARSES",
                        help="folder of <document>.conllu parses (or one .conllu file for a one-file corpus)")
    parser.add_argument("--out", required=True, metavar="RUN_DIR",
                        help="folder for the EASY run documents (created if missing)")


def _parse_file(conllu: Path, corpus_file: Path, single: bool) -> Path:
    if conllu.is_file():
        if not single:
            raise InputError("--conllu must be a folder when --corpus is a folder", file=str(conllu))
        return conllu
    if not conllu.is_dir():
        raise InputError(f"no such file or folder: {conllu}", file=str(conllu))
    path = conllu / f"{document_key(corpus_file.name)}.conllu"
    if not path.is_file():
        raise InputError(f"no parse for corpus document {corpus_file.name}: expected {path.name} in {conllu}",
                         file=str(path))
    return path


def run(args) -> int:
    corpus_files = list_xml(args.corpus)
    conllu = Path(args.conllu)
    out_dir = Path(args.out)
    jobs = []
    for cf in corpus_files:
        jobs.append((cf, _parse_file(conllu, cf, len(corpus_files) == 1 and Path(args.corpus).is_file())))
    docs = []
    for cf, pf in jobs:
        corpus = read_document(cf, gold=True)
        docs.append((cf, convert_document(corpus, read_conllu(pf), parse_file=str(pf))))
    out_dir.mkdir(parents=True, exist_ok=True)
    for cf, doc in docs:
        write_document(doc, out_dir / cf.name)
        groups = sum(len(s.groups) for s in doc.sentences)
        relations = sum(len(s.relations) for s in doc.sentences)
        sys.stdout.write(f"{cf.name}: {len(doc.sentences)} sentences, {groups} groups, {relations} relations\n")
    sys.stdout.write(f"{CONVERTER_VERSION}: {len(docs)} document(s) written to {out_dir}\n")
    return 0
