"""Compare ``deps --preset conll18`` with the CoNLL 2018 shared task's scorer on perturbed files.

    CONLL18_UD_EVAL=/path/to/conll18_ud_eval.py .venv/bin/python scripts/compare_conll18.py \\
        FIRST_SEED LAST_SEED SOURCE.conllu [SOURCE.conllu ...]

The scorer is not part of the project: its path comes from the environment.
Each seed takes a slice of 1 to 30 sentences of a random source file as gold
and makes a system file from it:

* mostly (85%) another analysis and tokenisation of the same text: tokens
  merged and split, words turned into multiword tokens and back, multiword
  words renamed or reordered, spaces (ASCII, no-break, narrow no-break)
  inside forms, sentences split and merged, heads, relations (with and
  without subtypes), UPOS, XPOS, features and lemmas changed; sometimes the
  gold side is also retokenised;
* otherwise, in addition, line-level damage to the system (sometimes the
  gold) file: a column too many or too few, bad IDs and heads, empty or
  space-only forms, extra blank lines, comments inside sentences, a
  byte-order mark, CRLF or CR line ends, broken multiword ranges, empty
  nodes, a changed character, a missing final blank line.

Both programs score the pair in this process: the scorer's ``-v`` table
against ``format_table``; when the scorer refuses (any exception) ours must
refuse with an ``InputError``. Each difference is printed and its two
files kept under ``compare-conll18-SEED/``; the totals follow, with the
scorer's refusal reasons. The exit code is 1 if any case differed.
"""
from __future__ import annotations

import importlib.util
import os
import random
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from parseval.annotations.errors import InputError  # noqa: E402
from parseval.evaluation.deps import conll18  # noqa: E402

RELATIONS = ["nsubj", "obj", "det", "case", "nmod", "nmod:poss", "obl:arg", "aux:pass", "cc", "mark",
             "punct", "amod", "conj", "fixed", "advmod"]
VOCAB = ["de", "le", "la", "les", "à", "du", "X", "Le", "LE", "un"]
HEAD = 10  # index of the head word object appended to a word's ten columns


