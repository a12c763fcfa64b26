"""The starting positions in the position-JSON format (docs/io.md), shared by
the tests of the format and of the `moves` command."""

STANDARD_START = {"variant": "standard",
                  "board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0,
                            0, 2],
                  "bar": [0, 0], "off": [0, 0]}
ABAK_START = {"variant": "abak",
              "board": ["ed", "os", "", "", "", "SSSG", "", "SKS", "", "", "", "ssks",
                        "SSKS", "", "", "", "sks", "", "sssg", "", "", "", "OS", "ED"],
              "bar": "", "off": [0, 0]}
