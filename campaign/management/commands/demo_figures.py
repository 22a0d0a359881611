"""``python manage.py demo_figures``: the real parser runs' figures in the demo (after ``load_demo``).

* dependency demo: the LAS of each spaCy run on the gold tokens (the demo's scored
  results, per genre; "sequoia" is the whole UD French-Sequoia test file), and
  the CoNLL 2018 LAS of the same models on the raw text of the Sequoia test file
  (the cached raw-text parses scored with the CoNLL 2018 scorer over the whole
  file: the figure the command line gives, which the raw-text runs' stored
  sequoia figures equal);
* constituency demo: evalb labelled F, leaf-ancestor and the unlabelled bracket F
  (``evalb-unlabelled``: evalb with ``LABELED 0``), all from the scored results;
* EASY demo: constituent F (EQUAL) and relation F (mode HYP, match EQUAL; micro and
  macro over types) per genre (scored results);
* each demo campaign's consensus: its main figure (relations HYP EQUAL micro F; LAS;
  evalb F) beside each combined run's and the per-sentence oracle's (docs/consensus.md).

Reads the parse cache only: no model is loaded when the demo was built before.
"""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from parseval.evaluation.consensus.weights import figure_value
from parseval.evaluation.deps.conll18 import score_conll18
from parseval.evaluation.deps.conll18_reader import parse_conll18
from campaign import demo_parses, demo_kinds, kinds
from campaign.models import Campaign, RunStatus, Run


def _f(value) -> str:
    return "   -  " if value is None else f"{100 * value:6.2f}"


