"""A Label Studio ML backend for tests and benchmarks: a real HTTP server on a thread, speaking the
protocol (GET /health, POST /setup, POST /predict; label_studio_ml/api.py), that knows the demo's
rendered scenes and misbehaves on request.

It answers /predict as a detector of the demo's street scenes would: it fetches each task's image through
the URL it is given (the platform's signed URL), recognises the picture by the SHA-256 of its bytes among
the scenes a test registered (`register(picture, scene)`), and answers that scene's boxes as
`rectanglelabels` in percent, each with its attributes as per-region `choices` named as the labeling
configuration sent with the request says, missing each object with probability 1 - `recall` and moving
each edge by a normal error of `box_error` times the box's width or height. Everything is drawn from a
generator seeded by `seed` and the picture, so an answer is the same every time. A picture it does not
know gets no boxes.

    with FakeMLBackend(seed=3, recall=0.8, box_error=0.05) as fake:
        fake.register(png_bytes, scene)
        ... point a collection at fake.url ...
        fake.set_mode("garbage")          # see MODES
        fake.require_basic("user", "pw")  # 401 without them; require_header(name, value); no_auth()
        fake.down() / fake.up()           # nothing listens on its port, then it is back
        fake.requests                     # every request seen: Seen(method, path, headers, body)
        fake.fetched                      # every URL it fetched (the images)

Plain standard library (http.server, urllib, xml.etree); no Django, so benchmarks can use it too.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import threading
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = {
    "ok": "answers the registered scene's boxes (with the stated recall and box error)",
    "slow": "answers as ok after `delay` seconds (beyond the platform's timeout)",
    "error": "answers /predict with HTTP 500",
    "garbage": "answers /predict with a body that is not JSON",
    "garbage_json": "answers /predict with JSON that is no prediction answer",
    "outside": "every box lies outside the image",
    "unknown_label": "every box names a label the vocabulary does not have",
    "wrong_task": "the prediction says it is for another task",
    "wrong_count": "two predictions for the one task sent",
    "redirect": "answers /predict with a redirect to another address of its own (/elsewhere)",
    "names_url": "answers as ok, with URLs of its own (/elsewhere) in the answer",
}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class _State:
    recall: float = 1.0
    box_error: float = 0.0
    seed: int = 0
    mode: str = "ok"
    only: frozenset[str] | None = None  # misbehave only for these pictures (SHA-256); None: for all
    delay: float = 5.0
    model_version: str = "fake-detector-1"
    auth: tuple[str, str, str] | None = None  # ("basic", user, password) or ("header", name, value)
    scenes: dict[str, dict] = field(default_factory=dict)  # sha256 of the picture -> scene
    requests: list[Seen] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeMLBackend:
    def __init__(self, *, recall: float = 1.0, box_error: float = 0.0, seed: int = 0) -> None:
        self.state = _State(recall=recall, box_error=box_error, seed=seed)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # --- lifecycle

    def start(self) -> FakeMLBackend:
        state = self.state

        class Handler(_Handler):
            pass

        Handler.state = state
        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        server.block_on_close = False  # a slow answer must not hold stop()
        self._server, self.port = server, server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, name="fake-ml-backend", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def down(self) -> None:
        """Nothing listens on the port any more (connection refused) until `up()`."""
        self.stop()

    def up(self) -> None:
        self.start()

    def __enter__(self) -> FakeMLBackend:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    # --- what it knows and how it behaves

    def register(self, picture: bytes, scene: dict) -> str:
        """The scene drawn in `picture` (its bytes as the platform serves them); returns their SHA-256."""
        digest = hashlib.sha256(picture).hexdigest()
        self.state.scenes[digest] = scene
        return digest

    def set_mode(self, mode: str, *, delay: float | None = None, only: list[str] | None = None) -> None:
        """Behave as `mode` says (MODES); `only`: for these pictures (digests from `register`), as ok
        for the others."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
        self.state.mode = mode
        self.state.only = frozenset(only) if only is not None else None
        if delay is not None:
            self.state.delay = delay

    def set_quality(self, *, recall: float | None = None, box_error: float | None = None) -> None:
        if recall is not None:
            self.state.recall = recall
        if box_error is not None:
            self.state.box_error = box_error

    def set_model_version(self, version: str) -> None:
        self.state.model_version = version

    def require_basic(self, username: str, password: str) -> None:
        self.state.auth = ("basic", username, password)

    def require_header(self, name: str, value: str) -> None:
        self.state.auth = ("header", name, value)

    def no_auth(self) -> None:
        self.state.auth = None

    @property
    def requests(self) -> list[Seen]:
        with self.state.lock:
            return list(self.state.requests)

    @property
    def fetched(self) -> list[str]:
        with self.state.lock:
            return list(self.state.fetched)

    def seen(self, path: str) -> list[Seen]:
        return [request for request in self.requests if request.path == path]

    def forget(self) -> None:
        with self.state.lock:
            self.state.requests.clear()
            self.state.fetched.clear()


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
        return

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorised():
            return
        if self.path in ("/health", "/"):
            self._json(200, {"status": "UP", "model_class": "FakeDetector"})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw
        self._record(body)
        if not self._authorised():
            return
        if self.path == "/setup":
            self._json(200, {"model_version": self.state.model_version})
        elif self.path == "/predict":
            self._predict(body)
        else:
            self._json(404, {"error": "not found"})

    def _record(self, body: Any) -> None:
        with self.state.lock:
            self.state.requests.append(Seen(self.command, self.path, dict(self.headers.items()), body))

    def _authorised(self) -> bool:
        auth = self.state.auth
        if auth is None:
            return True
        if auth[0] == "basic":
            expected = "Basic " + base64.b64encode(f"{auth[1]}:{auth[2]}".encode()).decode()
            ok = self.headers.get("Authorization") == expected
        else:
            ok = self.headers.get(auth[1]) == auth[2]
        if not ok:
            self._send(
                401, b"Unauthorized", "text/plain", {"WWW-Authenticate": 'Basic realm="Login required"'}
            )
        return ok

    def _predict(self, body: Any) -> None:
        tasks = body.get("tasks", []) if isinstance(body, dict) else []
        config = body.get("label_config", "") if isinstance(body, dict) else ""
        pictures = [self._fetch(task["data"]["image"]) for task in tasks]
        digests = [hashlib.sha256(picture).hexdigest() for picture in pictures]
        only = self.state.only
        mode = self.state.mode if only is None or only.intersection(digests) else "ok"
        if mode == "slow":
            time.sleep(self.state.delay)
        if mode == "error":
            return self._send(500, b"Internal Server Error", "text/plain")
        if mode == "garbage":
            return self._send(200, b"<html>model exploded</html>", "application/json")
        if mode == "garbage_json":
            return self._json(200, {"predictions": "none today"})
        if mode == "redirect":
            return self._send(
                302,
                b"",
                "text/plain",
                {"Location": f"http://127.0.0.1:{self.server.server_address[1]}/elsewhere"},
            )
        predictions = [
            self._prediction(task, digest, config, mode) for task, digest in zip(tasks, digests, strict=True)
        ]
        if mode == "wrong_count":
            predictions = predictions * 2
        self._json(200, {"results": predictions})

    def _prediction(self, task: dict, digest: str, config: str, mode: str) -> dict:
        scene = self.state.scenes.get(digest)
        prediction: dict[str, Any] = {"result": [], "score": 0.0, "model_version": self.state.model_version}
        if mode == "wrong_task":
            prediction["task"] = f"{task.get('id')}-other"
        if mode == "names_url":
            elsewhere = f"http://127.0.0.1:{self.server.server_address[1]}/elsewhere"
            prediction |= {"image": elsewhere, "model_url": elsewhere}
        if scene is None:
            return prediction
        prediction["result"] = _regions(scene, _choices_names(config), self.state, digest, mode)
        scores = [region["score"] for region in prediction["result"] if "score" in region]
        prediction["score"] = sum(scores) / len(scores) if scores else 0.0
        return prediction

    def _fetch(self, url: str) -> bytes:
        with self.state.lock:
            self.state.fetched.append(url)
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read()

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _send(
        self, status: int, content: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(content)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(content)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a slow answer after its timeout)


