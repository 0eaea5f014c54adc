"""Reply parsers: one find_blocks per format, and parse_reply that runs them all."""
