"""The command-line interface: one module per command, each a thin layer over the library."""
