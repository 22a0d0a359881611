"""Walk every URL pattern of a URLconf, fill its path parameters with real object ids, GET it as a
given client and collect what each response shows (body, archive members, headers).

The list of endpoints comes from ``get_resolver()``, so a new route is walked without anyone
adding it here; a route whose parameters cannot be filled is an error, never skipped.
"""
from __future__ import annotations

import gzip
import io
import re
import tarfile
import zipfile
from dataclasses import dataclass

from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils.regex_helper import normalize


@dataclass(frozen=True)
class Endpoint:
    regex: str
    name: str
    namespace: str
    callback: object

    @property
    def is_admin(self) -> bool:
        return self.namespace.split(":")[0] == "admin"

    @property
    def is_api(self) -> bool:
        return self.namespace.split(":")[0] == "api"

    @property
    def label(self) -> str:
        return f"{self.namespace + ':' if self.namespace else ''}{self.name or '(unnamed)'} {self.regex}"


def _join(prefix: str, regex: str) -> str:
    return prefix + regex.removeprefix("^")


def endpoints(urlconf=None) -> list[Endpoint]:
    out: list[Endpoint] = []

    def walk(resolver: URLResolver, prefix: str, namespace: str):
        for p in resolver.url_patterns:
            regex = _join(prefix, p.pattern.regex.pattern)
            if isinstance(p, URLResolver):
                ns = namespace
                if p.namespace:
                    ns = f"{namespace}:{p.namespace}" if namespace else p.namespace
                walk(p, regex, ns)
            elif isinstance(p, URLPattern):
                out.append(Endpoint(regex, p.name or "", namespace, p.callback))

    walk(get_resolver(urlconf), "", "")
    return out


def _view_words(endpoint: Endpoint) -> str:
    cb = endpoint.callback
    cls = getattr(cb, "view_class", None) or getattr(cb, "cls", None)
    words = [endpoint.name, getattr(cb, "__name__", ""), getattr(cb, "__module__", "")]
    if cls is not None:
        words.append(cls.__name__)
        model = getattr(cls, "model", None) or getattr(getattr(cls, "queryset", None), "model", None)
        serializer = getattr(cls, "serializer_class", None)
        if model is None and serializer is not None and hasattr(serializer, "Meta"):
            model = getattr(serializer.Meta, "model", None)
        if model is not None:
            words.insert(0, model.__name__)
    return " ".join(w for w in words if w).lower()


class Unfillable(Exception):
    pass


# Which objects a bare ``pk``/``id`` names, guessed from the route's name, view and model, in this order.
PK_KINDS = ["run", "team", "invitation", "document", "result", "snapshot", "sentence", "genre", "user", "campaign"]


def fill_values(endpoint: Endpoint, param: str, objects: dict[str, list]) -> list[str]:
    """The values to try for one path parameter; raise :class:`Unfillable` for an unknown one."""
    if endpoint.is_admin:
        if param == "object_id":
            return objects.get("admin_object_id", ["1"])
        return [{"app_label": "campaign", "model_name": "run", "content_type_id": "1", "url": "x"}.get(param, "1")]
    p = param.lower()
    if p in ("slug", "campaign", "campaign_slug"):
        return objects["campaign"]
    if p in ("campaign_id", "campaign_pk"):
        return objects["campaign_pk"]
    if p == "format":
        return ["json"]
    if p in ("uidb64",):
        return ["MQ"]
    if p == "token":
        return ["set-password"]
    for kind in PK_KINDS:
        # <kind>_a / <kind>_b: two objects of a kind (the comparison of two runs)
        if p in (kind, f"{kind}_pk", f"{kind}_id", f"{kind}_slug", f"{kind}_name", f"{kind}_code", f"{kind}_a",
                 f"{kind}_b"):
            key = kind if not p.endswith(("_slug", "_name", "_code")) else f"{kind}{p[p.rfind('_'):]}"
            if key in objects:
                return objects[key]
    if p in ("pk", "id"):
        # The path segment before the parameter says what it names: runs/<pk>/, teams/<pk>/...
        before = re.search(rf"([A-Za-z_-]+)/\(\?P<{param}>", endpoint.regex)
        if before:
            segment = before.group(1).lower().removesuffix("s")
            if segment in PK_KINDS and segment in objects:
                return objects[segment]
        words = _view_words(endpoint)
        for kind in PK_KINDS:
            if kind in words:
                return objects[kind]
    if p in ("name", "document_name"):
        return objects["document_name"]
    if p in ("genre", "code"):
        return objects["genre_code"]
    raise Unfillable(f"cannot fill parameter {param!r} of {endpoint.label}: teach tests/governance/walker.py "
                     f"what it names, so that the route is checked for leaks")


