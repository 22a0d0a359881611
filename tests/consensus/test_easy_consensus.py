"""EASY consensus, worked by hand on one sentence: "Les chats noirs dorment" (forms 0..3)."""
import random
from itertools import combinations

import pytest

from parseval.annotations.easy.model import Form, Group, Relation, Sentence
from parseval.evaluation.consensus import easy
from parseval.evaluation.consensus.votes import heaviest_disjoint, normalised

FORMS = [Form(f"E1F{i}", t) for i, t in enumerate(["Les", "chats", "noirs", "dorment"], 1)]


def sentence(groups, relations=()):
    s = Sentence("E1", list(FORMS))
    s.groups = [Group(f"E1G{k}", t, a, b) for k, (t, a, b) in enumerate(groups, 1)]
    s.relations = [Relation(f"E1R{k}", t, dict(args)) for k, (t, args) in enumerate(relations, 1)]
    return s


# A: [Les chats noirs]GN [dorment]NV, SUJ-V(G1, G2)
A = sentence([("GN", 0, 3), ("NV", 3, 4)], [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})])
# B: [Les chats]GN [noirs]GA [dorment]NV, SUJ-V(G1, G3), MOD-N(G2, G1)
B = sentence([("GN", 0, 2), ("GA", 2, 3), ("NV", 3, 4)],
             [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G3"}), ("MOD-N", {"modifieur": "E1G2", "nom": "E1G1"})])
# C: as A, but the relation points at forms: "chats" inside its GN [0,3), "dorment" inside NV [3,4),
# and written with the roles in the other order: it is A's relation in range space.
C = sentence([("GN", 0, 3), ("NV", 3, 4)], [("SUJ-V", {"verbe": "E1F4", "sujet": "E1F2"})])


def corpus():
    return Sentence("E1", list(FORMS))


def test_equal_weights_keep_what_two_of_three_runs_say():
    # groups: GN[0,3) A+C = 2/3, NV[3,4) 3/3 kept; GN[0,2) and GA[2,3) 1/3 each left out.
    # relations: SUJ-V([0,3), [3,4)) A+C = 2/3 kept; B's SUJ-V([0,2), [3,4)) and MOD-N 1/3 left out.
    result = easy.combine_sentence(corpus(), [A, B, C], normalised(None, 3))
    s = result.sentence
    assert [(g.id, g.type, g.start, g.end) for g in s.groups] == [("E1G1", "GN", 0, 3), ("E1G2", "NV", 3, 4)]
    assert [(r.type, r.args) for r in s.relations] == [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})]
    assert result.agreement["E1G1"] == pytest.approx(2 / 3)
    assert result.agreement["E1G2"] == pytest.approx(1.0)
    assert result.agreement["E1R1"] == pytest.approx(2 / 3)


def test_weights_decide():
    # weights 1, 3, 1 -> 0.2, 0.6, 0.2: B alone has more than half.
    # groups: GN[0,2) 0.6, GA[2,3) 0.6, NV 1.0 kept; GN[0,3) 0.4 left out.
    # relations: B's SUJ-V 0.6 and MOD-N 0.6, mapped onto the chosen groups; A's and C's SUJ-V 0.4 out.
    result = easy.combine_sentence(corpus(), [A, B, C], normalised([1, 3, 1], 3))
    s = result.sentence
    assert [(g.type, g.start, g.end) for g in s.groups] == [("GN", 0, 2), ("GA", 2, 3), ("NV", 3, 4)]
    assert [(r.type, r.args) for r in s.relations] == [
        ("SUJ-V", {"sujet": "E1G1", "verbe": "E1G3"}), ("MOD-N", {"modifieur": "E1G2", "nom": "E1G1"})]
    assert result.agreement["E1R1"] == pytest.approx(0.6)