class Command(BaseCommand):
    help = "Print the demo's figures for the real (spaCy) parser runs."

    def add_arguments(self, parser):
        parser.add_argument("--easy-slug", default="easy-reference-demo")

    def handle(self, *args, easy_slug, **options):
        self.dependency(demo_kinds.DEP_SLUG, demo_kinds.DEP_SLICES)
        self.constituency(demo_kinds.TREE_SLUG)
        self.easy(easy_slug)
        for slug in (easy_slug, demo_kinds.DEP_SLUG, demo_kinds.TREE_SLUG):
            self.consensus(slug)

    def _real_runs(self, slug):
        campaign = Campaign.objects.filter(slug=slug).first()
        if campaign is None:
            raise CommandError(f"No campaign {slug!r}: run load_demo first.")
        return campaign, list(campaign.runs.filter(synthetic=False, status=RunStatus.SCORED, team__system=False)
                              .order_by("name"))

    def _cell(self, run, **where):
        cell = run.results.get().cells.filter(**where).first()
        return None if cell is None else cell.f

    def dependency(self, slug, slices) -> None:
        campaign, runs = self._real_runs(slug)
        genres = sorted(campaign.genres.values_list("code", flat=True))
        self.stdout.write(f"\n{campaign.name}: LAS (%), gold tokens (scored results)")
        self.stdout.write(f"  {'run':<40}" + "".join(f"{g:>10}" for g in genres + ["ALL"]))
        for run in runs:
            self.stdout.write(f"  {run.name:<40}" + "".join(
                f"{_f(self._cell(run, layer='deps-las', genre=g)):>10}" for g in genres + ["ALL"]))
        filename, count = slices["sequoia"]
        gold_text = demo_kinds.conllu_head(Path(settings.DATA_DIR) / "ud-french" / filename, count)
        gold = parse_conll18(gold_text, file=filename)
        cache = demo_parses.default_cache()
        self.stdout.write(f"  CoNLL 2018 LAS (%) on {filename}, raw text (the parser's own tokens and sentences):")
        for model in demo_parses.REAL_MODELS:
            if not cache.path(model, "raw", gold_text).is_file():
                self.stdout.write(f"    {demo_parses.run_label(model)}: no cached raw-text parse (run load_demo)")
                continue
            rows = score_conll18(gold, parse_conll18(demo_parses.raw_text_parses(cache, model, gold_text), file=model))
            rows = rows["rows"]
            self.stdout.write(f"    {demo_parses.run_label(model)}: LAS F1 {_f(rows['LAS']['f1'])}  (tokens F1 "
                              f"{_f(rows['Tokens']['f1'])}, sentences F1 {_f(rows['Sentences']['f1'])})")

    def constituency(self, slug) -> None:
        campaign, runs = self._real_runs(slug)
        self.stdout.write(f"\n{campaign.name}: evalb labelled F and leaf-ancestor (scored results), "
                          "unlabelled bracket F (scored results: evalb-unlabelled, evalb LABELED 0)")
        for run in runs:
            self.stdout.write(f"  {run.name:<60} evalb {_f(self._cell(run, layer='evalb', genre='ALL'))}  "
                              f"leaf-ancestor {_f(self._cell(run, layer='leaf-ancestor', genre='ALL'))}")
        for run in runs:
            result = run.results.get()
            cell = result.cells.filter(layer="evalb-unlabelled", genre="ALL").first()
            if cell is None:  # a demo database built before the layer keeps its campaign's old options
                self.stdout.write(f"  {run.name:<60} unlabelled bracket F not scored: add \"evalb-unlabelled\" "
                                  "to the campaign's tree_metrics and re-score")
                continue
            self.stdout.write(f"  {run.name:<60} unlabelled bracket F {_f(cell.f)} "
                              f"(P {_f(cell.p)}, R {_f(cell.r)}; "
                              f"{len(result.document.get('sentences') or [])} sentences of {len(demo_kinds.TREE_SOURCES)} sources)")

    def easy(self, slug) -> None:
        campaign, runs = self._real_runs(slug)
        genres = sorted(campaign.genres.values_list("code", flat=True)) + ["ALL"]
        self.stdout.write(f"\n{campaign.name}: F (%) per genre (scored results)")
        rows = [("constituents EQUAL", dict(layer="constituents", match="EQUAL", aggregation="micro")),
                ("relations HYP EQUAL micro", dict(layer="relations", mode="HYP", match="EQUAL", aggregation="micro")),
                ("relations HYP EQUAL macro", dict(layer="relations", mode="HYP", match="EQUAL", aggregation="macro"))]
        for run in runs:
            self.stdout.write(f"  {run.name}")
            self.stdout.write(f"    {'':<24}" + "".join(f"{g:>11}" for g in genres))
            for label, where in rows:
                self.stdout.write(f"    {label:<24}" + "".join(
                    f"{_f(self._cell(run, genre=g, type='ALL', **where)):>11}" for g in genres))

    def consensus(self, slug) -> None:
        campaign = Campaign.objects.filter(slug=slug).first()
        run = None if campaign is None else (
            Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True,
                               status=RunStatus.SCORED).order_by("-pk").first())
        if run is None:
            self.stdout.write(f"\n{slug}: no scored consensus (run load_demo)")
            return
        result = run.results.order_by("-pk").first()
        key = kinds.for_campaign(campaign).consensus_figure(result.parameters)
        self.stdout.write(f"\n{campaign.name}: consensus of {len(run.combination['runs'])} runs "
                          f"({run.combination['weighting']} weights), {' '.join(p for p in key[1:4] if p)} (%)")
        combined = []
        for entry in run.combination["runs"]:
            member = Run.objects.select_related("team").get(pk=entry["run"])
            value = figure_value(member.results.get(pk=entry["result"]).document["cells"], key)
            combined.append(value)
            self.stdout.write(f"  {member.team.name + ' / ' + member.name:<62} {_f(value)}")
        best = max(v for v in combined if v is not None)
        mine = figure_value(result.document["cells"], key)
        oracle = (run.combination.get("oracle") or {}).get("value")
        self.stdout.write(f"  {'best single run':<62} {_f(best)}")
        self.stdout.write(f"  {'CONSENSUS':<62} {_f(mine)}  ({100 * (mine - best):+.2f} points)")
        self.stdout.write(f"  {'oracle (upper bound, best run per sentence with the gold)':<62} {_f(oracle)}")
