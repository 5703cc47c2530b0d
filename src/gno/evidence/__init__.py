"""Evidence rungs: Context Capsules, Knowledge Delta (changes/diff/impact) and verified ask."""
