"""`python -m graphit_cli` runs the graphit command line."""

from graphit_cli.cli import main

if __name__ == "__main__":
    main()