def test_relation_arguments_outside_the_chosen_groups():
    # Each run: one COORD with a null left conjunct; "noirs" is a bare form in every run.
    # A points at [0,3) as a group, but the consensus keeps GN[0,2) (B and C): the argument falls on
    # the chosen group sharing most forms with [0,3), i.e. GN[0,2).
    coord = ("COORD", {"coordonnant": "E1F3", "coord-g": "E1F0", "coord-d": "E1F4"})
    a = sentence([("GN", 0, 2)], [coord])
    b = sentence([("GN", 0, 2)], [coord])
    c = sentence([("GN", 0, 3)], [("MOD-N", {"modifieur": "E1G1", "nom": "E1F4"})])
    result = easy.combine_sentence(corpus(), [a, b, c], normalised(None, 3))
    assert [(r.type, r.args) for r in result.sentence.relations] == [
        ("COORD", {"coordonnant": "E1F3", "coord-g": "E1F0", "coord-d": "E1F4"})]
    # threshold 0: c's MOD-N is kept too; its modifier range [0,3) maps onto the kept GN[0,2)
    loose = easy.combine_sentence(corpus(), [a, b, c], normalised(None, 3), relation_threshold=0.0)
    assert loose.sentence.relations[1].args == {"modifieur": "E1G1", "nom": "E1F4"}


def test_a_run_without_the_sentence_keeps_its_share():
    # A alone (1/3) is not a majority when the two other runs lack the sentence.
    result = easy.combine_sentence(corpus(), [A, None, None], normalised(None, 3))
    assert result.sentence.groups == [] and result.sentence.relations == []


def test_groups_never_overlap_and_weigh_most_at_any_threshold():
    rng = random.Random(7)
    for _ in range(200):
        runs = []
        for _ in range(4):
            cuts = sorted(rng.sample(range(1, 8), rng.randint(0, 5)))
            bounds = [0, *cuts, 8]
            spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if rng.random() < 0.7]
            s = Sentence("E1", [Form(f"E1F{i}", "w") for i in range(1, 9)])
            s.groups = [Group(f"E1G{k}", rng.choice("AB"), a, b) for k, (a, b) in enumerate(spans, 1)]
            runs.append(s)
        weights = normalised([rng.random() + 0.01 for _ in runs], 4)
        result = easy.combine_sentence(runs[0], runs, weights, group_threshold=0.0)
        chosen = [(g.start, g.end) for g in result.sentence.groups]
        assert all(a[1] <= b[0] for a, b in zip(chosen, chosen[1:]))
        # brute force: no disjoint subset of the candidates weighs more
        votes = {}
        for w, s in zip(weights, runs):
            for g in {(g.type, g.start, g.end) for g in s.groups}:
                votes[g] = votes.get(g, 0) + w
        got = sum(result.agreement[g.id] for g in result.sentence.groups)
        items = list(votes)
        best = 0.0
        for k in range(len(items) + 1):
            if k > 5:
                break
            for subset in combinations(items, k):
                ordered = sorted(subset, key=lambda g: g[1])
                if all(x[2] <= y[1] for x, y in zip(ordered, ordered[1:])):
                    best = max(best, sum(votes[g] for g in subset))
        assert got == pytest.approx(best) or got > best


def test_heaviest_disjoint_by_hand():
    # [0,2) 0.5 + [2,3) 0.5 = 1.0 beats [0,3) 0.8; [3,4) 0.1 is taken too.
    assert heaviest_disjoint([(0, 3, 0.8, "long"), (0, 2, 0.5, "a"), (2, 3, 0.5, "b"), (3, 4, 0.1, "c")]) == \
        ["a", "b", "c"]


