"""evalb over two files, streamed: what ``python -m evaluation trees --metric evalb`` runs.

Both files are read line by line as bytes, the way evalb reads them (UTF-8
is decoded, any other byte is kept as itself through ``surrogateescape``, so
Latin-1 files score as evalb scores them and never raise a decoding error);
each pair is scored, its report line written and forgotten. Memory stays flat
however long the files are; the JSON document, when asked for, is written
row by row too, byte for byte what ``json.dumps(doc, indent=1)`` gives.
"""
from __future__ import annotations

import json
import os
from itertools import islice
from typing import Callable, Iterator

from parseval.annotations.errors import InputError
from parseval.annotations.trees.detect import LayoutCounter, detect_format, layout_of_lines

from . import evalb_batch
from .evalb import (EVALB_LINE_BYTES, HEADER, EvalbParams, EvalbRun, format_row, format_summary, line_reader,
                    long_line_problem, read_evalb_lines, row_dict)

ENCODING = ("utf-8", "surrogateescape")


def file_lines(path, long_lines: list[int] | None = None) -> Iterator[str]:
    """The lines of a file as evalb's fgets sees them (split on ``\\n`` only, without it).

    With ``long_lines``, the number of every line longer than evalb's buffer
    (:data:`EVALB_LINE_BYTES`, newline included) is appended to it.
    """
    with open(path, "rb") as handle:
        if long_lines is None:
            for raw in handle:
                yield raw.decode(*ENCODING).removesuffix("\n")
            return
        for lineno, raw in enumerate(handle, 1):
            if len(raw) > EVALB_LINE_BYTES:
                long_lines.append(lineno)
            yield raw.decode(*ENCODING).removesuffix("\n")


HEAD = 65536


def evalb_layout(path, fmt: str | None = None, layout: str | None = None, *, test: bool = False,
                 head_only: bool = False) -> bool:
    """True when ``path`` is a Penn file in line layout (detected, or as told), i.e. streamable.

    A file with no tree at all (0 bytes, or blank lines only) is refused as a
    gold file; as a ``test`` file it is evalb's line layout, every line a
    parser failure (a skip sentence) and no line at all the end of the test
    file (evalb: "too many lines in gold file"). Told ``layout="trees"`` or
    square brackets, it is refused too: it has no sentence in that layout.

    With ``head_only``, the layout is guessed from the file's first lines (its
    first 64 KiB), to be confirmed by a :class:`LayoutCounter` while the file
    is read; an ambiguous head is no guess (False).
    """
    name = os.fspath(path)
    with open(path, "rb") as handle:
        raw = handle.read(HEAD)
        whole = len(raw) < HEAD or not handle.read(1)
    head = raw.decode(*ENCODING)
    if not head.strip():
        with open(path, "rb") as handle:
            if not handle.read().strip():
                if test and fmt in (None, "penn") and layout in (None, "lines"):
                    return True
                raise InputError("empty input: no tree found", file=name)
    if (fmt or detect_format(head.lstrip(), file=name)) != "penn":
        return False
    if layout:
        return layout == "lines"
    if head_only:
        lines = head.split("\n")
        if lines[-1] == "" or not whole:
            lines.pop()  # what follows the last line end (or a line cut by the 64 KiB)
        try:
            return layout_of_lines(lines, file=name) == "lines"
        except InputError:
            return False
    return layout_of_lines(file_lines(path), file=name) == "lines"


class _JsonRows:
    """Writes the document ``{head..., "sentences": [rows...], "summary": ...}`` incrementally."""

    def __init__(self, write: Callable[[str], object], head: dict) -> None:
        self.write = write
        self.first = True
        text = json.dumps(head, indent=1, ensure_ascii=False)
        write(text[:-2] + ',\n "sentences": [')

    def row(self, row: dict) -> None:
        text = json.dumps(row, indent=1, ensure_ascii=False).replace("\n", "\n  ")
        self.write(("\n  " if self.first else ",\n  ") + text)
        self.first = False

    def close(self, summary: dict) -> None:
        text = json.dumps(summary, indent=1, ensure_ascii=False).replace("\n", "\n ")
        self.write(("]" if self.first else "\n ]") + ',\n "summary": ' + text + "\n}\n")


