"""Scripts that fit the shipped directive classifier and word list."""
