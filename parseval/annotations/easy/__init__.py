"""EASY annotation: schema, in-memory model, streaming XML reader, writer, validation."""
from parseval.annotations.compiled import guard as _guard

_guard(__name__, __path__[0])  # before any module of the package is imported (see parseval/annotations/compiled.py)

from .model import Document, Form, Group, Relation, Sentence
from .reader import document_key, iter_sentences, read_document
from .schema import DEFAULT_SCHEMA, EasySchema
from .validate import compare_forms, reference_forms, validate_run
from .writer import document_to_bytes, write_document

__all__ = [
    "DEFAULT_SCHEMA", "Document", "EasySchema", "Form", "Group", "Relation", "Sentence",
    "compare_forms", "document_key", "document_to_bytes", "iter_sentences", "read_document",
    "reference_forms", "validate_run", "write_document",
]