def test_a_run_without_relations_does_not_vote_against_them():
    # A and C propose SUJ-V; a chunker's run D submitted no relation layer. Among the relation
    # voters (A, B, C: 1/3 each) SUJ-V([0,3), [3,4)) has 2/3 and is kept; were D counted, 2/4 would not be.
    chunker = sentence([("GN", 0, 3), ("NV", 3, 4)])
    weights = normalised(None, 4)
    assert easy.combine_sentence(corpus(), [A, B, C, chunker], weights).sentence.relations == []
    kept = easy.combine_sentence(corpus(), [A, B, C, chunker], weights,
                                 relation_weights=normalised([1, 1, 1, 0], 4))
    assert [r.type for r in kept.sentence.relations] == ["SUJ-V"]
    assert kept.agreement["E1R1"] == pytest.approx(2 / 3)
    assert kept.agreement["E1G1"] == pytest.approx(3 / 4)  # groups: A, C and the chunker


# --- issue 37: a kept relation keeps its argument ranges through writing -------------------------

def test_an_agreed_span_without_a_majority_type_becomes_a_group():
    # Three runs agree that "Les chats" [0,2) is one group and that it is the subject of
    # "dorment" [3,4), but not on the group's type: GN (a), GP (b), GA (c).
    #   group votes: GN[0,2) 1/3, GP[0,2) 1/3, GA[0,2) 1/3 -> none above 1/2; NV[3,4) 3/3 kept.
    #   relation votes (range space): SUJ-V([0,2), [3,4)) 3/3 -> kept.
    # Before: the subject range [0,2) equals no chosen group and shares no form with NV, so it was
    # written as its first form "Les" (E1F1); HYP reads a bare form as itself, [0,1): the relation
    # the three runs agree on scored 0 against a gold SUJ-V([0,2), [3,4)).
    # Now: [0,2) becomes a group, typed by the group vote at that span: a tie 1/3-1/3-1/3 goes to
    # the first proposed, GN (run a). Written SUJ-V(G1, G2) reads back as ([0,2), [3,4)): 1 of 1.
    rel = [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})]
    a = sentence([("GN", 0, 2), ("NV", 3, 4)], rel)
    b = sentence([("GP", 0, 2), ("NV", 3, 4)], rel)
    c = sentence([("GA", 0, 2), ("NV", 3, 4)], [("SUJ-V", {"sujet": "E1F2", "verbe": "E1F4"})])
    result = easy.combine_sentence(corpus(), [a, b, c], normalised(None, 3))
    s = result.sentence
    assert [(g.id, g.type, g.start, g.end) for g in s.groups] == [("E1G1", "GN", 0, 2), ("E1G2", "NV", 3, 4)]
    assert [(r.type, r.args) for r in s.relations] == [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})]
    assert result.agreement["E1G1"] == pytest.approx(1 / 3)  # its type's own vote, below the threshold
    assert result.agreement["E1R1"] == pytest.approx(1.0)
    # with weights 1, 2, 1 the best-supported type at [0,2) is b's GP (1/2, still not above 1/2)
    weighted = easy.combine_sentence(corpus(), [a, b, c], normalised([1, 2, 1], 3))
    assert [(g.type, g.start, g.end) for g in weighted.sentence.groups] == [("GP", 0, 2), ("NV", 3, 4)]


RELATION_TYPES = [("SUJ-V", ("sujet", "verbe")), ("COD-V", ("cod", "verbe")), ("MOD-N", ("modifieur", "nom")),
                  ("CPL-V", ("complement", "verbe"))]


def _random_sentence(rng, sid, n, base_cuts):
    """A run's analysis: mostly the shared segmentation (so spans agree), types drawn at random
    (so agreed spans often have no majority type), relations on groups, forms or the null argument."""
    cuts = sorted({c for c in base_cuts if rng.random() < 0.85} | set(rng.sample(range(1, n), rng.randint(0, 2))))
    bounds = [0, *cuts, n]
    forms = [Form(f"{sid}F{i}", "w") for i in range(1, n + 1)]
    s = Sentence(sid, forms)
    spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if rng.random() < 0.8]
    s.groups = [Group(f"{sid}G{k}", rng.choice(["GN", "GP", "NV", "GA"]), a, b) for k, (a, b) in enumerate(spans, 1)]
    targets = [g.id for g in s.groups] + [f.id for f in forms]
    s.relations = []
    for k in range(rng.randint(0, 6)):
        rtype, roles = RELATION_TYPES[rng.randrange(len(RELATION_TYPES))] if k % 2 else RELATION_TYPES[0]
        args = {role: rng.choice(targets) for role in roles}
        s.relations.append(Relation(f"{sid}R{k + 1}", rtype, args))
    return s


