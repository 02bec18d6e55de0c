"""A pasted log read as a story: its events in order, their locations, whose code each is."""
