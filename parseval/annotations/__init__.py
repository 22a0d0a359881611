"""The annotation formats: EASY documents (``easy``), constituency trees in Penn and square brackets
(``trees``), CoNLL-U (``conllu``), their readers and writers, and the located ``Problem`` reports
(``errors``) every reader raises. Imports nothing of the rest of the project."""