def test_the_written_consensus_scores_in_hyp_what_the_vote_scores():
    from parseval.annotations.easy.model import Document
    from parseval.evaluation.consensus.votes import kept, tally
    from parseval.evaluation.easy.scoring import count_sentences

    def hyp_equal_found(gold_doc, run_doc):
        plan, _, counting = count_sentences([gold_doc], [run_doc], matches=("EQUAL",), modes=("HYP",))
        off = plan.rel_off[0][0]
        return int(counting.rows.fc[:, off:off + len(plan.rel_types)].sum())

    rng = random.Random(37)
    untyped_spans = found_in_all = remapped_in_all = 0
    for trial in range(20):
        n_runs = rng.choice([3, 4, 5])
        weights = normalised([rng.choice([1, 1, 2, 3]) for _ in range(n_runs)], n_runs)
        # any thresholds a tuning may keep (tuning.THRESHOLDS): from one half up every kept range is
        # writable as voted; below it the vote is made writable (re-keyed by what HYP reads) before scoring
        high = trial % 2 == 0
        group_threshold = rng.choice([0.5, 0.6, 0.7] if high else [0.2, 0.3, 0.35, 0.45])
        relation_threshold = rng.choice([0.5, 0.55, 0.65] if high else [0.2, 0.25, 0.3, 0.45])
        gold, runs, consensus = [], [[] for _ in range(n_runs)], []
        vote_found = 0
        agreed_without_type = 0
        for i in range(1, 61):
            sid, n = f"E{i}", rng.randint(4, 12)
            base = sorted(rng.sample(range(1, n), rng.randint(1, n - 2)))
            votes_of = [_random_sentence(rng, sid, n, base) for _ in range(n_runs)]
            # the gold: one run's analysis (so that voted relations can be right), some relations dropped
            g = _random_sentence(rng, sid, n, base)
            g.groups = list(votes_of[rng.randrange(n_runs)].groups)
            g.relations = [r for s in votes_of for r in s.relations
                           if set(r.args.values()) <= {x.id for x in g.groups} | {f.id for f in g.forms}
                           and rng.random() < 0.7]
            g.relations = [Relation(f"{sid}R{k}", r.type, r.args) for k, r in enumerate(g.relations, 1)]
            gold.append(g)
            for k, s in enumerate(votes_of):
                runs[k].append(s)
            written = easy.combine_sentence(Sentence(sid, list(g.forms)), votes_of, weights,
                                            group_threshold=group_threshold, relation_threshold=relation_threshold)
            consensus.append(written.sentence)
            # the vote itself, scored directly in range space against the gold's relations
            voted = kept(tally((w, easy.relation_ranges(s).keys()) for w, s in zip(weights, votes_of)),
                         relation_threshold)
            if high:  # nothing to re-map: the writable vote is the plain vote
                assert written.votes == voted, (trial, sid)
            else:
                remapped_in_all += len(set(voted) - set(written.votes))
            # the written sentence read back holds exactly the writable vote's relations
            assert set(easy.relation_ranges(written.sentence)) == set(written.votes), (trial, sid)
            vote_found += len(set(written.votes) & set(easy.relation_ranges(g)))
            groups = kept(tally((w, [(x.type, x.start, x.end) for x in s.groups]) for w, s in zip(weights, votes_of)),
                          group_threshold)
            spans = {(a, b) for _, a, b in groups}
            agreed_without_type += sum(1 for _t, args in voted for _r, rng_ in args
                                       if rng_ is not None and rng_[1] - rng_[0] > 1 and rng_ not in spans)
        # direct scoring agrees with the scorer on a single run (the comparison below is like for like)
        single = sum(len(set(easy.relation_ranges(s)) & set(easy.relation_ranges(g)))
                     for s, g in zip(runs[0], gold))
        assert hyp_equal_found(Document("d", gold), Document("d", runs[0])) == single
        untyped_spans += agreed_without_type
        found_in_all += vote_found
        assert hyp_equal_found(Document("d", gold), Document("d", consensus)) == vote_found, f"trial {trial}"
    assert found_in_all > 0
    assert untyped_spans > 0, "the draws must include agreed spans with no majority group type"
    assert remapped_in_all > 0, "the draws below one half must include relations re-mapped in the vote"