def load_scorer(path: str):
    spec = importlib.util.spec_from_file_location("conll18_ud_eval", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scorer_table(scorer, gold: Path, system: Path):
    try:
        with open(gold, encoding="utf-8") as g, open(system, encoding="utf-8") as s:
            evaluation = scorer.evaluate(scorer.load_conllu(g), scorer.load_conllu(s))
        return scorer.build_evaluation_table(evaluation, True, False) + "\n", None
    except Exception as exc:  # the scorer refuses with UDError, and sometimes with a crash
        return None, f"{type(exc).__name__}: {str(exc)[:60]}"


def our_table(gold: Path, system: Path):
    try:
        return conll18.format_table(conll18.score_files(gold, system)), None
    except InputError as exc:
        return None, str(exc)


# --- a small editable model: sentence = {"comments", "tokens"}, token = [form, [word, ...]] ---

def read(path) -> list[dict]:
    sentences, current, pending = [], None, 0
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if not line:
            if current:
                sentences.append(current)
            current = None
            continue
        if current is None:
            current = {"comments": [], "tokens": []}
        if line.startswith("#") and not current["tokens"]:
            current["comments"].append(line)
            continue
        cols = line.split("\t")
        if "." in cols[0]:
            continue
        if "-" in cols[0]:
            first, last = map(int, cols[0].split("-"))
            current["tokens"].append([cols[1], []])
            pending = last - first + 1
        elif pending:
            current["tokens"][-1][1].append(cols)
            pending -= 1
        else:
            current["tokens"].append([cols[1], [cols]])
    return sentences


def words_of(sentence) -> list[list]:
    return [w for token in sentence["tokens"] for w in token[1]]


def link_heads(sentence) -> None:
    words = words_of(sentence)
    for w in words:
        w.append(None)
    for w in words:
        head = int(w[6])
        w[HEAD] = words[head - 1] if head else None


def unlink_heads(sentence) -> None:
    """Heads back to numbers; a head that left the sentence becomes the root, then the tree is repaired."""
    words = words_of(sentence)
    position = {id(w): i for i, w in enumerate(words)}
    heads = []
    for w in words:
        target = w[HEAD]
        heads.append(position[id(target)] + 1 if target is not None and id(target) in position else 0)
        del w[HEAD:]
    roots = [i for i, h in enumerate(heads) if h == 0]
    root = roots[0] if roots else 0
    heads[root] = 0
    for i in range(len(heads)):
        if i != root and heads[i] == 0:
            heads[i] = root + 1
    for i in range(len(heads)):  # break cycles by attaching to the root
        seen, j = set(), i
        while heads[j] != 0:
            if j in seen:
                heads[j] = root + 1
                break
            seen.add(j)
            j = heads[j] - 1
    for w, h in zip(words, heads):
        w[6] = str(h)
        if h == 0:
            w[7] = "root"
        elif w[7] == "root":
            w[7] = "dep"


def write(sentences, path: Path, crlf: bool = False) -> None:
    out = []
    for s in sentences:
        out += s["comments"]
        n = 0
        for form, words in s["tokens"]:
            if len(words) > 1 or words[0][1] != form:
                out.append(f"{n + 1}-{n + len(words)}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_")
            for w in words:
                n += 1
                w[0] = str(n)
                out.append("\t".join(w))
        out.append("")
    text = "\n".join(out) + "\n"
    path.write_text(text.replace("\n", "\r\n") if crlf else text, encoding="utf-8", newline="")


def redirect(sentence, gone: list, keep) -> None:
    """Dependents of the ``gone`` words now depend on ``keep``."""
    gone_ids = {id(x) for x in gone}
    for w in words_of(sentence):
        if w[HEAD] is not None and id(w[HEAD]) in gone_ids:
            w[HEAD] = keep
        if w[HEAD] is w:
            w[HEAD] = None


def retokenise(sentences, rng: random.Random, edits: int) -> list[dict]:
    sentences = [{"comments": list(s["comments"]),
                  "tokens": [[t[0], [list(w) for w in t[1]]] for t in s["tokens"]]} for s in sentences]
    for s in sentences:
        link_heads(s)
    for _ in range(edits):
        s = rng.choice(sentences)
        tokens = s["tokens"]
        i = rng.randrange(len(tokens))
        form, words = tokens[i]
        op = rng.randrange(14)
        if op == 0 and i + 1 < len(tokens):  # two tokens become one plain word
            keep, gone = words[0], words[1:] + tokens[i + 1][1]
            keep[1] = form + tokens[i + 1][0]
            tokens[i:i + 2] = [[keep[1], [keep]]]
            redirect(s, gone, keep)
        elif op == 1 and len(words) == 1 and len(form) > 1:  # a plain token split in two
            cut = rng.randrange(1, len(form))
            first, second = words[0], list(words[0])
            second[HEAD] = first
            first[1], second[1] = form[:cut], form[cut:]
            second[7] = rng.choice(["case", "det", "nmod", "punct", "dep"])
            tokens[i:i + 1] = [[first[1], [first]], [second[1], [second]]]
        elif op == 2 and len(words) == 1:  # a plain token becomes a multiword token
            first, new = words[0], [words[0]]
            for _ in range(rng.randint(1, 2)):
                extra = list(first)
                extra[HEAD] = first
                extra[1] = rng.choice(VOCAB + [form, form.upper(), form[:1]])
                extra[7] = rng.choice(["det", "case", "obj", "nmod:poss"])
                new.append(extra)
            first[1] = rng.choice([form, form[:1] or form, "de", form.lower()])
            tokens[i] = [form, new]
        elif op == 3 and len(words) > 1:  # a multiword token becomes a plain word
            keep = words[0]
            keep[1] = form
            tokens[i] = [form, [keep]]
            redirect(s, words[1:], keep)
        elif op == 4 and len(words) > 1:
            rng.choice(words)[1] = rng.choice(VOCAB)
        elif op == 5:
            w = rng.choice(words_of(s))
            w[HEAD] = rng.choice(words_of(s) + [None])
            if w[HEAD] is w:
                w[HEAD] = None
        elif op == 6:
            rng.choice(words_of(s))[7] = rng.choice(RELATIONS)
        elif op == 7:
            w = rng.choice(words_of(s))
            w[3] = rng.choice(["NOUN", "VERB", "DET", "ADP", "PROPN", "PUNCT"])
            w[4] = rng.choice([w[4], "_", w[3]])
        elif op == 8:
            w = rng.choice(words_of(s))
            w[5] = rng.choice(["_", "Gender=Masc", "Number=Sing|Gender=Fem", "Typo=Yes|Number=Plur",
                               "Definite=Def|PronType=Art", w[5]])
        elif op == 9:
            w = rng.choice(words_of(s))
            w[2] = rng.choice(["_", w[1].lower(), "le", w[2]])
        elif op == 10 and len(tokens) > 2:  # a sentence split in two
            cut = rng.randrange(1, len(tokens))
            first_ids = {id(w) for t in tokens[:cut] for w in t[1]}
            for t in tokens:
                for w in t[1]:
                    if w[HEAD] is not None and (id(w) in first_ids) != (id(w[HEAD]) in first_ids):
                        w[HEAD] = None
            k = sentences.index(s)
            sentences[k:k + 1] = [{"comments": s["comments"], "tokens": tokens[:cut]},
                                  {"comments": [], "tokens": tokens[cut:]}]
        elif op == 11:  # a sentence merged with the next
            k = sentences.index(s)
            if k + 1 < len(sentences):
                sentences[k:k + 2] = [{"comments": s["comments"], "tokens": tokens + sentences[k + 1]["tokens"]}]
        elif op == 12 and len(words) == 1 and len(form) > 1:  # a space character inside a form
            cut = rng.randrange(1, len(form))
            words[0][1] = form[:cut] + rng.choice([" ", "\u00a0", "\u202f"]) + form[cut:]
            tokens[i][0] = words[0][1]
        elif op == 13 and len(words) > 1:
            rng.shuffle(words)
    sentences = [s for s in sentences if s["tokens"]]
    for s in sentences:
        unlink_heads(s)
    return sentences


def damage_lines(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    rows = [i for i, line in enumerate(lines) if line.count("\t") == 9 and not line.startswith("#")]
    if not rows:
        return text
    i = rng.choice(rows)
    cols = lines[i].split("\t")
    ranges = [j for j in rows if "-" in lines[j].split("\t")[0]]
    op = rng.randrange(22)
    if op == 0:
        lines[i] = "\t".join(cols[:9])
    elif op == 1:
        lines.insert(i, "")
    elif op == 2:
        return text[:-1]
    elif op == 3:
        cols[0] = rng.choice(["x", "1a", "", " 1", "+1", "01"])
    elif op == 4:
        cols[6] = rng.choice(["_", "-1", "999", "x", " 2", "+1", "0", cols[0]])
    elif op == 5:
        cols[1] = rng.choice(["", " ", "\u00a0", "a b"])
    elif op == 6:
        lines.insert(i, "# a comment inside")
    elif op == 7:
        return "\ufeff" + text
    elif op == 8:
        return text.replace("\n", "\r\n")
    elif op == 9:
        return text.replace("\n", "\r")
    elif op == 10:
        cols[1] += "z"
    elif op == 11:
        lines.insert(i + 1, "\t".join([cols[0] + ".1"] + cols[1:]))
    elif op == 12 and ranges:
        j = rng.choice(ranges)
        rc = lines[j].split("\t")
        a, b = rc[0].split("-", 1)
        rc[0] = rng.choice([f"{a}-{b}1", f"{b}-{a}", f"{a}-", f"{a}-{b}-{b}", f"{a}-x"])
        lines[j] = "\t".join(rc)
    elif op == 13 and ranges:
        j = rng.choice(ranges) + 1
        if j < len(lines):
            rc = lines[j].split("\t")
            if len(rc) == 10:
                rc[6] = rng.choice(["_", "x", "-2", "500"])
                lines[j] = "\t".join(rc)
    elif op == 14:
        lines.insert(i + 1, "   ")
    elif op == 15:
        cols[6] = "0"
    elif op == 16:
        del lines[i]
        return "\n".join(lines)
    elif op == 17:
        return "\n" + text
    elif op == 18:
        return "# only a comment\n\n" + text
    elif op == 19:
        cols[1] = cols[1].upper()
    elif op == 20:
        return text + "# trailing comment\n"
    elif op == 21:
        cols[0] += "\t"
    if op in (3, 4, 5, 10, 15, 19, 21):
        lines[i] = "\t".join(cols)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    script = os.environ.get("CONLL18_UD_EVAL")
    if not script or len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    scorer = load_scorer(script)
    first_seed, last_seed, sources = int(argv[0]), int(argv[1]), argv[2:]
    work = Path(f"compare-conll18-work-{os.getpid()}")
    work.mkdir(exist_ok=True)
    gold, system = work / "gold.conllu", work / "system.conllu"
    totals, reasons = Counter(), Counter()
    for seed in range(first_seed, last_seed + 1):
        rng = random.Random(seed)
        sentences = read(rng.choice(sources))
        start = rng.randrange(max(1, len(sentences) - 30))
        sentences = sentences[start:start + rng.randint(1, 30)]
        if rng.random() < 0.15:
            write(sentences, gold)
            write(retokenise(sentences, rng, rng.randint(1, 25)), system)
            text = system.read_text(encoding="utf-8")
            for _ in range(rng.randint(1, 2)):
                text = damage_lines(text, rng)
            system.write_text(text, encoding="utf-8", newline="")
            if rng.random() < 0.3:
                gold.write_text(damage_lines(gold.read_text(encoding="utf-8"), rng), encoding="utf-8", newline="")
        else:
            write(retokenise(sentences, rng, rng.randint(0, 5)) if rng.random() < 0.3 else sentences, gold)
            write(retokenise(sentences, rng, rng.randint(1, 40)), system, crlf=rng.random() < 0.1)
        expected, refused = scorer_table(scorer, gold, system)
        ours, our_refusal = our_table(gold, system)
        if expected is not None and ours == expected:
            totals["identical tables"] += 1
        elif expected is None and ours is None:
            totals["refused by both"] += 1
            reasons[refused.split(":")[0] + ": " + refused.split(": ", 1)[1][:35]] += 1
        else:
            totals["different"] += 1
            keep = Path(f"compare-conll18-{seed}")
            keep.mkdir(exist_ok=True)
            gold.replace(keep / "gold.conllu")
            system.replace(keep / "system.conllu")
            print(f"seed {seed}: scorer {refused or 'scored'}, ours {our_refusal or 'scored'} -> {keep}/")
    for f in (gold, system):
        f.unlink(missing_ok=True)
    work.rmdir()
    print(f"{last_seed - first_seed + 1} cases: " + ", ".join(f"{v} {k}" for k, v in totals.items()))
    for reason, count in reasons.most_common(12):
        print(f"  {count:5}  {reason}")
    return 1 if totals["different"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
