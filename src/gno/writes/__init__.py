"""The two document write paths of the writing contract: capture (create) and edit (update)."""