def test_groups_added_for_agreed_spans_never_overlap_at_low_thresholds():
    # Below one half, kept ranges can overlap each other and the chosen groups: only a disjoint
    # selection of them becomes groups, so the written sentence stays well formed.
    rng = random.Random(3700)
    for i in range(300):
        n = rng.randint(4, 10)
        base = sorted(rng.sample(range(1, n), rng.randint(1, n - 2)))
        runs = [_random_sentence(rng, "E1", n, base) for _ in range(rng.choice([2, 3, 4]))]
        threshold = rng.choice([0.0, 0.2, 0.34])
        result = easy.combine_sentence(Sentence("E1", list(runs[0].forms)), runs, normalised(None, len(runs)),
                                       group_threshold=threshold, relation_threshold=threshold)
        spans = [(g.start, g.end) for g in result.sentence.groups]
        assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), i
        assert [g.id for g in result.sentence.groups] == [f"E1G{k}" for k in range(1, len(spans) + 1)]
        ids = {g.id for g in result.sentence.groups} | {f.id for f in result.sentence.forms} | {"E1F0"}
        assert all(set(r.args.values()) <= ids for r in result.sentence.relations)


def test_overlapping_voted_groups_below_one_half_keep_the_heavier_and_re_map_the_vote():
    # Weights 7:8:5 normalised: A 0.35, B 0.40, C 0.25; both thresholds 0.3.
    # A: [Les chats]GN (0,2), SUJ-V(sujet=G1 -> range (0,2), verbe="dorment" -> (3,4): no group covers it).
    # B: [chats noirs]GN (1,3), no relation.  C: nothing.
    a = sentence([("GN", 0, 2)], [("SUJ-V", {"sujet": "E1G1", "verbe": "E1F4"})])
    b = sentence([("GN", 1, 3)])
    c = sentence([])
    weights = normalised([7, 8, 5], 3)
    assert weights == pytest.approx((0.35, 0.40, 0.25))
    result = easy.combine_sentence(corpus(), [a, b, c], weights, group_threshold=0.3, relation_threshold=0.3)
    # Candidates GN(0,2) 0.35 > 0.3 and GN(1,3) 0.40 > 0.3 share "chats": an EASY file cannot hold both,
    # so the heavier is kept: GN(1,3), 0.40 against 0.35.
    assert [(g.type, g.start, g.end) for g in result.sentence.groups] == [("GN", 1, 3)]
    assert result.agreement["E1G1"] == pytest.approx(0.40)
    # The relation (0.35 > 0.3) voted sujet (0,2): no kept group has that span, and it cannot become one
    # (it overlaps GN(1,3)); it is re-mapped to the kept group sharing most forms, GN(1,3), and the vote
    # holds the relation as HYP will read it: sujet (1,3), verbe (3,4) ("dorment" is in no kept group).
    assert result.votes == {("SUJ-V", (("sujet", (1, 3)), ("verbe", (3, 4)))): pytest.approx(0.35)}
    (rel,) = result.sentence.relations
    assert rel.args == {"sujet": "E1G1", "verbe": "E1F4"}
    assert set(easy.relation_ranges(result.sentence)) == set(result.votes)
