"""The CSV files of Open Images, as this package reads and writes them: their columns and flags."""

BOX_COLUMNS = (
    "ImageID",
    "Source",
    "LabelName",
    "Confidence",
    "XMin",
    "XMax",
    "YMin",
    "YMax",
    "IsOccluded",
    "IsTruncated",
    "IsGroupOf",
    "IsDepiction",
    "IsInside",
)
VRD_COLUMNS = (
    "ImageID",
    "LabelName1",
    "LabelName2",
    "XMin1",
    "XMax1",
    "YMin1",
    "YMax1",
    "XMin2",
    "XMax2",
    "YMin2",
    "YMax2",
    "RelationshipLabel",
)
SIZE_COLUMNS = ("ImageID", "Width", "Height")
# The box file's flags and the object flags (kernel.scene.OBJECT_FLAGS) they become, in export order.
FLAGS = {
    "IsOccluded": "occluded",
    "IsTruncated": "truncated",
    "IsGroupOf": "group",
    "IsDepiction": "depiction",
    "IsInside": "inside",
}
IS = "is"
WHAT = (
    "an Open Images import is a zip archive of its box CSV (ImageID,Source,LabelName,...), with its "
    "relationship CSV, its class and attribute descriptions, and image_sizes.csv if need be"
)