def evalb_files(
    gold_path, test_path, params: EvalbParams, *, on_error: str = "skip",
    report: Callable[[str], object] | None = None, json_write: Callable[[str], object] | None = None,
    message: Callable[[str], object] | None = None, metric: str = "evalb",
    layouts: tuple[LayoutCounter, LayoutCounter] | None = None,
) -> dict:
    """Score two line-layout Penn files pair by pair; returns the summary.

    ``report`` receives evalb's text report piece by piece, ``json_write`` the
    JSON document, ``message`` each error sentence's ``"N : message"`` as it
    comes (evalb's stderr). ``layouts`` (gold, test) count every line of both
    files, those read after scoring stopped too, to confirm the line layout.

    Blocks of :data:`BLOCK` pairs are read and scored together
    (``parseval.evaluation.trees.evalb_batch``) when the parameters allow it; a pair of
    another shape is read and scored alone, in its place, the way evalb does.
    """
    gold_file, test_file = os.fspath(gold_path), os.fspath(test_path)
    run = EvalbRun(params, on_error=on_error, gold_file=gold_file, test_file=test_file, metric=metric)
    js = _JsonRows(json_write, run.head()) if json_write else None
    if report:
        report(HEADER)
    if evalb_batch.usable(run.params):
        summary = _score_blocks(run, gold_path, test_path, report, js, message, layouts)
    else:
        summary = _score_lines(run, gold_path, test_path, report, js, message, layouts)
    if report:
        report(format_summary(summary))
    if js:
        js.close(summary)
    return summary


BLOCK = 256  # pairs read and scored together (a few hundred kB: the arrays stay in the processor's cache)


def _score_blocks(run: EvalbRun, gold_path, test_path, report, js, message, layouts) -> dict:
    tables = evalb_batch.Tables(run.params)
    exact = line_reader(run.params)
    gold_long: list[int] = []
    test_long: list[int] = []
    extra = None
    with open(gold_path, "rb") as gold_handle, open(test_path, "rb") as test_handle:
        while True:
            first = run.count  # pairs scored before this block
            gold_raw = list(islice(gold_handle, BLOCK))
            test_raw = list(islice(test_handle, BLOCK))
            pairs = min(len(gold_raw), len(test_raw))
            gold_block = evalb_batch.read_block(gold_raw[:pairs], tables) if pairs else None
            test_block = evalb_batch.read_block(test_raw[:pairs], tables) if pairs else None
            rows = evalb_batch.score_blocks(gold_block, test_block, tables, pairs) if pairs else []
            if layouts:
                for raw, block, counter in ((gold_raw, gold_block, layouts[0]), (test_raw, test_block, layouts[1])):
                    _count_layout(raw, block, pairs, counter)
            failure = None
            if None in rows:
                rows, failure = _score_alone(run, rows, gold_raw, test_raw, exact, message)
            else:
                run.add_scored(rows)
            if report and rows:
                report("".join(map(format_row, range(first + 1, first + len(rows) + 1), rows)))
            if js:
                for i, row in enumerate(rows, first + 1):
                    js.row(row_dict(row, i))
            if failure is not None:  # --on-error raise: the rows before it were written, as pair by pair
                raise failure
            used = run.count - first  # lines of each file read by scoring (one more for a file with lines left)
            if not run.stopped:
                if len(gold_raw) > pairs:
                    extra, gold_used, test_used = "gold", used + 1, used
                elif len(test_raw) > pairs:
                    extra, gold_used, test_used = "test", used, used + 1
                else:
                    gold_used = test_used = used
            else:
                gold_used = test_used = used
            for raw, used_lines, long_lines in ((gold_raw, gold_used, gold_long), (test_raw, test_used, test_long)):
                if raw and max(map(len, raw)) > EVALB_LINE_BYTES:  # rare: the line by line look only then
                    long_lines.extend(first + i + 1 for i, line in enumerate(raw[:used_lines])
                                      if len(line) > EVALB_LINE_BYTES)
            if run.stopped or extra or len(gold_raw) < BLOCK:
                break
        for name, lines in ((run.gold_file, gold_long), (run.test_file, test_long)):
            run.problems.extend(long_line_problem(name, line).as_dict() for line in lines)
        summary = run.finish(extra=extra, line=run.count + 1) if extra and not run.stopped else run.finish()
        if layouts:
            for handle, counter in ((gold_handle, layouts[0]), (test_handle, layouts[1])):
                for raw in handle:  # what scoring left unread
                    counter.add(_text(raw))
    return summary


