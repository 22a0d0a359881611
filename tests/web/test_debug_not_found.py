"""With DEBUG on (`make demo` runs the development server in development mode), an address that matches
no URL pattern gets the site's 404 page, not Django's technical page listing every URL pattern."""
from __future__ import annotations

from config.not_found import page


def test_an_unknown_address_gets_the_site_page_with_debug_on(client, db, settings):
    settings.DEBUG = True
    for url in ("/no-such-page/", "/results/x/y/z/", "/api/nothing-here/"):
        response = client.get(url)
        assert response.status_code == 404
        body = response.content.decode()
        assert "URLconf" not in body and "api/schema/" not in body, url
        assert body == page(), url


def test_a_known_page_is_untouched(client, db, settings):
    settings.DEBUG = True
    assert client.get("/").status_code == 200
