"""Boxes matched across annotators: one cluster per object, at most one box per annotator in it.

Annotators are taken in the order given. Each one's boxes of a label are assigned to the clusters of
that label built so far by an optimal assignment (`scipy.optimize.linear_sum_assignment`) maximising
the summed IoU, where a box may join a cluster only when its mean IoU with the cluster's boxes is above
the threshold; a box left over starts a cluster of its own. With two annotators this is the optimal
bipartite matching; with more, the same assignment repeated (decision 0088 says why not more).
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


def check_versions(versions: Sequence[Version]) -> None:
    names = [version.annotator for version in versions]
    if len(set(names)) != len(names):
        raise ConsensusError("Each annotator may give one version of an image.")


def check_threshold(iou_threshold: float) -> None:
    if not 0 <= iou_threshold < 1:
        raise ConsensusError("The IoU threshold must be at least 0 and below 1.")


def match_boxes(versions: Sequence[Version], *, iou_threshold: float = 0.5) -> list[Cluster]:
    """The clusters of matched boxes, in the order they were first seen."""
    check_versions(versions)
    check_threshold(iou_threshold)
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
    """box index -> cluster index, an assignment of the largest summed mean IoU among admissible pairs."""
    if not boxes or not clusters:
        return {}
    score = np.array(
        [
            [float(np.mean([iou(box, other) for other in cluster.values()])) for cluster in clusters]
            for box in boxes
        ]
    )
    admissible = score > threshold
    rows, cols = linear_sum_assignment(np.where(admissible, score, 0.0), maximize=True)
    return {int(r): int(c) for r, c in zip(rows, cols, strict=True) if admissible[r, c]}