def _score_alone(run: EvalbRun, rows: list, gold_raw, test_raw, exact, message) -> list:
    """A block's rows with the pairs it left (None) read and scored alone, in their place, up to
    where evalb stops (MAX_ERROR); the block's own rows are counted in the totals too. With
    ``on_error="raise"``, also the error that stopped it (the caller raises it after writing the rows)."""
    first = run.count
    done: list = []
    for i, row in enumerate(rows):
        if row is None:
            try:
                row = run.add(exact(_text(gold_raw[i])), exact(_text(test_raw[i])),
                              gold_line=first + i + 1, test_line=first + i + 1)
            except InputError as failure:
                return done, failure
            if message and row[8] is not None:
                message(f"{run.count} : {row[8]}")
        else:
            run.add_scored([row])
        done.append(row)
        if run.stopped:
            break
    return done, None


def _text(raw: bytes) -> str:
    return raw.decode(*ENCODING).removesuffix("\n")


def _count_layout(raw: list[bytes], block, pairs: int, counter: LayoutCounter) -> None:
    """Count a block's lines for the layout check: the lines the block read as whole trees at once."""
    rest = range(pairs, len(raw))
    if pairs:
        whole = block.good & ~block.blank
        counter.balanced += int(whole.sum())
        counter.indented += int((whole & block.indented).sum())
        rest = (~whole).nonzero()[0].tolist() + list(rest)  # in file order, as the counter wants them
    for i in rest:
        counter.add(_text(raw[i]))


def _score_lines(run: EvalbRun, gold_path, test_path, report, js, message, layouts) -> dict:
    """One pair at a time (parameters the block reader does not take: QUOTE_LABEL, overlapping EQ_LABEL)."""
    params = run.params
    gold_long: list[int] = []
    test_long: list[int] = []
    gold_lines, test_lines = file_lines(gold_path, gold_long), file_lines(test_path, test_long)
    gold_iter = read_evalb_lines(gold_lines, params, layouts[0] if layouts else None)
    test_iter = read_evalb_lines(test_lines, params, layouts[1] if layouts else None)
    extra = None
    for gold in gold_iter:
        test = next(test_iter, None)
        if test is None:
            extra = "gold"
            break
        row = run.add(gold, test, gold_line=run.count + 1, test_line=run.count + 1)
        if report:
            report(format_row(run.count, row))
        if js:
            js.row(row_dict(row, run.count))
        if message and row[8] is not None:
            message(f"{run.count} : {row[8]}")
        if run.stopped:
            break
    else:
        if next(test_iter, None) is not None:
            extra = "test"
    for name, lines in ((run.gold_file, gold_long), (run.test_file, test_long)):
        run.problems.extend(long_line_problem(name, line).as_dict() for line in lines)
    if run.stopped:
        summary = run.finish()
    elif extra:
        summary = run.finish(extra=extra, line=run.count + 1)
    else:
        summary = run.finish()
    if layouts:
        for lines, counter in zip((gold_lines, test_lines), layouts):
            for line in lines:  # what scoring left unread
                counter.add(line)
    return summary
