"""The favicon is a static file of the project (the app works offline: no CDN)."""
from __future__ import annotations

import re
from xml.etree import ElementTree

from django.contrib.staticfiles import finders
from django.templatetags.static import static


def test_pages_name_a_local_svg_icon_and_favicon_ico_leads_to_it(client, db):
    html = client.get("/").content.decode()
    href = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)">', html).group(1)
    assert href == static("favicon.svg") and not href.startswith(("http:", "https:", "//"))
    path = finders.find("favicon.svg")
    assert ElementTree.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    # for the pages that name no icon (admin, API), browsers ask for /favicon.ico: no 404 there
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == href
