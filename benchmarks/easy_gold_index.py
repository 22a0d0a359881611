"""The stored gold index against parsing the gold XML: what a scoring worker saves on every run after the first.

Reads the EASY reference gold (``data/easy-ref/ref``, 22 files, 3,585 sentences)
``--copies`` times both ways in the same run, and prints the CPU time of each
(the XML parsed and turned into the scorer's reference views, against the
stored index loaded and turned into the same views), the ratio and the sizes;
then what scoring reads of each index before the first run document (for the
gold checksum and the sentence count): the whole index, as it once loaded it,
against its sentence ids alone. Nothing is asserted.

    .venv/bin/python benchmarks/easy_gold_index.py [--copies 3] [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parseval.annotations.easy.reader import read_document  # noqa: E402
from parseval.annotations.easy.schema import DEFAULT_SCHEMA  # noqa: E402
from benchmarks.easy_corpus import REF  # noqa: E402
from parseval.evaluation.easy.gold_index import IndexedDocument, index_key  # noqa: E402
from parseval.evaluation.easy.ranges import ReferenceView  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=3, help="times the reference gold is read (default 3)")
    ap.add_argument("--repeat", type=int, default=3, help="time each side this many times, keep the best")
    args = ap.parse_args(argv)
    files = sorted(REF.glob("*.xml")) * args.copies
    key = index_key("0" * 64, DEFAULT_SCHEMA, "benchmark")
    roles = DEFAULT_SCHEMA.relation_roles
    blobs = [IndexedDocument.from_document(read_document(p, gold=True), DEFAULT_SCHEMA, key).to_bytes()
             for p in sorted(REF.glob("*.xml"))] * args.copies
    xml, index, ahead_whole, ahead_ids = [], [], [], []
    for _ in range(args.repeat):  # interleaved, so that a change in load hits both sides alike
        t = time.process_time()
        for p in files:
            for s in read_document(p, gold=True).sentences:
                ReferenceView(s, roles)
        xml.append(time.process_time() - t)
        t = time.process_time()
        for b in blobs:
            for _ in IndexedDocument.from_bytes(b, key).scoring_sentences():
                pass
        index.append(time.process_time() - t)
        t = time.process_time()
        for b in blobs:
            IndexedDocument.from_bytes(b, key).sentence_ids
        ahead_whole.append(time.process_time() - t)
        t = time.process_time()
        for b in blobs:
            IndexedDocument.sentence_ids_from_bytes(b, key)
        ahead_ids.append(time.process_time() - t)
    size_xml = sum(p.stat().st_size for p in files)
    print(f"{len(files)} gold files, {size_xml / 1e6:.1f} MB of XML, {sum(map(len, blobs)) / 1e6:.2f} MB of index")
    print(f"[CPU s, best of {args.repeat}] XML parsed into reference views {min(xml):.3f}; index loaded into the "
          f"same views {min(index):.3f}; ratio {min(xml) / min(index):.1f}")
    print(f"[CPU s, best of {args.repeat}] read ahead of scoring: whole index {min(ahead_whole):.3f}; sentence ids "
          f"alone {min(ahead_ids):.3f}; ratio {min(ahead_whole) / min(ahead_ids):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