def _choices_names(config: str) -> dict[tuple[str, str], str]:
    """(type, attribute value) -> the name of the Choices tag that holds it, read from the labeling
    configuration, as a backend built on label-studio-ml reads its `parsed_label_config`."""
    names: dict[tuple[str, str], str] = {}
    if not config:
        return names
    for tag in ElementTree.fromstring(config).iter("Choices"):
        for choice in tag.iter("Choice"):
            names[(tag.get("whenLabelValue", ""), choice.get("value", ""))] = tag.get("name", "")
    return names


def _regions(
    scene: dict, names: dict[tuple[str, str], str], state: _State, digest: str, mode: str
) -> list[dict]:
    rnd = random.Random(f"{state.seed}|{digest}")
    width, height = float(scene["width"]), float(scene["height"])
    regions: list[dict] = []
    for number, obj in enumerate(scene["objects"]):
        found = rnd.random() < state.recall
        x, y, w, h = (float(v) for v in obj["bbox"])
        errors = [rnd.gauss(0, state.box_error) for _ in range(4)]
        score = round(rnd.uniform(0.5, 1.0), 3)
        if not found:
            continue
        x0, x1 = x + errors[0] * w, x + w + errors[1] * w
        y0, y1 = y + errors[2] * h, y + h + errors[3] * h
        x0, x1 = min(x0, x1 - 1), max(x1, x0 + 1)
        y0, y1 = min(y0, y1 - 1), max(y1, y0 + 1)
        if mode == "outside":
            x0, x1 = width + 10 + x0, width + 10 + x1
        label = "unicorn" if mode == "unknown_label" else obj["type"]
        region_id = f"r{number}"
        value = {
            "x": 100 * x0 / width,
            "y": 100 * y0 / height,
            "width": 100 * (x1 - x0) / width,
            "height": 100 * (y1 - y0) / height,
            "rotation": 0,
            "rectanglelabels": [label],
        }
        regions.append(
            {
                "id": region_id,
                "from_name": "label",
                "to_name": "image",
                "type": "rectanglelabels",
                "original_width": int(width),
                "original_height": int(height),
                "value": value,
                "score": score,
            }
        )
        by_tag: dict[str, list[str]] = {}
        for attribute in obj.get("attributes", []):
            tag = names.get((obj["type"], attribute))
            if tag:
                by_tag.setdefault(tag, []).append(attribute)
        for tag, chosen in by_tag.items():
            regions.append(
                {
                    "id": region_id,
                    "from_name": tag,
                    "to_name": "image",
                    "type": "choices",
                    "value": {**{k: value[k] for k in ("x", "y", "width", "height")}, "choices": chosen},
                }
            )
    return regions
