"""gunicorn settings of the web container (docker-compose.yml, Dockerfile).

gunicorn has no limit on a request body: Django refuses one above
PARSEVAL_MAX_REQUEST_BYTES from its Content-Length before reading it
(campaign.middleware), and a TLS proxy in front should cap it too. These limits
bound what gunicorn itself reads before Django sees the request.
"""
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "120"))
limit_request_line = 4094  # the request line (method, path, query)
limit_request_fields = 60  # number of headers
limit_request_field_size = 8190  # bytes per header
# Only the TLS proxy may say that the request came over HTTPS (X-Forwarded-Proto) or whom it is from.
forwarded_allow_ips = os.environ.get("PARSEVAL_TRUSTED_PROXIES", "127.0.0.1")
