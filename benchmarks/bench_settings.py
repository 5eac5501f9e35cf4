"""Settings of the answer-throughput benchmark's server: the platform's, plus one bare view (the
ceiling) mounted next to the real API in the same process."""

from vtt_site.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.bench_urls"
