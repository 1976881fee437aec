"""The Python package against `moulin probe --json` and `moulin moves` on
tables solved up to five stones a side: random positions, the Position
type, errors, damaged tables, threads, the README's example and the stubs,
a play set (`moulin pack`) answering as the tables;
the WDL tables (`Tablebase(path, wdl=True)`, `probe_wdl`) against the
CLI's outcomes from the distance tables."""

import ast
import json
import pathlib
import random
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import moulin

POINTS = ("a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7").split()
HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]


def random_positions(seed, n, stones):
    """`n` random moving-phase positions; `stones(rng)` gives (white, black)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        w, b = stones(rng)
        chosen = rng.sample(range(24), w + b)
        white = sorted(chosen[:w])
        black = sorted(chosen[w:])
        side = rng.choice("wb")
        out.append(
            "W:" + ",".join(POINTS[i] for i in white)
            + " B:" + ",".join(POINTS[i] for i in black) + " " + side
        )
    return out


def cli_json(moulin_bin, tables, positions):
    """`moulin probe --json -` over the positions: one dict each."""
    result = subprocess.run(
        [moulin_bin, "probe", "--json", "--no-chances", "-", "--dir", tables],
        input="\n".join(positions) + "\n",
        capture_output=True,
        text=True,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == len(positions), result.stderr
    return lines


def assert_same(tb, position, cli):
    """The package says about `position` what the CLI said (`cli`)."""
    if "error" in cli:
        # The CLI asks for the value and the moves: one of them fails.
        raised = []
        for call in (tb.probe, tb.best_moves, tb.moves):
            try:
                call(position)
            except moulin.TableError as e:
                if not raised:  # the CLI stops at the first failure too
                    assert cli["error"].startswith(str(e)), (str(e), cli)
                raised.append(type(e))
        assert raised, f"no error where the CLI said {cli}"
        assert len(set(raised)) == 1
        return raised[0]
    probe = tb.probe(position)
    assert (probe.outcome, probe.distance) == (cli["outcome"], cli["distance"])
    assert tb.best_moves(position) == cli["best_moves"]
    assert tb.moves(position) == [(m["move"], m["outcome"], m["distance"]) for m in cli["moves"]]
    return None


def test_probes_agree_with_the_cli_on_random_positions(moulin_bin, tables):
    # 3 to 5 stones a side; about one in 20 has a sixth stone (no table).
    positions = random_positions(
        14, 400, lambda r: (3 + r.randrange(3) + (r.randrange(20) == 0), 3 + r.randrange(3))
    )
    positions += ["W: B: w 9 9", "W:a1,d1 B:d2,g4,a7 w", "W:a1,d1,g1,a4 B:d2,b4,c4,g4,a7,d7 w"]
    tb = moulin.Tablebase(tables)
    errors = [assert_same(tb, p, c) for p, c in zip(positions, cli_json(moulin_bin, tables, positions))]
    missing = [e for e in errors if e is not None]
    assert missing and all(e is moulin.MissingTableError for e in missing)
    assert len(errors) - len(missing) >= 380
    # The same through Position objects.
    for p, c in zip(positions[:50], cli_json(moulin_bin, tables, positions[:50])):
        assert_same(tb, moulin.Position(p), c)


def test_a_play_set_answers_as_the_tables(moulin_bin, tables, tmp_path):
    # `moulin pack`: outcome tables and the distances of lost positions; the
    # package opens it like any table directory and answers alike.
    play = tmp_path / "play"
    subprocess.run([moulin_bin, "pack", "-q", "--dir", tables, "--out", play], check=True)
    assert not list(play.glob("*.mtb"))
    positions = random_positions(
        15, 300, lambda r: (3 + r.randrange(3), 3 + r.randrange(3))
    )
    tb = moulin.Tablebase(play)
    for p, c in zip(positions, cli_json(moulin_bin, tables, positions)):
        assert assert_same(tb, p, c) is None, p


def test_probe_repr_and_values(tables):
    tb = moulin.Tablebase(tables)
    probe = tb.probe("W:a1,d1,g1 B:b2,d2,f2 w")
    assert repr(probe) == "Probe(outcome='win', distance=3)"
    assert probe == tb.probe(moulin.Position("W:a1,d1,g1 B:b2,d2,f2 w"))
    assert tb.probe("W:a1,d1 B:d2,g4,a7 w") == tb.probe("W:a1,d1 B:a7,d2,g4 w")
    lost = tb.probe("W:a1,d1 B:a7,d2,g4 w")
    assert (lost.outcome, lost.distance) == ("loss", 0)
    assert tb.moves("W:a1,d1 B:a7,d2,g4 w") == [] and tb.best_moves("W:a1,d1 B:a7,d2,g4 w") == []
    assert tb.flying and tb.path == pathlib.Path(tables)
    assert sorted(tb.sectors()) == sorted(f"{a}v{b}" for a in range(3, 6) for b in range(3, 6))
    assert repr(tb).startswith("Tablebase(")


def test_every_move_leads_where_its_outcome_says(tables):
    """`moves` (the tables' successors) against `play` and `probe`."""
    tb = moulin.Tablebase(tables)
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    for text in random_positions(7, 15, lambda r: (3 + r.randrange(3), 3 + r.randrange(3))):
        position = moulin.Position(text)
        moves = tb.moves(position)
        assert sorted(m for m, _, _ in moves) == sorted(position.legal_moves())
        for move, outcome, distance in moves:
            after = tb.probe(position.play(move))
            assert outcome == flip[after.outcome]
            assert distance == (None if after.distance is None else after.distance + 1)


def cli_moves(moulin_bin, text, *options):
    result = subprocess.run(
        [moulin_bin, "moves", *options, text], capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    return [] if lines and lines[0].startswith("loss:") else lines


def test_position_agrees_with_moulin_moves(moulin_bin):
    texts = [
        "W: B: w 9 9",
        "W:a1,g1 B:d1,b2 w 7 7",
        "W:a1,d1 B:b2,c3 w 7 7",
        "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w",
        "W:a1,d1,g7 B:b2,d2,f2,d6 w",
        "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
    ] + random_positions(3, 20, lambda r: (3 + r.randrange(7), 3 + r.randrange(7)))
    for text in texts:
        position = moulin.Position(text)
        assert position.legal_moves() == cli_moves(moulin_bin, text), text
        assert position.legal_moves(flying=False) == cli_moves(moulin_bin, text, "--no-flying")
        assert position.is_lost() == (position.legal_moves() == [])


def test_position_attributes():
    p = moulin.Position("W:d1,a1 B:b2 b 7 8")
    assert str(p) == "W:a1,d1 B:b2 b 7 8"
    assert repr(p) == "Position('W:a1,d1 B:b2 b 7 8')"
    assert (p.side_to_move, p.white_hand, p.black_hand) == ("b", 7, 8)
    assert (p.white, p.black) == (["a1", "d1"], ["b2"])
    assert p == moulin.Position(str(p)) and len({p, moulin.Position(str(p))}) == 1
    start = moulin.Position.start()
    assert str(start) == "W: B: w 9 9" and start.side_to_move == "w"
    after = start.play("d2")
    assert str(after) == "W:d2 B: b 8 9"
    assert str(after.play("d1")) == "W:d2 B:d1 w 8 8"
    assert str(moulin.Position("W:a1,d1 B:b2,c3 w 7 7").play("g1xc3")) == "W:a1,d1,g1 B:b2 b 6 7"


def cli_error(moulin_bin, text):
    """What `moulin probe` says of an invalid position, without `moulin: `."""
    result = subprocess.run([moulin_bin, "probe", text], capture_output=True, text=True)
    assert result.returncode == 2, result
    return result.stderr.strip().removeprefix("moulin: ")


BAD_POSITIONS = [
    "",
    "hello",
    "W:a1,z9 B: w 9 9",
    "W:a1,a1 B:b2,d2,f2 w",
    "W: B: b 9 9",
    "W:a1 B:d1 x",
    "W:a1,d1 B:b2,d2,f2 b",
    "W:a1 B:d1 w 10 10",
    "W:d1,g1 B:a1 b 1 2",
    "W:a1,d1,g1,b2,d2,f2,c3,d3,e3,a4 B:b6,d6,f6 b",
    "W:\u00e91 B: w",
]


def test_bad_positions_raise_value_error_with_the_cli_message(moulin_bin, tables):
    tb = moulin.Tablebase(tables)
    for text in BAD_POSITIONS:
        message = cli_error(moulin_bin, text) if text else None
        for call in (moulin.Position, tb.probe, tb.best_moves, tb.moves):
            with pytest.raises(ValueError) as raised:
                call(text)
            if message is not None:
                assert str(raised.value) == message
    assert "malformed position" in str(pytest.raises(ValueError, moulin.Position, "").value)
    # Not valid Unicode (a lone surrogate cannot be UTF-8): UnicodeEncodeError, a ValueError.
    for call in (moulin.Position, tb.probe, tb.best_moves, tb.moves):
        with pytest.raises(UnicodeEncodeError):
            call("W:a1,d1,g1 B:b2,d2,\ud800 w")


def test_bad_moves_and_arguments():
    p = moulin.Position("W:a1,d1,g1 B:b2,d2,f2 w")
    with pytest.raises(ValueError, match="unknown point `z9` in move"):
        p.play("z9")
    with pytest.raises(ValueError, match="malformed move"):
        p.play("a1-")
    with pytest.raises(ValueError, match="illegal move a1-d1 in this position"):
        p.play("a1-d1")
    with pytest.raises(TypeError, match="str or a moulin.Position"):
        moulin.Tablebase(".").probe(42)
    with pytest.raises(TypeError):
        moulin.Position(None)
    with pytest.raises(TypeError):
        moulin.Tablebase(None)


def test_missing_tables_and_directories(moulin_bin, tables, tmp_path):
    with pytest.raises(moulin.TableError) as raised:
        moulin.Tablebase(tmp_path / "nowhere")
    assert isinstance(raised.value, OSError)
    assert "cannot open the tables in" in str(raised.value) and "nowhere" in str(raised.value)
    tb = moulin.Tablebase(tables)
    for text in ["W:a1,d1,g1,b2,d2,f2 B:a7,d7,g7,b6,d6,f6 w", "W: B: w 9 9"]:
        cli = cli_json(moulin_bin, tables, [text])[0]
        with pytest.raises(moulin.MissingTableError) as raised:
            tb.probe(text)
        assert cli["error"].startswith(str(raised.value))
        for call in (tb.best_moves, tb.moves):  # the tables of the successors
            with pytest.raises(moulin.MissingTableError, match="no table for sector"):
                call(text)
    assert str(pytest.raises(moulin.MissingTableError, tb.probe, "W: B: w 9 9").value) == (
        "no table for sector 0v0h9v9"
    )


def damaged_copy(tables, tmp_path, damage):
    directory = tmp_path / "damaged"
    shutil.copytree(tables, directory)
    table = directory / "5v4.mtb"
    data = bytearray(table.read_bytes())
    table.write_bytes(damage(data))
    return directory


def flip_data(data):
    for k in range(1, 16):
        data[4096 + k * (len(data) - 4096) // 16] ^= 0x5A
    return bytes(data)


@pytest.mark.parametrize(
    "damage",
    [lambda d: bytes(d[: len(d) // 2]), lambda d: b"", lambda d: bytes(d[:60]) + bytes([d[60] ^ 0x5A]) + bytes(d[61:])],
    ids=["truncated", "emptied", "header byte flipped"],
)
def test_damaged_headers_fail_at_opening(moulin_bin, tables, tmp_path, damage):
    directory = damaged_copy(tables, tmp_path, damage)
    with pytest.raises(moulin.DamagedTableError, match="5v4.mtb"):
        moulin.Tablebase(directory)
    result = subprocess.run([moulin_bin, "probe", "W:a1,d1,g1 B:b2,d2,f2 w", "--dir", directory], capture_output=True)
    assert result.returncode == 1


def test_damaged_blocks_fail_where_the_cli_fails(moulin_bin, tables, tmp_path):
    directory = damaged_copy(tables, tmp_path, flip_data)
    tb = moulin.Tablebase(directory)
    positions = random_positions(54, 200, lambda r: [(5, 4), (4, 5), (4, 4)][r.randrange(3)])
    errors = [assert_same(tb, p, c) for p, c in zip(positions, cli_json(moulin_bin, directory, positions))]
    met = [e for e in errors if e is not None]
    assert met, "the damage was never met"
    assert all(e is moulin.DamagedTableError for e in met)


def test_threads_share_one_tablebase(tables):
    tb = moulin.Tablebase(tables)
    positions = random_positions(99, 300, lambda r: (3 + r.randrange(3), 3 + r.randrange(3)))

    def ask(text):
        return tb.probe(text), tb.best_moves(text), tb.moves(text)

    alone = [ask(p) for p in positions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(ask, positions)) == alone


def readme_block(language):
    readme = (REPO / "README.md").read_text()
    start = readme.index(f"```{language}\n") + len(language) + 4
    return readme[start : readme.index("```", start)]


def test_readme_example_runs(moulin_bin, tables, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tables").symlink_to(tables)
    script = tmp_path / "example.py"
    script.write_text(readme_block("python"))
    result = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    cli = cli_json(moulin_bin, tables, ["W:a1,d1,g1 B:b2,d2,f2 w"])[0]
    expected = [f"{cli['outcome']} {cli['distance']}", " ".join(cli["best_moves"])]
    expected += [f"{m['move']} {m['outcome']} {m['distance']}" for m in cli["moves"][:3]]
    expected += [f"True {cli['outcome']}"]  # from the WDL tables
    assert result.stdout.splitlines() == expected


def test_stubs_name_what_the_module_has():
    stubs = ast.parse((pathlib.Path(moulin.__file__).parent / "__init__.pyi").read_text())
    assert (pathlib.Path(moulin.__file__).parent / "py.typed").exists()
    for node in stubs.body:
        if isinstance(node, ast.ClassDef):
            cls = getattr(moulin, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name != "__init__":
                    assert hasattr(cls, item.name), f"{node.name}.{item.name}"
    documented = {n.name for n in stubs.body if isinstance(n, ast.ClassDef)}
    assert documented == {n for n in moulin.__all__ if n != "__version__"}
    for name in ("Tablebase", "Position", "Probe"):
        assert getattr(moulin, name).__doc__


@pytest.fixture(scope="session")
def rule_tables(moulin_bin, tmp_path_factory) -> pathlib.Path:
    """Tables up to four stones a side under a no-capture limit of 6 turns."""
    directory = tmp_path_factory.mktemp("rule-tables")
    subprocess.run(
        [moulin_bin, "solve", "--max-stones", "4", "--no-capture-limit", "6", "-q", "--dir", directory],
        check=True,
    )
    return directory


def test_counters_agree_with_the_cli(moulin_bin, rule_tables):
    tb = moulin.Tablebase(rule_tables)
    assert tb.no_capture_limit == 6
    positions = random_positions(7, 40, lambda r: (3 + r.randrange(2), 3 + r.randrange(2)))
    seen = set()
    for counter in range(6):
        out = subprocess.run(
            [moulin_bin, "probe", "--json", "--counter", str(counter), "--dir", rule_tables, "-"],
            input="\n".join(positions) + "\n",
            capture_output=True,
            text=True,
        )
        for p, line in zip(positions, out.stdout.splitlines()):
            cli = json.loads(line)
            if "error" in cli:
                with pytest.raises(ValueError):
                    tb.probe(p, counter)
                continue
            probe = tb.probe(p, counter)
            seen.add(probe.outcome)
            assert (probe.outcome, probe.distance) == (cli["outcome"], cli["distance"])
            assert tb.moves(p, counter) == [(m["move"], m["outcome"], m["distance"]) for m in cli["moves"]]
            assert sorted(tb.best_moves(p, counter)) == sorted(cli["best_moves"])
    assert {"win", "draw"} <= seen


def test_counter_errors_are_value_errors(rule_tables, tables):
    tb = moulin.Tablebase(rule_tables)
    with pytest.raises(ValueError, match="0 <= counter < 6"):
        tb.probe("W:a1,d1,g7 B:b2,d2,f2 w", 6)
    with pytest.raises(OverflowError):
        tb.probe("W:a1,d1,g7 B:b2,d2,f2 w", -1)
    with pytest.raises(ValueError, match="no no-capture rule"):
        moulin.Tablebase(tables).probe("W:a1,d1,g7 B:b2,d2,f2 w", 0)
    assert moulin.Tablebase(tables).no_capture_limit is None


# --- WDL tables -----------------------------------------------------------


def assert_same_wdl(tb, position, cli):
    """`probe_wdl` says the outcome the CLI read from the distance tables, or
    raises where the CLI failed; returns the exception type or None."""
    if "error" in cli:
        with pytest.raises(moulin.TableError) as raised:
            tb.probe_wdl(position)
        assert cli["error"].startswith(str(raised.value)), (str(raised.value), cli)
        return type(raised.value)
    assert tb.probe_wdl(position) == cli["outcome"], (position, cli)
    return None


def test_probe_wdl_agrees_with_the_cli_on_random_positions(moulin_bin, tables):
    positions = random_positions(
        41, 400, lambda r: (3 + r.randrange(3), 3 + r.randrange(3) + (r.randrange(20) == 0))
    )
    positions += ["W: B: w 9 9", "W:a1,d1 B:d2,g4,a7 w", "W:a1,d1,g1,a4 B:d2,b4,c4,g4,a7,d7 w"]
    # Random positions are mostly draws: the CLI's best move out of each won
    # one leads to a lost one.
    positions += [
        str(moulin.Position(c["position"]).play(c["best_moves"][0]))
        for c in cli_json(moulin_bin, tables, positions)
        if c.get("outcome") == "win"
    ]
    wdl = moulin.Tablebase(tables, wdl=True)
    distance = moulin.Tablebase(tables)
    assert wdl.is_wdl and not distance.is_wdl
    cli = cli_json(moulin_bin, tables, positions)
    errors = []
    for p, c in zip(positions, cli):
        errors.append(assert_same_wdl(wdl, p, c))
        assert assert_same_wdl(distance, p, c) is errors[-1]
        assert assert_same_wdl(wdl, moulin.Position(p), c) is errors[-1]
    missing = [e for e in errors if e is not None]
    assert missing and all(e is moulin.MissingTableError for e in missing)
    answered = [c["outcome"] for c, e in zip(cli, errors) if e is None]
    assert len(answered) >= 380
    assert all(answered.count(o) >= 10 for o in ("win", "draw", "loss")), answered
    assert wdl.probe_wdl("W:a1,d1 B:a7,d2,g4 w") == "loss"  # a finished game


def test_wdl_tables_refuse_distances(moulin_bin, tables):
    tb = moulin.Tablebase(tables, wdl=True)
    position = "W:a1,d1,g1 B:b2,d2,f2 w"
    calls = [
        lambda p: tb.probe(p),
        lambda p: tb.probe(p, 0),
        lambda p: tb.probe(p, 99),
        lambda p: tb.best_moves(p),
        lambda p: tb.best_moves(p, 0),
        lambda p: tb.moves(p),
        lambda p: tb.moves(p, 0),
    ]
    for call in calls:
        for p in (position, moulin.Position(position), "W:a1,d1 B:a7,d2,g4 w"):
            with pytest.raises(moulin.WdlOnlyError) as raised:
                call(p)
            assert isinstance(raised.value, moulin.TableError) and isinstance(raised.value, OSError)
            assert "WDL tables" in str(raised.value) and "probe_wdl" in str(raised.value)
    # A bad position is still a ValueError with the CLI's message, first.
    for text in BAD_POSITIONS:
        message = cli_error(moulin_bin, text) if text else None
        for call in [tb.probe_wdl] + calls:
            with pytest.raises(ValueError) as raised:
                call(text)
            if message is not None:
                assert str(raised.value) == message
    with pytest.raises(UnicodeEncodeError):
        tb.probe_wdl("W:a1,d1,g1 B:b2,d2,\ud800 w")
    with pytest.raises(TypeError, match="str or a moulin.Position"):
        tb.probe_wdl(42)
    with pytest.raises(TypeError):
        moulin.Tablebase(tables, True)  # wdl is a keyword
    # What WDL tables do answer.
    distance = moulin.Tablebase(tables)
    assert tb.sectors() == distance.sectors()
    assert tb.flying and tb.no_capture_limit is None and tb.path == pathlib.Path(tables)
    assert repr(tb) == f"Tablebase('{tables}', 9 WDL tables)"
    assert repr(distance) == f"Tablebase('{tables}', 9 tables)"
    assert not moulin.Tablebase(tables, wdl=False).is_wdl


def test_directories_without_wdl_tables(moulin_bin, tables, tmp_path):
    with pytest.raises(moulin.TableError) as raised:
        moulin.Tablebase(tmp_path / "nowhere", wdl=True)
    assert "cannot open the WDL tables in" in str(raised.value) and "nowhere" in str(raised.value)
    tb = moulin.Tablebase(tables, wdl=True)
    for text in ["W:a1,d1,g1,b2,d2,f2 B:a7,d7,g7,b6,d6,f6 w", "W: B: w 9 9"]:
        cli = cli_json(moulin_bin, tables, [text])[0]
        assert assert_same_wdl(tb, text, cli) is moulin.MissingTableError
    plain = tmp_path / "no-wdl"
    subprocess.run(
        [moulin_bin, "solve", "--max-stones", "3", "--no-wdl", "-q", "--dir", plain], check=True
    )
    assert not list(plain.glob("*.mtw"))
    tb = moulin.Tablebase(plain, wdl=True)
    assert tb.sectors() == []
    with pytest.raises(moulin.MissingTableError, match="no table for sector 3v3"):
        tb.probe_wdl("W:a1,d1,g7 B:b2,d2,f2 w")
    assert moulin.Tablebase(plain).probe_wdl("W:a1,d1,g7 B:b2,d2,f2 w") in ("win", "draw", "loss")


def damaged_wdl_copy(tables, tmp_path, damage):
    directory = tmp_path / "damaged"
    shutil.copytree(tables, directory)
    table = directory / "5v4.mtw"
    table.write_bytes(damage(bytearray(table.read_bytes())))
    return directory


@pytest.mark.parametrize(
    "damage",
    [lambda d: bytes(d[: len(d) // 2]), lambda d: b"", lambda d: bytes(d[:60]) + bytes([d[60] ^ 0x5A]) + bytes(d[61:])],
    ids=["truncated", "emptied", "header byte flipped"],
)
def test_damaged_wdl_headers_fail_at_opening(tables, tmp_path, damage):
    directory = damaged_wdl_copy(tables, tmp_path, damage)
    with pytest.raises(moulin.DamagedTableError, match="5v4.mtw"):
        moulin.Tablebase(directory, wdl=True)
    moulin.Tablebase(directory)  # the distance tables are intact


def test_damaged_wdl_blocks_fail_where_they_are_read(moulin_bin, tables, tmp_path):
    directory = damaged_wdl_copy(tables, tmp_path, flip_data)
    tb = moulin.Tablebase(directory, wdl=True)
    positions = random_positions(55, 300, lambda r: [(5, 4), (4, 5), (4, 4)][r.randrange(3)])
    met = 0
    for p, cli in zip(positions, cli_json(moulin_bin, tables, positions)):
        try:
            assert tb.probe_wdl(p) == cli["outcome"]
        except moulin.DamagedTableError as e:
            assert "5v4.mtw" in str(e)
            met += 1
    assert met, "the damage was never met"


def test_threads_share_one_wdl_tablebase(tables):
    tb = moulin.Tablebase(tables, wdl=True)
    positions = random_positions(98, 300, lambda r: (3 + r.randrange(3), 3 + r.randrange(3)))
    distance = moulin.Tablebase(tables)
    alone = [distance.probe(p).outcome for p in positions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(tb.probe_wdl, positions)) == alone


def test_probe_wdl_on_rule_tables(moulin_bin, rule_tables):
    """Under the no-capture rule: the CLI's outcome at counter 0, a cursed
    win or blessed loss a draw; the rule writes no WDL tables."""
    tb = moulin.Tablebase(rule_tables)
    positions = random_positions(9, 60, lambda r: (3 + r.randrange(2), 3 + r.randrange(2)))
    out = subprocess.run(
        [moulin_bin, "probe", "--json", "--counter", "0", "--dir", rule_tables, "-"],
        input="\n".join(positions) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    as_wdl = {"win": "win", "cursed-win": "draw", "draw": "draw", "blessed-loss": "draw", "loss": "loss"}
    seen = set()
    for p, line in zip(positions, out.stdout.splitlines()):
        cli = json.loads(line)
        seen.add(cli["outcome"])
        assert tb.probe_wdl(p) == as_wdl[cli["outcome"]], (p, cli)
    assert len(seen) >= 3, seen
    assert not list(pathlib.Path(rule_tables).glob("*.mtw"))
    with pytest.raises(moulin.MissingTableError):
        moulin.Tablebase(rule_tables, wdl=True).probe_wdl(positions[0])
