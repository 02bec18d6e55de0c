"""Error sites in source: where a message that a failure reports is written, in Rust and Python."""
