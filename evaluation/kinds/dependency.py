"""Dependency campaigns: CoNLL-U runs, scored with Lin's triples, UAS and LAS.

``Campaign.metrics``: ``{"punct": "upos", "pos": "upos"}`` (the options of
:func:`evaluation.deps.score_dependencies`; these are the defaults).
"""
from __future__ import annotations

from pathlib import Path

from annotations.errors import InputError

from .base import Parsed, SentenceKind

METRIC = "dependency"


def dependency_figures(doc: dict) -> list[dict]:
    t = doc["totals"]
    rows = [{"layer": "deps-lin", "p": t["precision"], "r": t["recall"], "f": t["f"], "fc": t["matched"],
             "fp": t["test"], "cr": t["gold"]},
            {"layer": "deps-uas", "f": t["uas"]}]
    if "las" in t:
        rows.append({"layer": "deps-las", "f": t["las"]})
    return rows


class DependencyKind(SentenceKind):
    name = "dependency"
    label = "Dependency trees"
    suffixes = (".conllu", ".conll")
    file_label = "CoNLL-U file"

    def read(self, path: Path, display: str) -> list[Parsed]:
        from annotations.conllu import parse_conllu

        text = Path(path).read_bytes().decode("utf-8")
        if not text.strip():
            raise InputError("empty file: no sentence", file=display)
        sentences = parse_conllu(text, file=display)
        return [Parsed(s, [w.form for w in s.words], s.sent_id or str(i), s.line)
                for i, s in enumerate(sentences, 1)]

    def write(self, units: list) -> bytes:
        from annotations.conllu import write_conllu

        return write_conllu(units).encode("utf-8")

    def parameters(self, campaign) -> dict:
        options = campaign.metrics or {}
        return {"metrics": [METRIC], "punct": options.get("punct") or "upos", "pos": options.get("pos", "upos")}

    def score_metric(self, metric: str, gold: list, test: list, params: dict) -> dict:
        from evaluation.deps import score_dependencies

        return score_dependencies(gold, test, punct=params["punct"], pos=params["pos"])

    def figures(self, metric: str, doc: dict) -> list[dict]:
        return dependency_figures(doc)
