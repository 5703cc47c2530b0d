"""`python -m gno` runs the CLI."""

from gno.cli.main import main

if __name__ == "__main__":
    main()
