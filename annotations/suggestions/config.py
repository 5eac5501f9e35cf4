"""The labeling configuration a Label Studio ML backend is given (/setup's `schema`, /predict's
`label_config`), written from the collection's vocabulary.

Label Studio's tags: one `Image` (the task's `data.image`), one `RectangleLabels` whose labels are the
object types, and per attribute group one `Choices` of that group's values, asked per region
(`perRegion`) and shown only for boxes of the group's type (`whenLabelValue`): an exclusive group is a
single choice, the others multiple. The names are what a result's `from_name` says; `choices_names`
maps them back to (type, group), which is how an answer is read.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from kernel.vocabulary import Vocabulary

IMAGE_NAME = "image"  # the Image tag's name, a result's `to_name`
IMAGE_VALUE = "$image"  # the task's `data.image`
LABELS_NAME = "label"  # the RectangleLabels tag's name, a box result's `from_name`


def choices_names(vocabulary: Vocabulary) -> dict[str, tuple[str, str]]:
    """The `Choices` tag's name of every attribute group -> (type, group). `type:group` unless that
    is taken (a type or group name with a colon in it), then with a number."""
    names: dict[str, tuple[str, str]] = {}
    for object_type in vocabulary.types:
        for group in object_type.groups:
            name, n = f"{object_type.name}:{group.name}", 2
            while name in names or name in (IMAGE_NAME, LABELS_NAME):
                name, n = f"{object_type.name}:{group.name}:{n}", n + 1
            names[name] = (object_type.name, group.name)
    return names


def labeling_config(vocabulary: Vocabulary) -> str:
    """The `<View>` document; every name and value is quoted and escaped as an XML attribute."""
    lines = [
        "<View>",
        f"  <Image name={quoteattr(IMAGE_NAME)} value={quoteattr(IMAGE_VALUE)}/>",
        f"  <RectangleLabels name={quoteattr(LABELS_NAME)} toName={quoteattr(IMAGE_NAME)}>",
        *(f"    <Label value={quoteattr(t.name)}/>" for t in vocabulary.types),
        "  </RectangleLabels>",
    ]
    groups = {(t.name, g.name): (t, g) for t in vocabulary.types for g in t.groups}
    for name, key in choices_names(vocabulary).items():
        object_type, group = groups[key]
        choice = "single" if group.exclusive else "multiple"
        lines.append(
            f'  <Choices name={quoteattr(name)} toName={quoteattr(IMAGE_NAME)} perRegion="true" '
            f'choice="{choice}" visibleWhen="region-selected" whenLabelValue={quoteattr(object_type.name)}>'
        )
        lines += [f"    <Choice value={quoteattr(value)}/>" for value in group.values]
        lines.append("  </Choices>")
    lines.append("</View>")
    return "\n".join(lines) + "\n"
