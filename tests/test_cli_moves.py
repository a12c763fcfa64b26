"""`abak-rl moves`: single positions, Position IDs, batches of mixed variants, and bad input."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abak_rl.engine import variants as variants_mod
from abak_rl.engine.variants import get_variant
from abak_rl.io.bench import batch_lines
from abak_rl.io.moves_cli import main
from abak_rl.io.position_json import row_from_json, rows_from_json

from start_positions import ABAK_START
from start_positions import STANDARD_START as START


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_single_position_lists_every_distinct_afterstate(capsys):
    code, lines, err = run(capsys, "--variant", "standard", "--position", json.dumps(START),
                           "--dice", "3", "1")
    assert code == 0 and err == ""
    plays = {d["play"]: d["position"] for d in lines}
    assert "8/5 6/5" in plays
    made = plays["8/5 6/5"]["board"]
    assert made[4] == 2 and made[5] == 4 and made[7] == 2      # the 5-point made
    _, rows = rows_from_json([d["position"] for d in lines], "standard")
    assert len({r.tobytes() for r in rows}) == len(rows)     # distinct
    engine = get_variant("standard").legal_afterstates(row_from_json(START)[1][None], np.array([[3, 1]]))
    assert len(rows) == len(engine)
    assert {r.tobytes() for r in rows} == {r.tobytes() for r in engine.boards}


def test_position_id_gives_the_same_answer(capsys):
    _, by_json, _ = run(capsys, "--position", json.dumps(START), "--dice", "6", "5")
    _, by_id, _ = run(capsys, "--position-id", "4HPwATDgc/ABMA", "--dice", "6", "5")
    assert by_id == by_json and {"position", "play"} == set(by_id[0])


def test_no_legal_play_answers_the_position_itself(capsys):
    closed = {"variant": "standard", "board": [14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, -2, -2, -2, -2, -2, -2],
              "bar": [1, 0], "off": [0, 3]}
    code, lines, _ = run(capsys, "--position", json.dumps(closed), "--dice", "6", "6")
    assert code == 0 and lines == [{"position": closed, "play": ""}]


def _positions(items) -> set[str]:
    return {json.dumps(d["position"]) for d in items}


def _write(tmp_path, lines) -> str:
    path = Path(tmp_path) / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_batch_of_mixed_variants_in_input_order(tmp_path, capsys, monkeypatch):
    names = ["standard", "nackgammon", "acey_deucey"]
    try:
        get_variant("abak")
        names.append("abak")
    except ImportError:
        pass
    per = {n: batch_lines(n, 40, seed=i) for i, n in enumerate(names)}
    k = len(names)
    mixed = [per[names[i % k]][i // k] for i in range(40 * k)]
    calls = []
    real = variants_mod.get_variant

    def counting(name, **kw):
        v = real(name, **kw)
        outer = v.legal_afterstates

        class Wrapped:
            def legal_afterstates(self, boards, dice, with_plays=False):
                calls.append((name, len(boards)))
                return outer(boards, dice, with_plays=with_plays)
        return Wrapped()

    monkeypatch.setattr(variants_mod, "get_variant", counting)
    code, answers, _ = run(capsys, "--batch", _write(tmp_path, mixed))
    assert code == 0 and len(answers) == 40 * k
    assert sorted(calls) == sorted((n, 40) for n in names)     # one batched call per variant
    monkeypatch.setattr(variants_mod, "get_variant", real)
    for line, answer in zip(mixed[::7], answers[::7]):      # each answer matches a single query
        q = json.loads(line)
        _, single, _ = run(capsys, "--position", json.dumps(q["position"]), "--dice", *map(str, q["dice"]))
        assert _positions(answer["afterstates"]) == _positions(single)
        assert len(answer["afterstates"]) == len(single)


def test_batch_reads_stdin(capsys, monkeypatch):
    lines = [json.dumps({"position": START, "dice": [3, 1]}), "",
             json.dumps({"position": START, "dice": [1, 3]})]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines)))
    code, answers, _ = run(capsys, "--batch", "-")
    assert code == 0 and len(answers) == 2
    assert _positions(answers[0]["afterstates"]) == _positions(answers[1]["afterstates"])
    assert len(answers[0]["afterstates"]) == 16 and "8/5 6/5" in str(answers[0])


def test_abak_through_the_command(capsys):
    try:
        get_variant("abak")
    except ImportError:
        pytest.skip("the Abak engine is not there yet")
    code, lines, err = run(capsys, "--position", json.dumps(ABAK_START), "--dice", "6", "5")
    assert code == 0, err
    _, rows = rows_from_json([d["position"] for d in lines], "abak")
    assert len(rows) == len(lines) > 1 and all(d["play"] for d in lines)
    assert {r.tobytes() for r in rows} == {
        r.tobytes() for r in get_variant("abak").legal_afterstates(
            row_from_json(ABAK_START)[1][None], np.array([[6, 5]])).boards}


BAD_POS = dict(START, board=START["board"][:23])


@pytest.mark.parametrize("argv, message", [
    (["--position", json.dumps(BAD_POS), "--dice", "3", "1"], "24 integers, got 23"),
    (["--position", json.dumps(dict(START, off=[1, 0])), "--dice", "3", "1"], "mover has 16 checkers"),
    (["--position", json.dumps(START), "--dice", "7", "1"], "dice must be two integers from 1 to 6"),
    (["--position", json.dumps(dict(START, variant="chess")), "--dice", "3", "1"], "unknown variant 'chess'"),
    (["--position", "{not json", "--dice", "3", "1"], "not valid JSON"),
    (["--position", json.dumps(START)], "--dice D1 D2 is required"),
    (["--position-id", "4HPwATDgc/ABM", "--dice", "3", "1"], "14 characters"),
    (["--variant", "abak", "--position", json.dumps(START), "--dice", "3", "1"], "--variant abak"),
    (["--dice", "3", "1"], "exactly one of --position"),
])
def test_bad_single_input_exits_nonzero_naming_the_problem(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == [] and message in err


@pytest.mark.parametrize("bad, message", [
    ('{"position": %s, "dice": [3, 1' % json.dumps(START), "line 2: malformed JSON"),
    (json.dumps({"position": dict(START, board=[0] * 24), "dice": [3, 1]}),
     "line 2: bad position: the mover has 0"),
    (json.dumps({"position": START, "dice": [7, 1]}), "line 2: dice must be two integers"),
    (json.dumps({"position": START, "dice": [3]}), "line 2: dice must be"),
    (json.dumps({"position": dict(START, variant="hyper"), "dice": [3, 1]}), "line 2: bad position: unknown"),
    (json.dumps({"position": START}), "line 2: expected an object"),
    (json.dumps({"position": START, "dice": [3, 1], "x": 1}), "line 2: unknown field 'x'"),
])
def test_bad_batch_line_is_reported_with_its_number(tmp_path, capsys, bad, message):
    good = json.dumps({"position": START, "dice": [3, 1]})
    code, out, err = run(capsys, "--batch", _write(tmp_path, [good, bad, good]))
    assert code == 2 and out == [] and message in err


def test_missing_batch_file(capsys, tmp_path):
    code, _, err = run(capsys, "--batch", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err


def test_installed_command_dispatches_here():
    exe = Path(sys.executable).with_name("abak-rl")
    if not exe.exists():
        pytest.skip("abak-rl is not installed in this environment")
    good = subprocess.run([str(exe), "moves", "--position-id", "4HPwATDgc/ABMA", "--dice", "2", "1"],
                          capture_output=True, text=True, timeout=60)
    assert good.returncode == 0 and len(good.stdout.splitlines()) > 5
    bad = subprocess.run([str(exe), "moves", "--position-id", "4HPwATDgc/ABMA", "--dice", "0", "1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "dice must be" in bad.stderr


def test_position_from_a_file_with_at(tmp_path, capsys):
    f = tmp_path / "pos.json"
    f.write_text(json.dumps(START))
    code, lines, _ = run(capsys, "--position", f"@{f}", "--dice", "3", "1")
    code2, lines2, _ = run(capsys, "--position", json.dumps(START), "--dice", "3", "1")
    assert code == code2 == 0 and lines == lines2 and lines
    code, _, err = run(capsys, "--position", f"@{tmp_path}/missing.json", "--dice", "3", "1")
    assert code == 2 and "cannot read" in err and "Traceback" not in err


def test_binary_batch_file_is_one_clear_line(tmp_path, capsys):
    f = tmp_path / "blob.bin"
    f.write_bytes(bytes(range(256)) * 4)
    code, lines, err = run(capsys, "--batch", str(f))
    assert code == 2 and lines == []
    assert err.count("\n") == 1 and "not UTF-8 text" in err and "Traceback" not in err


def test_keep_going_answers_good_lines_and_marks_bad_ones(tmp_path, capsys):
    good = json.dumps({"position": START, "dice": [3, 1]})
    bad_board = dict(START, board=[1] + START["board"][1:])            # 16 checkers for the mover
    text = "\n".join([good, "{not json", json.dumps({"position": bad_board, "dice": [3, 1]}),
                      json.dumps({"position": START, "dice": [7, 1]}), good]) + "\n"
    f = tmp_path / "mixed.jsonl"
    f.write_text(text)
    code, lines, err = run(capsys, "--batch", str(f), "--keep-going")
    assert code == 1 and err == "" and len(lines) == 5
    def plays(line):              # the afterstates (a play's name may differ between batches)
        return sorted(json.dumps(a["position"]) for a in line["afterstates"])
    assert plays(lines[0]) == plays(lines[4]) == plays({"afterstates": run_one(capsys)})
    assert lines[1]["error"].startswith("line 2: malformed JSON")
    assert lines[2]["error"].startswith("line 3: bad position") and "16 checkers" in lines[2]["error"]
    assert lines[3]["error"].startswith("line 4: dice must be")
    code, lines, err = run(capsys, "--batch", str(f))                 # without: all or nothing
    assert code == 2 and lines == [] and "line 2" in err


def run_one(capsys):
    code, lines, _ = run(capsys, "--position", json.dumps(START), "--dice", "3", "1")
    assert code == 0
    return lines
