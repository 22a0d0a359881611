"""The documentation is reachable from the web pages: docs/*.md rendered by the app."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_every_doc_is_listed_and_rendered_with_its_tables(client):
    index = client.get(reverse("docs:index")).content.decode()
    names = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert names and all(f'href="/docs/{n}"' in index for n in names)
    assert 'href="/api/docs/"' in index and 'href="/api/redoc/"' in index
    page = client.get("/docs/metrics/easy.md")
    assert page.status_code == 200
    html = page.content.decode()
    source = (REPO / "docs" / "metrics" / "easy.md").read_text(encoding="utf-8")
    assert f"<h1>{re.search(r'^# (.+)$', source, re.M).group(1)}</h1>" in html
    assert "<table>" in html and "<td>" in html  # Markdown tables, not pipes
    assert 'name="viewport"' in html


@pytest.mark.django_db
def test_relative_links_between_docs_resolve(client):
    html = client.get("/docs/campaign-kinds.md").content.decode()
    links = [h for h in re.findall(r'href="([^"#:]+\.md)', html)]
    assert links
    for href in links:
        target = (Path("/docs/campaign-kinds.md").parent / href).as_posix()
        target = re.sub(r"/[^/]+/\.\./", "/", target)
        if target.startswith("/docs/"):
            assert client.get(target).status_code == 200, href


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["../README.md", "../config/settings.py", "metrics/missing.md", "%2e%2e/README.md"])
def test_only_markdown_under_docs_is_served(client, name):
    response = client.get(f"/docs/{name}")
    assert response.status_code == 404
    assert b"SECRET_KEY" not in response.content


@pytest.mark.django_db
def test_results_help_links_to_the_rendered_definitions(client):
    from django.template.loader import render_to_string

    for template, wanted in (("_easy_help.html", ["/docs/metrics/easy.md"]),
                             ("_figure_help.html", ["/docs/metrics/constituency.md", "/docs/metrics/dependency.md"])):
        html = render_to_string(f"results/{template}", {"explained": []})
        assert "<code>docs/" not in html
        links = re.findall(r'href="(/docs/[^"]+)"', html)
        assert set(wanted) <= set(links)
        assert all(client.get(link).status_code == 200 for link in links)
