"""The kernel: what every part of the platform means by a vocabulary, a scene, a question and its kind,
an answer and an estimate. Plain Python (numpy where arrays are worked on), no Django, at the bottom of
the house: the annotations app, the engine, truthing and the scoring core import it; it imports none
of them (docs/architecture.md, decision 0061)."""
