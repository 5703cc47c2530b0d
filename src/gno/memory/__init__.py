"""The memory contract: remember one fact, recall current facts."""
