"""The leak walk reads what a client receives; random or size-derived values must not read as planted figures."""
from __future__ import annotations

from django.http import HttpResponse

from .walker import body_text, find_markers
from .world import WholeNumber

TOKEN = "aB5393xZ" * 8  # 64 letters and digits, with a planted count standing between letters


def test_a_csrf_token_that_holds_a_planted_count_is_not_a_leak():
    page = f'<form><input type="hidden" name="csrfmiddlewaretoken" value="{TOKEN}"></form>'
    api = f'<script>window.drf = {{"csrfToken": "{TOKEN}"}};</script>'
    for html in (page, api):
        response = HttpResponse(html)
        assert find_markers(body_text(response), {"scores": [WholeNumber("5393")]}) == []


def test_a_page_s_byte_count_is_not_a_leak_but_the_same_count_in_the_page_is():
    response = HttpResponse("x" * 5393)
    response["Content-Length"] = "5393"
    assert find_markers(body_text(response), {"scores": [WholeNumber("5393")]}) == []
    shown = HttpResponse(f"<td>5393</td><input name=\"csrfmiddlewaretoken\" value=\"{TOKEN}\">")
    assert find_markers(body_text(shown), {"scores": [WholeNumber("5393")]}) == ["scores ('5393')"]
