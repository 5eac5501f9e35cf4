FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/vtt
WORKDIR /app
COPY pyproject.toml README.md ./
COPY vtt_site vtt_site
COPY accounts accounts
COPY annotations annotations
COPY engine engine
COPY truthing truthing
COPY evaluation evaluation
COPY frontend frontend
COPY manage.py ./
RUN pip install --no-cache-dir . && mkdir -p /var/lib/vtt && useradd --system vtt && chown vtt /var/lib/vtt
USER vtt
EXPOSE 8000
