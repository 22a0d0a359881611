"""The project's URLs, plus the governance pages if the root URLconf does not include them yet."""
from django.urls import include, path

from config.urls import urlpatterns as project_patterns


def _includes_governance(patterns) -> bool:
    return any(getattr(p, "namespace", None) == "governance" for p in patterns)


urlpatterns = list(project_patterns)
if not _includes_governance(urlpatterns):
    urlpatterns.insert(0, path("governance/", include(("campaign.governance_urls", "governance"), namespace="governance")))
