"""The crowd's work: several annotators per image, their agreement, a merged annotation, hidden gold and
each annotator's quality (issue 48). Its statistics are `crowd.consensus`, free of Django."""
