"""Results pages (namespace ``results``)."""
from django.urls import path

from evaluation.analysis import views as analysis_views
from evaluation.bundle import views as bundle_views
from evaluation.consensus import views as consensus_views
from evaluation.significance import views as significance_views
from evaluation.results import views

app_name = "results"

urlpatterns = [
    path("<slug:slug>/", views.campaign_results, name="campaign"),
    path("<slug:slug>/data.json", views.campaign_results_json, name="campaign-json"),
    path("<slug:slug>/bundle.zip", bundle_views.bundle_download, name="bundle"),
    path("<slug:slug>/runs/<int:pk>/", views.run_results, name="run"),
    path("<slug:slug>/ranking/", significance_views.ranking_page, name="ranking"),
    path("<slug:slug>/compare/<int:run_a>/<int:run_b>/", significance_views.comparison_page, name="compare"),
    path("<slug:slug>/significance.json", significance_views.significance_json, name="significance-json"),
    path("<slug:slug>/design/", significance_views.design_page, name="design"),
    path("<slug:slug>/consensus/", consensus_views.consensus_page, name="consensus"),
    path("<slug:slug>/consensus/treebank.zip", consensus_views.treebank_download, name="consensus-treebank"),
    # the analysis explorer (issue 38)
    path("<slug:slug>/runs/<int:pk>/analysis/", analysis_views.explorer, name="analysis"),
    path("<slug:slug>/runs/<int:pk>/analysis.json", analysis_views.document, name="analysis-json"),
    path("<slug:slug>/runs/<int:pk>/analysis/confusions/", analysis_views.confusions, name="analysis-confusions"),
    path("<slug:slug>/runs/<int:pk>/analysis/errors/", analysis_views.errors, name="analysis-errors"),
    path("<slug:slug>/runs/<int:pk>/analysis/sentences/", analysis_views.sentences, name="analysis-sentences"),
    path("<slug:slug>/runs/<int:pk>/analysis/sentence/", analysis_views.sentence, name="analysis-sentence"),
    path("<slug:slug>/analysis/compare/<int:run_a>/<int:run_b>/", analysis_views.compare, name="analysis-compare"),
    path("<slug:slug>/analysis/compare/<int:run_a>/<int:run_b>/sentences/", analysis_views.compare_sentences,
         name="analysis-compare-sentences"),
]
