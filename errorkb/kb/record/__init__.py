"""What a record of the dataset schema is: its fields, their limits and spellings, validation."""
