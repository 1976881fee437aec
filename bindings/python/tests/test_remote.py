"""Tablebase("http://...") against `moulin serve --static-only` of the tables
solved up to five stones a side: the same answers as the directory, missing
tables as missing, and errors that name the URL and the HTTP status."""

import contextlib
import http.server
import pathlib
import random
import socket
import subprocess
import threading

import pytest

import moulin

POINTS = ("a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7").split()


def random_positions(seed, n):
    """`n` random moving-phase positions of 3 to 6 stones a side."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        w, b = 3 + rng.randrange(4), 3 + rng.randrange(3)
        chosen = rng.sample(range(24), w + b)
        out.append(
            "W:" + ",".join(POINTS[i] for i in sorted(chosen[:w]))
            + " B:" + ",".join(POINTS[i] for i in sorted(chosen[w:])) + " " + rng.choice("wb")
        )
    return out


@contextlib.contextmanager
def serving(moulin_bin, directory, web):
    """The URL of `directory` served by `moulin serve --static-only`, while in the block."""
    (web / "index.html").write_text("<!doctype html>")
    (web / "moulin_wasm.wasm").write_bytes(b"\0asm")
    server = subprocess.Popen(
        [moulin_bin, "serve", "--port", "0", "--quiet", "--static-only", "--dir", directory, "--web", web],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = server.stdout.readline().strip()
        assert line.startswith("moulin serve: http://"), line
        yield line.removeprefix("moulin serve: ") + "tables"
    finally:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def served(moulin_bin, tables, tmp_path_factory):
    """The URL of the tables served by `moulin serve --static-only`."""
    with serving(moulin_bin, tables, tmp_path_factory.mktemp("web")) as url:
        yield url


def answer(tb, position):
    try:
        return (str(tb.probe(position)), tb.best_moves(position))
    except moulin.MissingTableError as e:
        return ("missing", str(e))


def test_remote_answers_equal_the_directory(served, tables, tmp_path):
    local = moulin.Tablebase(tables)
    remote = moulin.Tablebase(served)
    cached = moulin.Tablebase(served, cache_dir=tmp_path / "cache", timeout=5)
    kinds = set()
    for position in random_positions(5, 200):
        expected = answer(local, position)
        assert answer(remote, position) == expected, position
        assert answer(cached, position) == expected, position
        kinds.add(expected[0] == "missing")
    # Positions with a table and without (six stones) both occurred.
    assert kinds == {True, False}
    assert any((tmp_path / "cache").iterdir())
    wdl = moulin.Tablebase(served, wdl=True)
    assert wdl.is_wdl
    assert wdl.probe_wdl("W:a1,d1,g1,a4 B:b2,d2,f2,b4 w") == local.probe_wdl("W:a1,d1,g1,a4 B:b2,d2,f2,b4 w")


def test_a_remote_play_set_answers_as_the_tables(moulin_bin, tables, tmp_path):
    play = tmp_path / "play"
    subprocess.run([moulin_bin, "pack", "-q", "--dir", tables, "--out", play], check=True)
    (tmp_path / "web").mkdir()
    with serving(moulin_bin, play, tmp_path / "web") as url:
        local = moulin.Tablebase(tables)
        remote = moulin.Tablebase(url, play=True)
        for position in random_positions(7, 100):
            assert answer(remote, position) == answer(local, position), position
    with pytest.raises(ValueError, match="play"):
        moulin.Tablebase(play, play=True)


class Failing(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_error(500)

    def log_message(self, *args):
        pass


def test_remote_errors_name_the_url_and_the_status():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/tables"
        with pytest.raises(moulin.TableError) as e:
            moulin.Tablebase(url).probe("W:a1,d1,g1 B:b2,d2,f2 w")
        assert str(e.value) == f"table {url}/3v3.mtb: HTTP 500 Internal Server Error"
    finally:
        server.shutdown()
    # Nothing listens on a port just freed.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/tables"
    with pytest.raises(moulin.TableError, match=f"^table {url}/3v3.mtb: "):
        moulin.Tablebase(url, timeout=2).probe("W:a1,d1,g1 B:b2,d2,f2 w")


def test_remote_options_are_checked(tables):
    with pytest.raises(ValueError, match="not a positive number"):
        moulin.Tablebase("http://127.0.0.1:1/tables", timeout=-1)
    with pytest.raises(ValueError, match="remote table set"):
        moulin.Tablebase(tables, cache_dir=pathlib.Path("x"))
    with pytest.raises(ValueError, match="not the URL of a table directory"):
        moulin.Tablebase("http://")
