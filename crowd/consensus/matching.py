"""Boxes matched across annotators: one cluster per object, at most one box per annotator in it.

Annotators are taken in the order of their names. Each one's boxes of a label are assigned to the
clusters of that label built so far by an optimal assignment (`scipy.optimize.linear_sum_assignment`)
maximising the summed IoU, where a box may join a cluster only when it overlaps the median of the
cluster's boxes and itself (where the merge would put the object with it) by more than the threshold;
a box left over starts a cluster of its own. So each box of an object is held to the standard a box is
held to against the truth, an overlap with the object, rather than to an overlap with another noisy
box. With two annotators the assignment is optimal; with more, it is repeated annotator after
annotator (decision 0089 says why, and why not more). `match_to_reference` matches work to gold or
to the truth, by plain IoU with the reference's box.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from crowd.consensus.types import Box, Cluster, ConsensusError, Version


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (0 when they do not overlap)."""
    width = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    height = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return float(inter / (a.w * a.h + b.w * b.h - inter))


def iou_matrix(rows: Sequence[Box], columns: Sequence[Box]) -> np.ndarray:
    """IoU of every box of `rows` with every box of `columns`, as `iou` computes it, in one go."""
    a, b = _corners(rows), _corners(columns)
    pairs = np.repeat(a, len(b), axis=0), np.tile(b, (len(a), 1))
    return _pairwise_iou(*pairs).reshape(len(a), len(b))


def median_box(boxes: Sequence[Box]) -> Box:
    """The coordinate-wise median of boxes of one object: where the merge puts it, and what a further
    annotator's box is matched against."""
    if len(boxes) == 1:
        return boxes[0]
    x, y, w, h = (float(v) for v in np.median([[b.x, b.y, b.w, b.h] for b in boxes], axis=0))
    return Box(boxes[0].key, boxes[0].label, x, y, w, h)


def check_versions(versions: Sequence[Version]) -> None:
    names = [version.annotator for version in versions]
    if len(set(names)) != len(names):
        raise ConsensusError("Each annotator may give one version of an image.")


def check_threshold(iou_threshold: float) -> None:
    if not 0 <= iou_threshold < 1:
        raise ConsensusError("The IoU threshold must be at least 0 and below 1.")


def match_boxes(versions: Sequence[Version], *, iou_threshold: float = 0.5) -> list[Cluster]:
    """The clusters of matched boxes, in the order they were first seen, annotators taken by name (so
    that the clusters do not depend on the order the versions came in)."""
    check_versions(versions)
    check_threshold(iou_threshold)
    versions = sorted(versions, key=lambda version: version.annotator)
    clusters: list[dict[str, Box]] = []  # annotator -> box
    labels: list[str] = []
    for version in versions:
        for label in sorted({box.label for box in version.boxes}):
            boxes = [box for box in version.boxes if box.label == label]
            open_ = [i for i, lab in enumerate(labels) if lab == label]
            joined = _assign(boxes, [clusters[i] for i in open_], iou_threshold)
            for box_index, box in enumerate(boxes):
                target = joined.get(box_index)
                if target is None:
                    clusters.append({version.annotator: box})
                    labels.append(label)
                else:
                    clusters[open_[target]][version.annotator] = box
    return [
        Cluster(label=label, members={name: box.key for name, box in members.items()})
        for label, members in zip(labels, clusters, strict=True)
    ]


def _assign(boxes: Sequence[Box], clusters: Sequence[dict[str, Box]], threshold: float) -> dict[int, int]:
    """box index -> cluster index, an assignment of the largest summed IoU among admissible pairs: a box
    may join a cluster when it overlaps the median of the cluster with it by more than the threshold."""
    if not boxes or not clusters:
        return {}
    drawn = _corners(boxes)
    score = np.empty((len(boxes), len(clusters)))
    for j, cluster in enumerate(clusters):
        members = np.broadcast_to(_xywh(cluster.values()), (len(boxes), len(cluster), 4))
        together = np.median(np.concatenate([members, _xywh(boxes)[:, None, :]], axis=1), axis=1)
        score[:, j] = _pairwise_iou(drawn, _corners_of(together))
    admissible = score > threshold
    rows, cols = linear_sum_assignment(np.where(admissible, score, 0.0), maximize=True)
    return {int(r): int(c) for r, c in zip(rows, cols, strict=True) if admissible[r, c]}


def match_to_reference(
    reference: Version, work: Version, *, iou_threshold: float = 0.5
) -> list[tuple[str, str]]:
    """(reference key, work key) for each box of `work` matched to one of `reference` (gold, or the truth):
    same label, IoU between the two boxes above the threshold, an optimal assignment. Here the reference
    is right by definition, so a box is judged by its overlap with the reference's box, not with a median."""
    check_threshold(iou_threshold)
    pairs = []
    for label in sorted({box.label for box in reference.boxes} & {box.label for box in work.boxes}):
        theirs = [box for box in reference.boxes if box.label == label]
        mine = [box for box in work.boxes if box.label == label]
        score = iou_matrix(theirs, mine)
        admissible = score > iou_threshold
        rows, cols = linear_sum_assignment(np.where(admissible, score, 0.0), maximize=True)
        pairs += [(theirs[r].key, mine[c].key) for r, c in zip(rows, cols, strict=True) if admissible[r, c]]
    return pairs


def _xywh(boxes: Iterable[Box]) -> np.ndarray:
    return np.array([[b.x, b.y, b.w, b.h] for b in boxes], dtype=np.float64).reshape(-1, 4)


def _corners(boxes: Iterable[Box]) -> np.ndarray:
    return _corners_of(_xywh(boxes))


def _corners_of(xywh: np.ndarray) -> np.ndarray:
    return np.concatenate([xywh[:, :2], xywh[:, :2] + xywh[:, 2:]], axis=1)


def _pairwise_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of a[i] with b[i], boxes as corners (x0, y0, x1, y1)."""
    width = np.clip(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    height = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = width * height
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return np.asarray(inter / (area_a + area_b - inter))
