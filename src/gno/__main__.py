"""`python -m gno` runs the CLI (through the same entry point as the `gno` script)."""

from gno.cli.entry import main

if __name__ == "__main__":
    main()
