# The application image: web (gunicorn), Celery workers and beat all run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PARSEVAL_VAR_DIR=/data

RUN groupadd --system app && useradd --system --gid app --home-dir /app app
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# The hottest scoring modules compiled from their source (parseval/annotations/compiled.py); the compiler leaves the image.
# The bytecode is written here once: PYTHONDONTWRITEBYTECODE (above) and a read-only /app for the app user would
# otherwise make every process compile the modules it imports from source.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && python scripts/build_compiled.py --force \
    && python -m compileall -q parseval evaluation campaign annotations config \
    && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
# Static files are collected into the image (served by WhiteNoise). /data is the container's scratch (staging,
# local copies of stored files); the stored files themselves are in the object store (docker-compose.yml).
# collectstatic needs settings but no secret: the build runs it in development mode.
# The translations compiled (Babel, from requirements.txt) before collectstatic.
RUN pybabel --quiet compile --domain django --directory locale --statistics \
    && PARSEVAL_DEVELOPMENT=1 python manage.py collectstatic --noinput \
    && mkdir -p /data/media /data/gold \
    && chown -R app:app /data

USER app
EXPOSE 8000
CMD ["gunicorn", "--config", "config/gunicorn.conf.py", "config.wsgi:application"]
