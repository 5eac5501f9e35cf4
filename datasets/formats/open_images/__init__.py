"""Open Images V6/V7: a zip of its CSV files, read streaming, through the mapping file.

As Open Images publishes them, each file known by its header row:
- boxes (`*-annotations-bbox.csv`): `ImageID,Source,LabelName,Confidence,XMin,XMax,YMin,YMax,
  IsOccluded,IsTruncated,IsGroupOf,IsDepiction,IsInside[,XClick1X,...]`, coordinates normalised to 0..1;
- relationships (`*-annotations-vrd.csv`): `ImageID,LabelName1,LabelName2,XMin1,XMax1,YMin1,YMax1,
  XMin2,XMax2,YMin2,YMax2,RelationshipLabel`; the relationship `is` gives the first box an attribute
  (`LabelName2` is then an attribute's label);
- label names (`*-class-descriptions*.csv`, `*-attributes-description.csv`): `LabelName,DisplayName`
  rows, with or without a header.
Open Images gives no image sizes, and the boxes need them in pixels: they come from the collection (the
images uploaded first, as `<ImageID>.jpg`) or from an `image_sizes.csv` of `ImageID,Width,Height` rows,
a file of this platform's that the export writes too.

The box and relationship files are sorted by ImageID (as published); they are read side by side, an
image at a time, in constant memory, and a file out of that order is refused at its line. Objects are
known by their label and box: a relationship's box is the box of the same label and coordinates in the
box file; a relationship whose box is not there is dropped (or, if the importer asks, its box becomes
an object marked `added`). An object's names are its label's display name, then the label itself (a
mapping may name either); `IsOccluded`, `IsTruncated`, `IsGroupOf`, `IsDepiction` and `IsInside` are
kept as the object's flags; a group box or a depiction is kept but never an object of a test. A row that
cannot be read is refused with its line, and the rest of its image is read.

The export writes each object under its own label and display name (our type's name for an object
that did not come from Open Images), its flags, its image's ImageID, coordinates to the source's
precision, and both description files.

The CSVs' columns: `columns.py`; the reader: `reading.py`; the writer: `writing.py`.
"""

from datasets.formats.open_images.reading import read_open
from datasets.formats.open_images.writing import write
from datasets.formats.open_vocabulary import open_vocabulary_format
from datasets.formats.registry import register

register(
    open_vocabulary_format(
        read_open=read_open,
        value="openimages",
        name="Open Images",
        label="Open Images V6/V7 (zip of its CSV files)",
        description="Open Images V6/V7: a zip of the box CSV, the relationship CSV, the class and attribute "
        "descriptions, and image_sizes.csv unless the images are uploaded; names are mapped by the mapping "
        "file.",
        content_type="application/zip",
        extension="openimages.zip",
        write=write,
    )
)
