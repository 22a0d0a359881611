"""Top-level URLs. Each face of the product owns its own URL module:

* ``campaign.urls``        team upload portal and public campaign pages (namespace ``portal``)
* ``campaign.console_urls`` organiser console pages beside the admin (namespace ``console``)
* ``evaluation.urls``      results pages (namespace ``results``)
* ``campaign.api.urls``    REST API under /api/ (namespace ``api``)
"""
from importlib.util import find_spec

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
]

# Included only once they exist, so that each part can land on its own.
for prefix, module, namespace in [
    ("api/", "campaign.api.urls", "api"),
    ("console/", "campaign.console_urls", "console"),
    ("results/", "evaluation.urls", "results"),
    ("", "campaign.urls", "portal"),
]:
    if find_spec(module.rsplit(".", 1)[0]) and find_spec(module):
        urlpatterns.append(path(prefix, include((module, namespace), namespace=namespace)))
