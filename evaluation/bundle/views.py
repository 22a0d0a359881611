"""The publication bundle's download (``results:bundle``): public after publication, organisers any time.

The archive holds only what anyone may see when it was built (:mod:`evaluation.bundle.publication`), so the
check is the campaign's, not the user's team: 404 for those who may not have it (nothing confirms that a
campaign or its bundle exists), 404 too while none is built.
"""
from __future__ import annotations

from django.http import FileResponse, Http404

from campaign import audit

from evaluation.bundle import publication as publication_bundle
from evaluation.results.views import _campaign_or_404


def bundle_download(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    if not publication_bundle.can_download(request.user, campaign):
        raise Http404("No such bundle.")
    bundle = publication_bundle.latest_bundle(campaign)
    if bundle is None:
        raise Http404("No bundle has been built for this campaign yet.")
    audit.record("bundle.download", campaign=campaign, target=bundle.sha256, request=request)
    response = FileResponse(bundle.file.open("rb"), as_attachment=True,
                            filename=publication_bundle.download_name(campaign, bundle.sha256),
                            content_type="application/zip")
    response["X-Content-SHA256"] = bundle.sha256
    return response
