"""Twelve 1 GB zips of zeros in one upload (issue 22, item 4): how long reading them takes a web worker.

Each zip holds 41 entries of 24 MiB of zeros (under IMAGE_MAX_BYTES, so each is unpacked to be looked
at), about 1 MB compressed. The uploads' entries are read as `annotations.services.images` reads them,
with the budget of one upload (`ZIP_MAX_BYTES`, 256 MiB) and, for comparison, with a budget as large as
everything (what one budget per archive amounted to before). No database: the checks of the files only.

    .venv/bin/python -m benchmarks.zip_inflation
"""

from __future__ import annotations

import io
import os
import time
import zipfile

from annotations.files import FileLimits, InflationBudget, Refused, check_image, zip_entries

ENTRY = 24 * 1024 * 1024
ENTRIES = 41  # 984 MiB per archive


def bomb() -> bytes:
    buffer = io.BytesIO()
    zeros = b"\0" * ENTRY
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for n in range(ENTRIES):
            archive.writestr(f"{n}.png", zeros)
    return buffer.getvalue()


def read_upload(archives: list[bytes], budget: int) -> tuple[float, int, int]:
    limits = FileLimits(image_bytes=25 * 1024 * 1024, pixels=40_000_000, zip_bytes=budget, files=10_000)
    inflation = InflationBudget(budget)
    started, unpacked, refused = time.perf_counter(), 0, 0
    for data in archives:
        for _, payload in zip_entries(io.BytesIO(data), limits, 10_000, inflation):
            if isinstance(payload, Refused):
                refused += 1
                continue
            unpacked += len(payload)
            try:
                check_image(payload, limits)
            except Refused:
                refused += 1
    return time.perf_counter() - started, unpacked, refused


def main() -> None:
    one = bomb()
    archives = [one] * 12
    print(
        f"upload: 12 archives, {12 * len(one) / 1e6:.1f} MB, {12 * ENTRIES * ENTRY / 2**30:.1f} GiB unpacked"
    )
    for name, budget in [("one budget per upload (256 MiB)", 256 * 2**20), ("no shared budget", 2**40)]:
        seconds, unpacked, refused = read_upload(archives, budget)
        print(
            f"{name}: {seconds:.1f} s, {unpacked / 2**20:,.0f} MiB unpacked, {refused} entries refused; "
            f"load average {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
    django.setup()
    main()
