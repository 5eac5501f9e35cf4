import pytest

from tests.clients.chat_server import ChatServer
from tests.clients.test_runner import runner_test, secrets  # noqa: F401  (shared with test_runner_streams)
from tests.evaluation.conftest import owner, system, system_token  # noqa: F401  (shared fixtures)


@pytest.fixture
def chat_servers():
    """Start chat-completions servers (chat_server.py) for a test; each is stopped after it."""
    started: list[ChatServer] = []

    def start(**settings) -> ChatServer:
        server = ChatServer(**settings).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
