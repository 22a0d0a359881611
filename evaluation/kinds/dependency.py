"""Dependency campaigns: CoNLL-U runs, scored with Lin's triples, UAS and LAS.

``Campaign.metrics``: ``{"punct": "upos", "pos": "upos"}`` (the options of
:func:`evaluation.deps.score_dependencies`; these are the defaults).
"""
from __future__ import annotations

from pathlib import Path

from annotations.conllu import parse_conllu, write_conllu
from annotations.errors import InputError

from evaluation import metrics
from evaluation.deps.metrics import PunctRule

from .base import Parsed, SentenceKind, bootstrap_parameters

METRIC = "dependency"


class DependencyKind(SentenceKind):
    name = "dependency"
    label = "Dependency trees"
    suffixes = (".conllu", ".conll")
    file_label = "CoNLL-U file"
    option_keys = ("punct", "pos", "bootstrap", "seed")

    def check_options(self, options: dict) -> None:
        if options.get("punct"):
            try:
                PunctRule.parse(options["punct"])
            except Exception as exc:  # the parser's own message says what is wrong
                raise ValueError(f"punct: {exc}") from None
    file_help = ("One CoNLL-U file (.conllu; one sentence per corpus sentence, in order), or a .zip or .tar.gz "
                 "with one .conllu file per corpus document, named after it.")

    def read(self, path: Path, display: str) -> list[Parsed]:
        text = Path(path).read_bytes().decode("utf-8")
        if not text.strip():
            raise InputError("empty file: no sentence", file=display)
        sentences = parse_conllu(text, file=display)
        return [Parsed(s, [w.form for w in s.words], s.sent_id or str(i), s.line)
                for i, s in enumerate(sentences, 1)]

    def sizes(self, parsed: Parsed) -> dict[str, int]:
        return {"words": len(parsed.unit.words) + len(parsed.unit.extra)}  # multiword tokens and empty nodes too

    def write(self, units: list) -> bytes:
        return write_conllu(units).encode("utf-8")

    def parameters(self, campaign) -> dict:
        options = campaign.metrics or {}
        return {"metrics": [METRIC], "punct": options.get("punct") or "upos", "pos": options.get("pos", "upos"),
                **bootstrap_parameters(options)}

    def score_metric(self, metric: str, gold: list, test: list, params: dict):
        return metrics.get(metric).score_with_rows(gold, test, punct=params["punct"], pos=params["pos"])
