"""One corpus document plus its parses -> one EASY run document.

Every problem with the input is collected with its place (the CoNLL-U file,
line and sentence id, or the corpus sentence) and raised together as an
:class:`~parseval.annotations.errors.InputError`.
"""
from __future__ import annotations

from parseval.annotations.conllu import DepSentence
from parseval.annotations.easy.model import Document
from parseval.annotations.errors import InputError, Problem, N_
from parseval.evaluation.deps.alignment import TextMismatch

from .groups import build_groups
from .projection import easy_sentence, project, word_forms
from .relations import build_relations
from .udtree import UdTree

# The converter's version goes into what it writes, so a score can say what produced its run.
CONVERTER_VERSION = "ud2easy-2"


def convert_sentence(sentence, parse: DepSentence):
    """The corpus :class:`~parseval.annotations.easy.model.Sentence` annotated from ``parse`` (raises TextMismatch)."""
    forms_of = word_forms([f.text for f in sentence.forms], parse)
    tree = UdTree.from_conllu(parse)
    groups, relations = project(sentence.id, [f.id for f in sentence.forms], build_groups(tree),
                                build_relations(tree), forms_of)
    return easy_sentence(sentence, groups, relations)


def convert_document(corpus: Document, parses: list[DepSentence], *, parse_file: str) -> Document:
    """The run document for ``corpus`` from the parses of its sentences (matched by ``# sent_id``)."""
    problems: list[Problem] = []
    expected = corpus.sentence_map()
    by_id: dict[str, DepSentence] = {}
    for p in parses:
        where = dict(file=parse_file, line=p.line, sentence=p.sent_id or str(p.index))
        if p.sent_id is None:
            problems.append(Problem(N_("sentence has no '# sent_id = <EASY sentence id>' comment"), **where))
        elif p.sent_id not in expected:
            problems.append(Problem(N_('sent_id %(sent_id)s is not a sentence of corpus document %(name)s') % {"sent_id": p.sent_id, "name": corpus.name},
                                    **where))
        elif p.sent_id in by_id:
            problems.append(Problem(N_('sent_id %(sent_id)s given twice (first at line %(line)s)') % {"sent_id": p.sent_id, "line": by_id[p.sent_id].line},
                                    **where))
        else:
            by_id[p.sent_id] = p
    missing = [s.id for s in corpus.sentences if s.id not in by_id]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        problems.append(Problem(missing_text(corpus, by_id, missing, shown), file=parse_file, sentence=missing[0],
                                line=next_parse_line(corpus, by_id, missing[0])))
    out = Document(name=corpus.name, attributes={"fichier": corpus.name}, has_constituents=True,
                   has_relations=True)
    for s in corpus.sentences:
        p = by_id.get(s.id)
        if p is None:
            continue
        try:
            out.sentences.append(convert_sentence(s, p))
        except TextMismatch as exc:
            problems.append(Problem(N_("the parse's tokens are not the corpus forms' text: %(exc)s") % {"exc": exc},
                                    file=parse_file, line=p.line, sentence=s.id))
    if problems:
        raise InputError(problems)
    return out


def _neighbours(corpus: Document, by_id: dict[str, DepSentence], sid: str):
    """The parses of the file just before and just after where the corpus sentence ``sid`` belongs."""
    order = [s.id for s in corpus.sentences]
    at = order.index(sid)
    before = next((by_id[k] for k in reversed(order[:at]) if k in by_id), None)
    after = next((by_id[k] for k in order[at + 1:] if k in by_id), None)
    return before, after


def next_parse_line(corpus: Document, by_id: dict[str, DepSentence], sid: str) -> int | None:
    """Where the file skips ``sid``: the line of the parse that follows it, else of the last one before it."""
    before, after = _neighbours(corpus, by_id, sid)
    return after.line if after else before.line if before else None


def missing_text(corpus: Document, by_id: dict[str, DepSentence], missing: list[str], shown: str) -> str:
    """The sentences of ``corpus`` without a parse, and where the file skips the first of them, said by its
    neighbours' sent_id (matched by id, so the parses after it are not shifted: nothing else of the file
    is reported for it). One whole text per case, so that a page can show it translated."""
    before, after = _neighbours(corpus, by_id, missing[0])
    values = {"n_missing": len(missing), "name": corpus.name, "shown": shown}
    if before and after:
        return N_("%(n_missing)s sentence(s) of corpus document %(name)s have no parse: %(shown)s (the file goes "
                  "from sent_id %(before)s to %(after)s at line %(line)s)") % {
            **values, "before": before.sent_id, "after": after.sent_id, "line": after.line}
    if after:
        return N_("%(n_missing)s sentence(s) of corpus document %(name)s have no parse: %(shown)s (the file "
                  "starts with sent_id %(after)s at line %(line)s)") % {
            **values, "after": after.sent_id, "line": after.line}
    if before:
        return N_("%(n_missing)s sentence(s) of corpus document %(name)s have no parse: %(shown)s (the file "
                  "ends with sent_id %(before)s, line %(line)s)") % {
            **values, "before": before.sent_id, "line": before.line}
    return N_("%(n_missing)s sentence(s) of corpus document %(name)s have no parse: %(shown)s") % values
