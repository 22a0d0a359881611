"""Which language a page speaks: the visitor's choice, else the browser's, else the campaign's.

Django's ``LocaleMiddleware`` settles the first two (the switch's cookie, set by Django's
``set_language`` view, then ``Accept-Language``). A browser that names none of the site's
languages leaves the choice open; on a campaign's pages (any URL with the campaign's slug,
and a run's pages) the campaign's ``page_language`` then decides, so that a French campaign
greets a visitor whose browser says nothing useful in French. Elsewhere the site's
``LANGUAGE_CODE`` (English) stays.

The API is left alone: its field names and values never change with the language, and its
human-readable messages follow ``Accept-Language`` as the pages do.
"""
from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from campaign.models import Campaign, Run

#: The URL namespaces whose views show one campaign (by its slug, or a run of it by its pk).
CAMPAIGN_NAMESPACES = {"portal", "results", "lab", "governance", "console"}


def browser_language(request) -> str | None:
    """The site language the visitor asked for (the switch's cookie, then ``Accept-Language``), or None."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if chosen:
        try:
            return translation.get_supported_language_variant(chosen)
        except LookupError:
            pass
    for code, _quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return None


def campaign_of_view(request, view_kwargs) -> str | None:
    """The page language of the campaign a view shows, or None when it shows none."""
    match = getattr(request, "resolver_match", None)
    if match is None or not (set(match.namespaces) & CAMPAIGN_NAMESPACES):
        return None
    slug = view_kwargs.get("slug")
    if slug:
        return Campaign.objects.filter(slug=slug).values_list("page_language", flat=True).first()
    if match.namespace == "portal" and "pk" in view_kwargs and match.url_name.startswith("run"):
        return Run.objects.filter(pk=view_kwargs["pk"]).values_list("campaign__page_language", flat=True).first()
    return None


class CampaignLanguageMiddleware:
    """After ``LocaleMiddleware``: a campaign's default language where the visitor expressed none."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if browser_language(request) is not None:
            return None
        language = campaign_of_view(request, view_kwargs)
        if language and language != translation.get_language():
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return None
