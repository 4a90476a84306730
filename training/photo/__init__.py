"""The photo reader: cards read from photographs where nothing is known of the geometry (whole-card detector,
corner finder, index reader, identifier), and its evaluation on the labelled photos (``stud-table eval-vision``).
The table never runs it: the table reader (``vision.table_reader``) knows each card's place on the felt."""
