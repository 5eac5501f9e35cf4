"""How many requests the model server is sent at once: additive increase, multiplicative decrease.

A run starts at its concurrency (`vtt take --concurrency N`, by default the test's number of open
streams). Each request the server refuses with 429 (too many requests, a rate limit) halves the limit,
at most once per round of requests in flight, so that a burst of 429s from the same moment counts once;
each request answered without one raises it by 1/limit, about one more request at once per round that
went through. The limit never goes below one nor above the run's concurrency.
"""

from __future__ import annotations

import threading


class Aimd:
    def __init__(self, ceiling: int) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = float(self.ceiling)
        self.in_flight = 0
        self.decreases = 0
        # Requests that finished since the last decrease: the next 429 halves the limit only once this
        # many requests (a round at the halved limit) have gone through since.
        self._since_decrease = self.ceiling
        self._changed = threading.Condition()

    def acquire(self) -> None:
        """Wait for a place under the limit."""
        with self._changed:
            while self.in_flight >= int(self.limit):
                self._changed.wait()
            self.in_flight += 1

    def release(self, *, retried: bool = False) -> None:
        """The request is done; `retried`: some try of it failed (it raises nothing)."""
        with self._changed:
            self.in_flight -= 1
            self._since_decrease += 1
            if not retried:
                self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)
            self._changed.notify_all()

    def throttled(self) -> None:
        """A 429 seen while a request is being tried (the backend says so at once): lower the limit."""
        with self._changed:
            if self._since_decrease < int(self.limit):
                return
            self.limit = max(1.0, self.limit / 2)
            self.decreases += 1
            self._since_decrease = 0

    @property
    def current(self) -> int:
        return int(self.limit)
