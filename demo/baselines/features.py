"""Pixel features of a rectangle of an image (Django-free; numpy only)."""

from __future__ import annotations

import numpy as np

BINS = 4


def crop_features(pixels: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """Colour and edge statistics of `pixels[y0:y1, x0:x1]` (an HxWx3 uint8 array); box in pixels
    (x, y, width, height). The whole image's statistics are subtracted, so the features say how the
    rectangle differs from the street around it."""
    height, width = pixels.shape[:2]
    x, y, w, h = box
    x0, y0 = max(0, int(x)), max(0, int(y))
    x1, y1 = min(width, max(x0 + 1, round(x + w))), min(height, max(y0 + 1, round(y + h)))
    crop = pixels[y0:y1, x0:x1].astype(np.float32) / 255.0
    return np.concatenate([_stats(crop), [w * h / (width * height), w / max(h, 1.0)]])


def _stats(crop: np.ndarray) -> np.ndarray:
    flat = crop.reshape(-1, 3)
    mean, std = flat.mean(axis=0), flat.std(axis=0)
    gray = crop.mean(axis=2)
    gx = np.abs(np.diff(gray, axis=1)).mean() if gray.shape[1] > 1 else 0.0
    gy = np.abs(np.diff(gray, axis=0)).mean() if gray.shape[0] > 1 else 0.0
    saturation = (flat.max(axis=1) - flat.min(axis=1)).mean()
    hist = np.histogramdd(flat, bins=BINS, range=[(0, 1)] * 3)[0].ravel() / max(len(flat), 1)
    dark = (gray < 0.25).mean()
    bright = (gray > 0.8).mean()
    return np.concatenate([mean, std, [gx, gy, saturation, dark, bright], hist])


def image_features(pixels: np.ndarray) -> np.ndarray:
    return _stats(pixels.astype(np.float32) / 255.0)
