"""Issue 49, item 5: the platform's processes share nothing but PostgreSQL, Redis and the bucket. The web
server (gunicorn, `scripts/serve.sh web`) and a Celery worker (every queue) run with a media folder each,
empty, on one PostgreSQL, Redis and the local SeaweedFS, and the whole life goes through them: images
uploaded, a download imported with its pixels, a fit, a pre-annotation by a model server (which fetches
presigned URLs from the store), a test built and truthed by the oracle, taken by a vision system through
the Python client (its images through presigned URLs), an export. Everything passes, and neither media
folder holds a file afterwards: every file went to the bucket and came back from it."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import httpx
import pytest
from vtt_client import Client

from accounts.roles import Role
from accounts.services import token_create
from demo.pictures import scene_picture
from demo.synthetic.scenes import generate_scenes
from evaluation.services.systems import system_create, system_token_create
from tests.django_fixtures import import_scenes
from tests.factories import CollectionFactory, UserFactory
from tests.fake_ml_backend import FakeMLBackend
from tests.integration.conftest import celery, wait_for
from tests.parallel import ONE_SERVED_AT_A_TIME
from tests.serving import BIN, free_port, kill, start
from tests.storage_fixtures import BUCKET, ENDPOINT, s3_environment

pytestmark = [pytest.mark.integration, ONE_SERVED_AT_A_TIME]

ENGINE = {"min_population": 5, "max_questions": 12}


@pytest.fixture
def model_server():
    with FakeMLBackend(seed=5) as fake:
        yield fake


def files_in(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


def processes(real_services: dict, bucket: str, tmp_path: Path) -> tuple[str, list, list[Path]]:
    """The web server and a worker, each with a media and a var folder of its own."""
    s3 = s3_environment(bucket)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started, folders = [], []
    for role in ("web", "worker"):
        media, var = tmp_path / f"{role}-media", tmp_path / f"{role}-var"
        media.mkdir()
        folders.append(media)
        env = {**real_services, **s3, "MEDIA_ROOT": str(media), "VAR_DIR": str(var), "SITE_URL": f"{base}/"}
        if role == "web":
            env |= {"HOST": "127.0.0.1", "PORT": str(port), "WEB_WORKERS": "2", "BIN": str(BIN)}
            started.append(start(["scripts/serve.sh", "web"], env, tmp_path / "web.log"))
        else:
            queues = ",".join(
                real_services[k] for k in ("CELERY_QUEUE", "CELERY_PROPOSAL_QUEUE", "CELERY_DEAL_QUEUE")
            )
            command = celery("worker", "--hostname", "all@%h", "--queues", queues, "--concurrency", "2")
            started.append(
                start([*command, "--loglevel", "info", "--without-gossip"], env, tmp_path / "worker.log")
            )
    return base, started, folders


def until(client: httpx.Client, path: str, done, timeout: float, what: str, log: Path) -> dict:
    def check():
        body = client.get(path).json()
        return body if done(body) else None

    return wait_for(check, timeout, what, log)


def test_the_whole_life_with_nothing_shared_but_postgresql_redis_and_the_bucket(
    bucket, real_services, tmp_path, model_server
):
    admin = UserFactory(role=Role.ADMIN, username="admin")
    collection = CollectionFactory(name="shared nothing")
    import_scenes(collection, generate_scenes(60, seed=41))  # the training set, without pixels
    test_scenes = list(generate_scenes(4, seed=42, prefix="test"))
    uploads = list(generate_scenes(2, seed=43, prefix="upload"))
    for scene in uploads:
        model_server.register(scene_picture(scene), scene)
    base, started, (web_media, worker_media) = processes(real_services, bucket, tmp_path)
    log = tmp_path / "worker.log"
    web = httpx.Client(
        base_url=base, headers={"Authorization": f"Token {token_create(user=admin, name='t')[1]}"}
    )
    try:
        wait_for(lambda: "ready." in log.read_text(), 60, "the worker", log)
        wait_for(lambda: _answers(base), 60, "the web server", tmp_path / "web.log")

        # Images uploaded (the web writes them to the bucket).
        files = [("files", (s["image"], scene_picture(s), "image/png")) for s in uploads]
        response = web.post(
            f"/api/v1/collections/{collection.pk}/images/", data={"split": "train"}, files=files
        )
        assert response.status_code == 201 and len(response.json()["created"]) == 2, response.text

        # A download imported with its pixels (the web keeps the files, the worker reads them and writes
        # the pictures).
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as pictures:
            for scene in test_scenes:
                pictures.writestr(scene["image"], scene_picture(scene))
        lines = "".join(json.dumps(s) + "\n" for s in test_scenes).encode()
        response = web.post(
            f"/api/v1/collections/{collection.pk}/imports/",
            data={"format": "jsonl", "split": "test", "mark_reviewed": "true"},
            files={"file": ("test.jsonl", lines), "images": ("pictures.zip", archive.getvalue())},
        )
        assert response.status_code == 202, response.text
        job = until(web, f"/api/v1/imports/{response.json()['id']}/", _settled, 90, "the import", log)
        assert (job["status"], job["pixels_attached"]) == ("done", 4), job

        # The fit (the worker writes the statistics to the bucket; the web and the worker read them).
        response = web.post("/api/v1/statistics/", json={"collections": [collection.pk]})
        assert response.status_code == 202, response.text
        fitted = until(web, f"/api/v1/statistics/{response.json()['id']}/", _settled, 90, "the fit", log)
        assert fitted["status"] == "ready", fitted

        # Pre-annotation: the worker sends the model server presigned URLs, which it fetches from the store.
        response = web.put(
            f"/api/v1/collections/{collection.pk}/model-backend/", json={"url": model_server.url}
        )
        assert response.status_code == 200, response.text
        response = web.post(f"/api/v1/collections/{collection.pk}/model-backend/preannotate/")
        assert response.status_code == 202, response.text
        done = until(
            web, f"/api/v1/preannotations/{response.json()['id']}/", _settled, 90, "pre-annotation", log
        )
        assert done["status"] == "done" and done["boxes"] > 0, done
        assert model_server.fetched and all(
            url.startswith(f"{ENDPOINT}/{BUCKET}/") for url in model_server.fetched
        )

        # A test built and truthed by the oracle on the worker, then published.
        images = web.get(f"/api/v1/collections/{collection.pk}/images/", params={"split": "test"}).json()
        response = web.post(
            "/api/v1/truthing/tests/",
            json={
                "name": "from the bucket",
                "statistics": fitted["id"],
                "images": [image["id"] for image in images["results"]],
                "engine_settings": ENGINE,
            },
        )
        assert response.status_code == 201, response.text
        test_id = response.json()["id"]
        assert web.post(f"/api/v1/truthing/tests/{test_id}/start/").status_code == 200
        wait_for(
            lambda: web.post(f"/api/v1/truthing/tests/{test_id}/publish/").status_code == 200,
            120,
            "the automatic truthing",
            log,
        )

        # A vision system takes it through the client: each image through a presigned URL.
        owner = UserFactory(role=Role.VISION_SYSTEM_OWNER, username="owner")
        secret = system_token_create(system=system_create(owner=owner, name="bucket system"), name="run")[1]
        client = Client(base, secret, progress=False)
        session = client.session(test_id)
        seen = 0
        for question in session.questions():
            assert question.image_bytes()[:4] == b"\x89PNG"
            seen += 1
            session.answer(question, True)
        assert seen > 0 and session.score().complete
        client.close()

        # An export.
        exported = web.get(f"/api/v1/collections/{collection.pk}/export/jsonl/")
        assert exported.status_code == 200 and all(
            s["image"].encode() in exported.content for s in test_scenes
        )
    finally:
        web.close()
        for process in started:
            kill(process)
    assert files_in(web_media) == [] and files_in(worker_media) == []


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _settled(body: dict) -> bool:
    return body.get("status") in {"done", "failed", "ready", "cancelled", "awaiting"}
