"""Reading runs and writing the consensus, per kind: the command line's and the platform's I/O.

Each ``combine_*_files`` function reads the runs one unit at a time (an EASY
document, a CoNLL-U or bracketed file), combines sentence by sentence and
writes, into ``out``:

* EASY: one ``.xml`` per document, with an ``agreement`` attribute on every
  group and relation (readers, the scorer included, ignore it);
* dependencies: ``consensus.conllu`` (plain CoNLL-U, the agreement in MISC as
  ``Agreement=0.833``) and ``consensus.conllup`` (CoNLL-U Plus with an
  eleventh column ``CONSENSUS:AGREEMENT``);
* constituency: ``consensus.mrg`` (one tree a line, in an outer bracket as
  the Penn files have) and ``consensus.agreement.tsv`` (each kept span and
  each tag with its agreement).

Each returns a :class:`Summary` of what was kept, for the caller to print.

``fallback=i`` (a tuning found no setting better than run ``i`` on the
development sample: :mod:`.tuning`) writes run ``i``'s own files instead,
byte for byte, under the consensus's names, with no agreement side file.
"""
from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from parseval.annotations.conllu import read_conllu, write_conllu
from parseval.annotations.easy.reader import document_key, read_document
from parseval.annotations.easy.writer import write_document
from parseval.annotations.easy.model import Document
from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import read_penn
from parseval.evaluation.easy.files import list_xml

from . import deps, easy, trees
from .votes import normalised


@dataclass
class Summary:
    sentences: int = 0
    items: int = 0
    agreement_sum: float = 0.0
    files: list[str] = field(default_factory=list)

    def add(self, agreements) -> None:
        self.sentences += 1
        for a in agreements:
            self.items += 1
            self.agreement_sum += a

    @property
    def mean_agreement(self) -> float | None:
        return self.agreement_sum / self.items if self.items else None


def _share(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value < 1 else "1"


def combine_easy_files(runs: Sequence[str | Path], out: Path, weights: Sequence[float] | None = None, *,
                       corpus: str | Path | None = None,
                       group_threshold: float = easy.DEFAULT_GROUP_THRESHOLD,
                       relation_threshold: float = easy.DEFAULT_RELATION_THRESHOLD,
                       relations: Sequence[bool] | None = None, fallback: int | None = None) -> Summary:
    """Combine EASY runs (files or folders, documents paired by base name) document by document.

    The sentences and forms are the corpus's (``corpus``, EASY files with the
    forms) or, without it, those of the first run that has the document.
    ``relations``: which runs submitted relations at all, when the caller knows
    it from an earlier read (a scored run's ``layers_submitted``); otherwise
    the files are scanned for a relation first (the command line).
    """
    by_run = [{document_key(p.name): p for p in list_xml(r)} for r in runs]
    if relations is not None and len(relations) != len(by_run):
        raise InputError(f"{len(relations)} relation layers said for {len(by_run)} runs")
    shares, relation_shares = _layer_shares(weights, by_run, relations)
    references = {document_key(p.name): p for p in list_xml(corpus)} if corpus else None
    keys = sorted(references) if references is not None else sorted(set().union(*by_run))
    out.mkdir(parents=True, exist_ok=True)
    summary = Summary()
    if fallback is not None:
        for key in keys:
            if key in by_run[fallback]:
                target = out / f"{key}.xml"
                shutil.copyfile(by_run[fallback][key], target)
                summary.files.append(str(target))
        return summary
    for key in keys:
        docs = [read_document(files[key], gold=False) if key in files else None for files in by_run]
        base = read_document(references[key], gold=False) if references is not None else \
            next(d for d in docs if d is not None)
        maps = [d.sentence_map() if d is not None else {} for d in docs]
        combined = Document(name=base.name, attributes={"fichier": base.attributes.get("fichier", base.name)})
        extra: dict[str, dict[str, str]] = {}
        for sentence in base.sentences:
            result = easy.combine_sentence(sentence, [m.get(sentence.id) for m in maps], shares,
                                           relation_weights=relation_shares, group_threshold=group_threshold,
                                           relation_threshold=relation_threshold)
            combined.sentences.append(result.sentence)
            extra.update({i: {"agreement": _share(a)} for i, a in result.agreement.items()})
            summary.add(result.agreement.values())
        target = out / f"{key}.xml"
        write_document(combined, target, extra=extra)
        summary.files.append(str(target))
    return summary


def _layer_shares(weights, by_run: list[dict[str, Path]],
                  relations: Sequence[bool] | None = None) -> tuple[tuple[float, ...], tuple[float, ...] | None]:
    """Normalised weights for the group votes and for the relation votes.

    A run that submitted no relation at all (a chunker's run: EASY scores
    its relations as "not submitted", never as zero) takes no part in the
    relation votes, so that it does not count against every relation; when
    no run has relations the relation weights are the group weights.
    """
    shares = normalised(weights, len(by_run))
    has_relations = list(relations) if relations is not None else \
        [any(_has_relations(p) for p in files.values()) for files in by_run]
    if all(has_relations) or not any(has_relations):
        return shares, None
    return shares, normalised([w if has else 0.0 for w, has in zip(shares, has_relations)], len(by_run))


_RELATION = re.compile(rb"<(?:[\w.-]+:)?relation[\s>/]")


def _has_relations(path: Path) -> bool:
    with open(path, "rb") as handle:  # a relation element, with any prefix; cheap next to combining
        return _RELATION.search(handle.read()) is not None


def _read_aligned(runs: Sequence, weights, read, out: Path) -> tuple[tuple[float, ...], list[list], int]:
    """Shares, every run read whole by ``read``, and the number of sentences they all have; ``out`` made."""
    shares = normalised(weights, len(runs))
    parsed = [read(r) for r in runs]
    counts = {len(r) for r in parsed}
    if len(counts) != 1:
        detail = ", ".join(f"{Path(p).name}: {len(r)}" for p, r in zip(runs, parsed))
        raise InputError(f"the runs do not have the same number of sentences ({detail})")
    out.mkdir(parents=True, exist_ok=True)
    return shares, parsed, counts.pop()


def _copy_run(run: str | Path, out: Path, name: str) -> Summary:
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run, out / name)
    return Summary(files=[str(out / name)])