def urls_for(endpoint: Endpoint, objects: dict[str, list]) -> list[str]:
    forms = normalize(endpoint.regex)
    if not forms:
        raise Unfillable(f"cannot build a URL for {endpoint.label}")
    fmt, params = forms[0]
    choices: list[dict[str, str]] = [{}]
    for param in params:
        values = fill_values(endpoint, param, objects)
        choices = [dict(c, **{param: str(v)}) for c in choices for v in values]
    urls = []
    for c in choices:
        url = "/" + fmt % c
        if not endpoint.is_admin and resolve(url, _current_urlconf.value).func is not endpoint.callback:
            # An earlier pattern shadows this one with these values: say so rather than test the wrong view.
            raise Unfillable(f"{url} resolves to {resolve(url, _current_urlconf.value).view_name}, "
                             f"not to {endpoint.label}")
        urls.append(url)
    return urls


class _current_urlconf:
    value = None


def body_text(response) -> str:
    """Everything a client receives, archives unpacked, as text."""
    if getattr(response, "streaming", False):
        raw = b"".join(response.streaming_content)
    else:
        raw = response.content
    parts = [raw]
    if raw[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            parts += [n.encode() for n in zf.namelist()] + [zf.read(n) for n in zf.namelist()]
    elif raw[:2] == b"\x1f\x8b":
        unpacked = gzip.decompress(raw)
        parts.append(unpacked)
        try:
            with tarfile.open(fileobj=io.BytesIO(unpacked)) as tf:
                for m in tf.getmembers():
                    parts.append(m.name.encode())
                    f = tf.extractfile(m)
                    if f is not None:
                        parts.append(f.read())
        except tarfile.TarError:
            pass
    # the page's byte count is no figure of the page's, and may equal a planted count by chance
    headers = "\n".join(f"{k}: {v}" for k, v in response.items() if k.lower() != "content-length")
    return _CSRF_TOKEN.sub(r"\1", headers + "\n" + "\n".join(p.decode("utf-8", errors="replace") for p in parts))


# A form's CSRF token is 64 random letters and digits, a new one on every page: a planted count of four digits
# stands in it, between letters, in about one page in thirty. It carries nothing of the campaign's.
_CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value="|"csrfToken": ")[A-Za-z0-9]{64}')


def find_markers(text: str, forbidden: dict[str, list]) -> list[str]:
    found = []
    for what, markers in forbidden.items():
        for m in markers:
            if hasattr(m, "search"):  # a compiled pattern or world.WholeNumber
                hit = m.search(text)
                if hit:
                    found.append(f"{what} ({hit.group(0)!r})")
            elif m and m in text:
                found.append(f"{what} ({m!r})")
    return found


def walk(client, objects: dict[str, list], forbidden: dict[str, list], *, urlconf=None, who: str = "",
         staff: bool = False) -> list[str]:
    """GET every endpoint; return one line per leak, error or unfillable route (empty means clean).

    Admin routes must send a non-staff user to the login page; for a staff user (an organiser of
    another campaign) they are checked for leaks like every other page."""
    problems: list[str] = []
    _current_urlconf.value = urlconf
    for endpoint in endpoints(urlconf):
        try:
            urls = urls_for(endpoint, objects)
        except Unfillable as exc:
            problems.append(str(exc))
            continue
        for url in urls:
            for query in (["", "?format=json"] if endpoint.is_api else [""]):
                cache.clear()  # throttling counts requests in the cache
                try:
                    response = client.get(url + query)
                except Exception as exc:  # a traceback is never an acceptable answer
                    problems.append(f"GET {url}{query} as {who}: raised {type(exc).__name__}: {exc}")
                    continue
                if endpoint.is_admin and not staff and endpoint.name not in ("login", "logout"):
                    if response.status_code != 302 or "/admin/login/" not in response.get("Location", ""):
                        problems.append(f"GET {url} as {who}: admin answered {response.status_code} to a non-staff user")
                    continue
                for leak in find_markers(body_text(response), forbidden):
                    problems.append(f"GET {url}{query} as {who} ({response.status_code}): shows {leak}")
    return problems
