"""Synthetic urban street scenes for the visual Turing test.

Scene graphs (``scenes``) follow the urban-street vocabulary and the JSON Lines record of docs/method.md section 9;
``render`` draws them with Pillow. Only the standard library, numpy and Pillow are used here (never Django)
so command-line tools and benchmarks can run without a configured site.
"""

from demo.synthetic.scenes import generate_scene, generate_scenes, street_layout

__all__ = ["generate_scene", "generate_scenes", "street_layout"]
