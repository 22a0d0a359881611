"""Follow every link of the site's pages as one client sees them, to find the links that lead nowhere."""
from __future__ import annotations

import re
from collections import deque
from html import unescape

SKIP = ("/admin/logout/", "/admin/password_change/", "/accounts/logout/", "/static/")


def crawl(client, start: str, follow: tuple[str, ...], limit: int = 400) -> dict[str, int]:
    """``{url: status}`` of every same-site link reachable from ``start``; only pages under ``follow`` are read
    for more links. Query strings are dropped: the filter and sort variants of a list link to the same objects."""
    seen: dict[str, int] = {}
    todo = deque([start])
    while todo and len(seen) < limit:
        url = todo.popleft()
        if url in seen:
            continue
        response = client.get(url)
        seen[url] = response.status_code
        if response.status_code != 200 or "html" not in response.get("Content-Type", "") or \
                not url.startswith(follow):
            continue
        for href in re.findall(r'href="([^"#]*)"', response.content.decode()):
            href = unescape(href).split("?")[0]
            if href.startswith("/") and not href.startswith(SKIP) and href not in seen:
                todo.append(href)
    return seen
