"""Convert a GNU Backgammon match equity table (XML) into the JSON the cube code reads.

The runtime never needs GNU Backgammon: the JSON is committed under abak_rl/data/. Rebuild it
with (Debian's gnubg package ships the tables):

    python scripts/build_met.py /usr/share/gnubg/met/Kazaross-XG2.xml abak_rl/data/met_kazaross_xg2.json

Only explicit tables are read (rows of <me> values); parametric ones (<parameters>, e.g. Zadeh's
formula) are refused. Output: {"name", "description", "source", "length", "pre_crawford",
"post_crawford"} with pre_crawford[i][j] the chance that the player (i+1)-away wins against one
(j+1)-away at the start of a game (i or j = 0: the Crawford game) and post_crawford[j] the
chance of the trailer (j+1)-away against the leader 1-away after the Crawford game. Where the
XML gives the post-Crawford table per player, the first is used when both are the same and the
file is refused otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def _rows(table, what: str) -> list[list[float]]:
    if table.find("parameters") is not None:
        raise ValueError(f"the {what} table is given by parameters, not values; only explicit tables are read")
    rows = []
    for row in table.findall("row"):
        try:
            rows.append([float(me.text) for me in row.findall("me")])
        except (TypeError, ValueError):
            raise ValueError(f"the {what} table has a value that is not a number") from None
    return rows


def convert(xml_text: str, source: str) -> dict:
    """The JSON object for one table (ValueError with one line naming the problem)."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as e:
        raise ValueError(f"not valid XML: {e}") from None
    if root.tag != "met":
        raise ValueError(f"not a match equity table (root element <{root.tag}>, expected <met>)")
    info = root.find("info")
    name = (info.findtext("name") or "").strip() if info is not None else ""
    description = (info.findtext("description") or "").strip() if info is not None else ""
    pre_t = root.find("pre-crawford-table")
    if pre_t is None:
        raise ValueError("no <pre-crawford-table>")
    pre = _rows(pre_t, "pre-Crawford")
    n = len(pre)
    if n == 0 or any(len(r) != n for r in pre):
        raise ValueError(f"the pre-Crawford table is not square ({n} rows of lengths "
                         f"{sorted({len(r) for r in pre})})")
    posts = [_rows(t, "post-Crawford") for t in root.findall("post-crawford-table")]
    if not posts:
        raise ValueError("no <post-crawford-table>")
    rows = [r for p in posts for r in p]
    if any(r != rows[0] for r in rows):
        raise ValueError("the post-Crawford tables of the two players differ; one table is supported")
    post = rows[0]
    if len(post) < n:
        raise ValueError(f"the post-Crawford table has {len(post)} values, the pre-Crawford table {n}")
    post = post[:n]
    values = [v for r in pre for v in r] + post
    if not all(0.0 <= v <= 1.0 for v in values):
        raise ValueError("a match equity outside [0, 1]")
    return {"name": name, "description": description, "source": source, "length": n,
            "pre_crawford": pre, "post_crawford": post}


def dumps(obj: dict) -> str:
    """JSON with one table row per line (readable diffs)."""
    head = {k: obj[k] for k in ("name", "description", "source", "length")}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append(' "pre_crawford": [')
    lines += [f"  {json.dumps(r)}," for r in obj["pre_crawford"]]
    lines[-1] = lines[-1].rstrip(",")
    lines.append(" ],")
    lines.append(f' "post_crawford": {json.dumps(obj["post_crawford"])}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("xml", type=Path, help="a GNU Backgammon match equity table (met/*.xml)")
    ap.add_argument("out", type=Path, help="the JSON file to write")
    ap.add_argument("--source", default=None,
                    help="the source named in the file (default: the XML's copyright line and file name)")
    a = ap.parse_args(argv)
    try:
        text = a.xml.read_text()
    except OSError as e:
        print(f"build_met: cannot read {a.xml}: {e.strerror}", file=sys.stderr)
        return 2
    source = a.source
    if source is None:
        credit = next((ln.strip() for ln in text.splitlines() if "Copyright" in ln), "")
        source = (f"{a.xml.name} as shipped with GNU Backgammon 1.07 (Debian package gnubg)"
                  + (f"; {credit}" if credit else ""))
    try:
        obj = convert(text, source)
    except ValueError as e:
        print(f"build_met: {a.xml}: {e}", file=sys.stderr)
        return 2
    a.out.write_text(dumps(obj))
    print(f"{a.out}: {obj['name']}, {obj['length']} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
