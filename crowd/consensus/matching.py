"""Boxes matched across annotators: one cluster per object, at most one box per annotator in it.

Annotators are taken in the order of their names. Each one's boxes of a label are assigned to the clusters of
that label built so far by an optimal assignment (`scipy.optimize.linear_sum_assignment`) maximising
the summed IoU, where a box may join a cluster only when its IoU with the cluster's median box (where
the merge would put the object so far) is above the threshold; a box left over starts a cluster of its
own. With two annotators this is the optimal bipartite matching; with more, the same assignment
repeated against the clusters' medians, which are nearer the object than any one annotator's box
(decision 0088 says why not more).
"""

from __future__ import annotations

from collections.abc import Sequence

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
    a = np.array([[b.x, b.y, b.x + b.w, b.y + b.h] for b in rows], dtype=np.float64).reshape(-1, 1, 4)
    b = np.array([[c.x, c.y, c.x + c.w, c.y + c.h] for c in columns], dtype=np.float64).reshape(1, -1, 4)
    width = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    height = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = width * height
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    return np.asarray(inter / (area_a + area_b - inter))


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
    """box index -> cluster index, an assignment of the largest summed IoU (with the clusters' medians)
    among admissible pairs."""
    if not boxes or not clusters:
        return {}
    score = iou_matrix(boxes, [median_box(list(cluster.values())) for cluster in clusters])
    admissible = score > threshold
    rows, cols = linear_sum_assignment(np.where(admissible, score, 0.0), maximize=True)
    return {int(r): int(c) for r, c in zip(rows, cols, strict=True) if admissible[r, c]}
