"""Verification: the trainer's scenarios mirrored, their runs, and each entry's state from them."""
