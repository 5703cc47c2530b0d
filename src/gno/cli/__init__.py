"""The `gno` command line (click)."""
