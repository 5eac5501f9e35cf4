"""The crowd's work on a collection: several annotators per image, their agreement, the merge, hidden
gold and each annotator's quality (issue 48; docs/annotations.md, "Crowds"). The statistics are
`crowd.consensus`, free of Django; this app keeps the rows, the queue, the API and what the pages read."""
