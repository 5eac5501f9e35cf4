"""The crowd API: settings, the crowd queue and an annotator's work, merges and review, gold, quality."""
