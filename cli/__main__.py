"""`python -m cli` runs the `fabric-advisor` command."""

from cli.main import main

main()
