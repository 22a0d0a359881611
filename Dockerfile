# The application image: web (gunicorn), Celery workers and beat all run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PARSEVAL_VAR_DIR=/data \
    PARSEVAL_SHARED=/shared

RUN groupadd --system app && useradd --system --gid app --home-dir /app app
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files are collected into the image (served by WhiteNoise); media and gold are volumes under /data.
RUN python manage.py collectstatic --noinput \
    && mkdir -p /data/media /data/gold \
    && chown -R app:app /data

USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