def combine_dependency_files(runs: Sequence[str | Path], out: Path, weights: Sequence[float] | None = None, *,
                             fallback: int | None = None) -> Summary:
    """Combine CoNLL-U runs on the same tokens, sentence by sentence (paired by position)."""
    if fallback is not None:
        return _copy_run(runs[fallback], out, "consensus.conllu")
    shares, parsed, n = _read_aligned(runs, weights, read_conllu, out)
    summary = Summary()
    plain, plus = [], ["# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC CONSENSUS:AGREEMENT"]
    for i in range(n):
        sentences = [p[i] for p in parsed]
        ids = {s.sent_id for s in sentences if s.sent_id is not None}
        if len(ids) > 1:
            raise InputError(f"sentence {i + 1} has different sent_id in the runs: {', '.join(sorted(ids))}",
                             file=str(runs[0]), line=sentences[0].line)
        result = deps.combine_sentence(sentences[0], sentences, shares)
        summary.add(result.agreement)
        for word, a in zip(result.sentence.words, result.agreement):
            word.misc = f"Agreement={_share(a)}"
        text = write_conllu([result.sentence])
        plain.append(text)
        rows = text.rstrip("\n").split("\n")
        words = iter(result.agreement)
        for row in rows:  # word rows get their agreement, multiword and empty-node rows "_"
            if row.startswith("# global.columns"):  # the file's own declaration: ours heads the file
                continue
            first = row.split("\t", 1)[0]
            plus.append(row + "\t" + _share(next(words)) if first.isdigit() else row + "\t_" if "\t" in row else row)
        plus.append("")
    (out / "consensus.conllu").write_text("".join(plain), encoding="utf-8")
    (out / "consensus.conllup").write_text("\n".join(plus) + "\n", encoding="utf-8")
    summary.files += [str(out / "consensus.conllu"), str(out / "consensus.conllup")]
    return summary


def combine_tree_files(runs: Sequence[str | Path], out: Path, weights: Sequence[float] | None = None, *,
                       span_threshold: float = trees.MAJORITY, fallback: int | None = None) -> Summary:
    """Combine bracketed runs on the same words, tree by tree (paired by position); spans kept above
    ``span_threshold`` (crossing spans left out below one half)."""
    if fallback is not None:
        return _copy_run(runs[fallback], out, "consensus.mrg")
    shares, parsed, n = _read_aligned(runs, weights, read_penn, out)
    summary = Summary()
    lines, table = [], ["sentence\titem\tlabel\tstart\tend\tagreement"]
    for i in range(n):
        try:
            result = trees.combine_sentence([p[i] for p in parsed], shares, threshold=span_threshold)
        except InputError as exc:
            raise InputError(f"tree {i + 1}: {exc.problems[0].message}", file=str(runs[0])) from None
        lines.append(f"( {result.tree.to_penn()})")
        summary.add([a for *_, a in result.spans])
        table.extend(f"{i + 1}\tspan\t{label}\t{start}\t{end}\t{_share(a)}" for label, start, end, a in result.spans)
        table.extend(f"{i + 1}\ttag\t{tag}\t{k}\t{k + 1}\t{_share(a)}" for k, (tag, a) in enumerate(result.tags))
    (out / "consensus.mrg").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "consensus.agreement.tsv").write_text("\n".join(table) + "\n", encoding="utf-8")
    summary.files += [str(out / "consensus.mrg"), str(out / "consensus.agreement.tsv")]
    return summary


def combine_files(kind: str, runs: Sequence[str | Path], out: Path, setting, *, corpus=None) -> Summary:
    """Combine ``runs`` of ``kind`` (easy, deps, trees) with a tuned :class:`~.tuning.Setting`: its weights and
    thresholds, or, on a fallback, the chosen run's files."""
    threshold = setting.threshold
    if kind == "easy":
        return combine_easy_files(runs, out, setting.weights, corpus=corpus,
                                  group_threshold=threshold.get("groups", easy.DEFAULT_GROUP_THRESHOLD),
                                  relation_threshold=threshold.get("relations", easy.DEFAULT_RELATION_THRESHOLD),
                                  fallback=setting.fallback)
    if kind == "deps":
        return combine_dependency_files(runs, out, setting.weights, fallback=setting.fallback)
    if kind == "trees":
        return combine_tree_files(runs, out, setting.weights, span_threshold=threshold.get("spans", trees.MAJORITY),
                                  fallback=setting.fallback)
    raise InputError(f"unknown kind {kind!r} to combine")
