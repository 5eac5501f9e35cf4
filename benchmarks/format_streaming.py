"""How fast, and in how much memory, the Visual Genome, GQA and Open Images readers read a large file.

    .venv/bin/python -m benchmarks.format_streaming [--objects 1000000] [--write]

For each format a file of `--objects` objects is generated (about 35 objects, 20 attributes and 20
relationships an image, as in Visual Genome; names partly in the mapping and partly not), written
streaming to a scratch folder. Then a fresh process reads it as an import's validation does: the
format's reader, the mapping (tests/fixtures/formats/mapping.yaml, and its Open Images counterpart) and
the engine core's `parse_scene` on every record, keeping nothing. It reports objects per second and the
process's peak resident memory, and does the same on a file a tenth the size: a reader in constant
memory peaks at about the same on both. `--write` puts the result in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
PER_IMAGE = 35
PERSONS = ["man", "woman", "person", "boy", "girl", "guy", "pedestrian"]
VEHICLES = ["car", "truck", "bus", "motorcycle", "bike", "taxi"]
OTHERS = ["tree", "building", "sky", "window", "shirt", "sign", "pole", "street", "wheel", "leg"]
ATTRIBUTES = ["standing", "walking", "white", "black", "parked", "green", "tall", "red", "wooden", "running"]
PREDICATES = ["riding", "in front of", "behind", "on", "has", "wearing", "next to", "near"]


def _objects(generator: random.Random, count: int, width: int, height: int):
    for number in range(count):
        name = generator.choice(generator.choice([PERSONS, VEHICLES, OTHERS, OTHERS]))
        w, h = generator.randint(8, width // 3), generator.randint(8, height // 3)
        x, y = generator.randint(0, width - w), generator.randint(0, height - h)
        attributes = generator.sample(ATTRIBUTES, generator.choice([0, 0, 1, 1, 2]))
        yield number, name, (x, y, w, h), attributes


def _images(total: int, seed: int):
    generator = random.Random(seed)
    made = 0
    image = 0
    while made < total:
        image += 1
        count = min(total - made, generator.randint(PER_IMAGE // 2, PER_IMAGE * 3 // 2))
        width, height = generator.choice([(800, 600), (1024, 768), (640, 480)])
        objects = list(_objects(generator, count, width, height))
        links = [
            (generator.randrange(count), generator.choice(PREDICATES), generator.randrange(count))
            for _ in range(count * 3 // 5)
        ]
        made += count
        yield image, width, height, objects, links


def write_vg(path: Path, total: int, seed: int) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("scene_graphs.json", "w", force_zip64=True) as scene_graphs:
            scene_graphs.write(b"[")
            sizes = []
            for image, width, height, objects, links in _images(total, seed):
                entry = {
                    "image_id": image,
                    "objects": [
                        {
                            "object_id": image * 1000 + n,
                            "x": b[0],
                            "y": b[1],
                            "w": b[2],
                            "h": b[3],
                            "names": [name],
                            "synsets": [f"{name}.n.01"],
                            "attributes": attributes,
                        }
                        for n, name, b, attributes in objects
                    ],
                    "relationships": [
                        {
                            "relationship_id": i,
                            "predicate": p,
                            "synsets": [],
                            "subject_id": image * 1000 + s,
                            "object_id": image * 1000 + o,
                        }
                        for i, (s, p, o) in enumerate(links)
                    ],
                }
                scene_graphs.write((b"," if image > 1 else b"") + json.dumps(entry).encode())
                sizes.append(
                    {"image_id": image, "url": f"https://x/{image}.jpg", "width": width, "height": height}
                )
            scene_graphs.write(b"]")
        archive.writestr("image_data.json", json.dumps(sizes))


def write_gqa(path: Path, total: int, seed: int) -> None:
    with path.open("wb") as handle:
        handle.write(b"{")
        for image, width, height, objects, links in _images(total, seed):
            relations: dict[int, list] = {}
            for s, p, o in links:
                relations.setdefault(s, []).append({"name": p, "object": str(o)})
            entry = {
                "width": width,
                "height": height,
                "objects": {
                    str(n): {
                        "name": name,
                        "x": b[0],
                        "y": b[1],
                        "w": b[2],
                        "h": b[3],
                        "attributes": attributes,
                        "relations": relations.get(n, []),
                    }
                    for n, name, b, attributes in objects
                },
            }
            handle.write((b"," if image > 1 else b"") + f'"{image}":'.encode() + json.dumps(entry).encode())
        handle.write(b"}")


def write_open_images(path: Path, total: int, seed: int) -> None:
    from datasets.formats.open_images.columns import BOX_COLUMNS, VRD_COLUMNS

    labels = {name: f"/m/b{index:04d}" for index, name in enumerate(PERSONS + VEHICLES + OTHERS + ATTRIBUTES)}
    display = {
        "man": "Man",
        "woman": "Woman",
        "person": "Person",
        "girl": "Girl",
        "boy": "Boy",
        "car": "Car",
        "bus": "Bus",
        "truck": "Truck",
        "motorcycle": "Motorcycle",
        "bike": "Fahrrad",
    }
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive,
        tempfile.TemporaryFile("w+", newline="") as links_file,
    ):
        sizes = io.StringIO()
        with io.TextIOWrapper(archive.open("boxes.csv", "w", force_zip64=True), newline="") as boxes:
            box_rows, link_rows, size_rows = csv.writer(boxes), csv.writer(links_file), csv.writer(sizes)
            box_rows.writerow(BOX_COLUMNS)
            size_rows.writerow(["ImageID", "Width", "Height"])
            for image, width, height, objects, links in _images(total, seed):
                key = f"{image:08x}"
                size_rows.writerow([key, width, height])
                units = {}
                for n, name, (x, y, w, h), _ in objects:
                    units[n] = (labels[name], x / width, (x + w) / width, y / height, (y + h) / height)
                    box_rows.writerow([key, "xclick", units[n][0], 1, *units[n][1:], 0, 0, 0, 0, 0])
                for s, p, o in links:
                    link_rows.writerow([key, units[s][0], units[o][0], *units[s][1:], *units[o][1:], p])
        links_file.seek(0)
        with archive.open("relationships.csv", "w", force_zip64=True) as relationships:
            relationships.write((",".join(VRD_COLUMNS) + "\n").encode())
            for line in links_file:
                relationships.write(line.encode())
        archive.writestr("image_sizes.csv", sizes.getvalue())
        archive.writestr(
            "class-descriptions.csv",
            "".join(f"{mid},{display.get(name, name)}\n" for name, mid in labels.items()),
        )


WRITERS = {
    "vg": (write_vg, "vg.zip"),
    "gqa": (write_gqa, "gqa.json"),
    "openimages": (write_open_images, "oi.zip"),
}
MAPPINGS = {"vg": "mapping.yaml", "gqa": "mapping.yaml", "openimages": "openimages-mapping.yaml"}


def measure(fmt: str, path: Path) -> dict:
    """In this process (a fresh one): read the file as an import's validation does, keeping nothing."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
    import django

    django.setup()
    from datasets.formats import ReadContext, Record, scene_format
    from datasets.formats.mapping import load_mapping
    from kernel.scene import parse_scene
    from kernel.vocabulary import parse_vocabulary

    vocabulary = parse_vocabulary(
        json.loads((ROOT / "annotations" / "vocabularies" / "urban-street.json").read_text())
    )
    mapping = load_mapping((FIXTURES / MAPPINGS[fmt]).read_bytes(), vocabulary)
    context = ReadContext(vocabulary=vocabulary, mapping=mapping, complete=False)
    started = time.perf_counter()
    source_objects = records = kept = errors = 0
    with path.open("rb") as handle:
        reading = scene_format(fmt).read(handle, context)
        for item in reading.items:
            if not isinstance(item, Record):
                errors += 1
                continue
            scene = parse_scene(item.data, vocabulary, where=item.place)
            records += 1
            kept += len(scene.objects)
    seconds = time.perf_counter() - started
    for section in context.report.as_list():
        if section["section"].startswith(("mapped: objects", "dropped: object names", "merged: objects")):
            source_objects += section["total"]
    return {
        "records": records,
        "errors": errors,
        "objects": source_objects,
        "kept": kept,
        "seconds": seconds,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run(fmt: str, objects: int, folder: Path, seed: int) -> dict:
    write, name = WRITERS[fmt]
    path = folder / f"{objects}-{name}"
    started = time.perf_counter()
    write(path, objects, seed)
    generated = time.perf_counter() - started
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.format_streaming", "--measure", fmt, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures.update(megabytes=path.stat().st_size / 1e6, generated=generated)
    path.unlink()
    return figures


def render(results: dict, objects: int) -> str:
    from benchmarks.report import commit, machine

    lines = [
        "## Reading Visual Genome, GQA and Open Images files (streaming)",
        "",
        f"Command: `.venv/bin/python -m benchmarks.format_streaming --objects {objects:,}`".replace(",", "")
        + f" (commit {commit()}, {machine()}).",
        "",
        "Each generated file is read in a fresh process as an import's validation reads it: the format's "
        "reader, the mapping file, and the engine core's check of every record (the database is not "
        "involved). Objects are the source's; kept, those the mapping keeps. Peak memory is the process's "
        "resident peak, Django and numpy included; the same reading of a file a tenth the size shows that it "
        "does not grow with the file.",
        "",
        "| format | file | objects | kept | images | objects/s | peak memory | a tenth the size: peak |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for fmt, (large, small) in results.items():
        lines.append(
            f"| {fmt} | {large['megabytes']:.0f} MB | {large['objects']:,} | {large['kept']:,} | "
            f"{large['records']:,} | {large['objects'] / large['seconds']:,.0f} | {large['peak_mb']:.0f} MB | "
            f"{small['peak_mb']:.0f} MB ({small['objects']:,} objects) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--formats", nargs="*", default=list(WRITERS))
    parser.add_argument("--measure", nargs=2, metavar=("FORMAT", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]))))
        return
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for fmt in args.formats:
            results[fmt] = (
                run(fmt, args.objects, Path(folder), args.seed),
                run(fmt, args.objects // 10, Path(folder), args.seed),
            )
            print(fmt, results[fmt], file=sys.stderr)
    report = render(results, args.objects)
    print(report)
    if args.write:
        from benchmarks.report import write_section

        write_section("format-streaming", report)


if __name__ == "__main__":
    main()
