# syntax=docker/dockerfile:1
# The trustprobe service: `docker build -t trustprobe .` then see docker-compose.yml and
# docs/service.md ("Running in a container").

# Build stage: wheels of trustprobe and every dependency (PostgreSQL driver included), so the
# runtime stage carries no compiler, no pip cache and no source tree.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[postgres]"

# Runtime stage: the installed wheels, run as an unprivileged user.
FROM python:3.11-slim AS runtime
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/trustprobe --create-home trustprobe
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels "trustprobe[postgres]" \
    && rm -rf /wheels
USER trustprobe
WORKDIR /var/lib/trustprobe
# TRUSTPROBE_HOME holds the embedded SQLite store when no TRUSTPROBE_DATABASE_URL is given.
ENV PYTHONUNBUFFERED=1 \
    TRUSTPROBE_HOME=/var/lib/trustprobe
VOLUME ["/var/lib/trustprobe"]
EXPOSE 8000
# Ready = the store answers and its migrations are current (GET /readyz, 503 otherwise).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request\ntry:\n    ok = urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4).status == 200\nexcept OSError:\n    ok = False\nsys.exit(0 if ok else 1)"]
CMD ["trustprobe", "serve", "--host", "0.0.0.0", "--port", "8000"]
