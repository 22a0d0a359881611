"""The analysis of an EASY result (issue 38): the library's bucket counts (:mod:`parseval.evaluation.easy.buckets`:
relations, HYP EQUAL, the scorer's judgement) of the run against its gold, and one sentence drawn, groups as
brackets over the forms and relations as arcs, the gold's above, the run's below."""
from __future__ import annotations

from annotations.models import GoldDocument
from parseval.annotations.easy import read_document
from parseval.evaluation import stats
from parseval.evaluation.easy import buckets as easy_buckets
from evaluation.results.sentence_rows import RowsUnavailable

from .. import analysis
from ..contract import Analysis
from ..sentence_svg import easy_svg
from . import gold as easy_gold
from .conllu import scored_files


def analyse(result, schema) -> Analysis | None:
    run = result.run
    gold_docs, genres, checksum, _ = easy_gold.load_gold(run, schema)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    params = result.document.get("parameters") or {}
    bootstrap, seed = int(params.get("bootstrap", 1000)), int(params.get("seed", stats.DEFAULT_SEED))
    try:
        with scored_files(run) as files:  # a CoNLL-U run's converted XML
            counts = easy_buckets.count(gold_docs, {name: files[name] for name in gold_docs if name in files},
                                        schema=schema, genres=genres, errors=True, bootstrap=bootstrap, seed=seed)
    except FileNotFoundError as exc:
        raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None
    document = easy_buckets.document(counts, bootstrap=bootstrap, seed=seed, confusions=True, schema=schema)
    return analysis.split(counts, document, compact=True)


def _layer(sentence, roles) -> tuple[list, list]:
    groups = [(g.start, g.end, g.type) for g in sentence.groups]
    relations = []
    for relation in sentence.relations:
        order = roles.get(relation.type) or tuple(relation.args)
        targets = []
        for role in order:
            found = sentence.resolve(relation.args[role]) if role in relation.args else None
            targets.append(None if found is None else (found, found + 1) if isinstance(found, int)
                           else (found.start, found.end))
        relations.append((relation.type, tuple(targets)))
    return groups, relations


def sentence_svg(result, key: str, schema, labels: dict) -> str | None:
    document, _, sid = key.partition("/")
    gold_doc = GoldDocument.objects.filter(document__campaign=result.run.campaign, document__name=document).first()
    if gold_doc is None:
        return None
    gold = next((s for s in easy_gold.cut(gold_doc, {sid}, schema)[0].sentences if s.id == sid), None)
    if gold is None:
        return None
    with scored_files(result.run) as files:
        if document not in files:
            return None
        with open(files[document], "rb") as fh:
            ran = read_document(fh, gold=False, strict=False, schema=schema, name=f"{document}.xml")
    run = next((s for s in ran.sentences if s.id == sid), None)
    roles = dict(schema.relation_roles)
    gold_groups, gold_relations = _layer(gold, roles)
    run_groups, run_relations = _layer(run, roles) if run is not None else ([], [])
    return easy_svg([f.text for f in gold.forms], gold_groups, run_groups, gold_relations, run_relations, labels)
