"""Input and output: the position JSON format, GNU Backgammon Position IDs, text diagrams,
game records (JSON lines, Jellyfish .mat) and the `abak-rl moves` command. See docs/io.md."""
