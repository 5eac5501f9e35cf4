# The whole project goes in (what .dockerignore leaves out: the virtualenv, var/, .git, .env, caches,
# tests); tests/test_docker_image.py checks that every installed app and package reaches the image.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/vtt
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir . ./clients/python \
    && mkdir -p /var/lib/vtt && useradd --system vtt && chown vtt /var/lib/vtt
USER vtt
EXPOSE 8000
