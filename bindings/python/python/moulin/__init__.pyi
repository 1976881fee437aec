"""Perfect play for Nine Men's Morris from the moulin tables.

Positions are written ``W:<points> B:<points> <w|b> [<white in hand> <black in hand>]``
(``"W: B: w 9 9"`` is the start), moves ``d2`` (placement), ``b2-b4`` (slide
or flight), ``b2-b4xg4`` (with a removal).
"""

import os
import pathlib
from typing import List, Literal, Optional, Tuple, Union

__version__: str

Outcome = Literal["win", "draw", "loss", "cursed-win", "blessed-loss"]
Wdl = Literal["win", "draw", "loss"]

class TableError(OSError):
    """The tables cannot answer: a directory that cannot be read, tables of mixed rules."""

class MissingTableError(TableError):
    """No table of the position's sector in the directory (``moulin solve`` writes it)."""

class DamagedTableError(TableError):
    """A table file is damaged: truncated, bad checksum, not a table, wrong name."""

class WdlOnlyError(TableError):
    """WDL tables (``Tablebase(path, wdl=True)``) were asked for a distance, best moves or moves.

    They store outcomes only: ask ``probe_wdl``, or open the distance tables.
    """

class Position:
    """A position: stones on the board and in hand, and the side to move."""

    def __init__(self, text: str) -> None:
        """Parses a position; ValueError names what is wrong (as ``moulin probe`` does)."""
    @staticmethod
    def start() -> "Position":
        """The start of the game: empty board, nine stones in hand each."""
    @property
    def side_to_move(self) -> Literal["w", "b"]:
        """``'w'`` or ``'b'``: the player to move."""
    @property
    def white_hand(self) -> int:
        """White's stones still to be placed."""
    @property
    def black_hand(self) -> int:
        """Black's stones still to be placed."""
    @property
    def white(self) -> List[str]:
        """White's points on the board, in the canonical order."""
    @property
    def black(self) -> List[str]:
        """Black's points on the board, in the canonical order."""
    def legal_moves(self, flying: bool = True) -> List[str]:
        """Every legal move; empty when the game is over."""
    def play(self, move: str, flying: bool = True) -> "Position":
        """The position after a legal move; ValueError for a malformed or illegal one."""
    def is_lost(self, flying: bool = True) -> bool:
        """Whether the player to move has lost: fewer than three stones, or blocked."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Probe:
    """What the tables say about a position, for the player to move."""

    @property
    def outcome(self) -> Outcome:
        """``'win'``, ``'draw'`` or ``'loss'`` for the player to move.

        With a counter, under the no-capture rule, also ``'cursed-win'`` and
        ``'blessed-loss'`` (drawn by the rule, won or lost without it).
        """
    @property
    def distance(self) -> Optional[int]:
        """Turns (plies) to the end of the game under perfect play; None for a draw.

        With a counter, the distance to conversion (the next capture or the end).
        """
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Tablebase:
    """The tables of one directory, shareable between threads (probes release the GIL)."""

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        wdl: bool = False,
        play: bool = False,
        cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
        cache_bytes: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> None:
        """Opens the ``*.mtb`` tables of a directory, or with ``wdl=True`` its WDL tables.

        ``path`` may be an ``http://`` or ``https://`` URL under which the
        tables lie as ``<url>/<sector>.mtb`` (``moulin serve --dir D`` serves
        D at ``http://host:port/tables``): they are read by range requests,
        each table when a probe first needs it; a table the server does not
        have raises MissingTableError, as for a directory. ``timeout``
        (seconds, default 30) bounds connecting and each read; ``cache_dir``
        keeps fetched blocks on disk, at most ``cache_bytes`` (default 1 GiB)
        of them. A server error or a timeout raises TableError naming the URL
        and the HTTP status; wrong bytes raise DamagedTableError. These three
        options are for URLs only (ValueError with a directory).

        A play set (``moulin pack``: outcome tables ``<sector>.mtw`` and one
        side's distances ``<sector>.mtd``) answers every probe as the tables
        do. A directory that holds one opens as one; a remote one needs
        ``play=True`` (ValueError with a directory).

        WDL tables (``<sector>.mtw``, written by ``moulin solve`` beside the
        others) hold outcomes only, two bits a position: they answer
        ``probe_wdl`` alone; ``probe``, ``best_moves`` and ``moves`` raise
        WdlOnlyError. A directory without them opens, and its probes raise
        MissingTableError.

        Raises TableError if it cannot be listed, DamagedTableError if a
        table's header is damaged.
        """
    def probe_wdl(self, position: Union[str, Position]) -> Wdl:
        """``'win'``, ``'draw'`` or ``'loss'`` for the player to move; a finished game is a loss.

        From WDL tables or from distance tables (there the outcome of
        ``probe``; under the no-capture rule the value at counter 0, a
        cursed win or blessed loss a draw).

        Raises ValueError for an invalid position, MissingTableError,
        DamagedTableError or TableError when the tables cannot answer.
        """
    @property
    def is_wdl(self) -> bool:
        """Whether these are WDL tables (``Tablebase(path, wdl=True)``)."""
    def probe(self, position: Union[str, Position], counter: Optional[int] = None) -> Probe:
        """The outcome and distance for the player to move; a finished game is a loss in 0.

        ``counter``: turns since the last capture or placement, for tables
        solved with ``--no-capture-limit N`` (0 <= counter < N, 0 with stones
        in hand): the value under the rule at that counter.

        Raises ValueError for an invalid position or a counter the tables
        cannot answer, MissingTableError, DamagedTableError or TableError
        when the tables cannot answer, WdlOnlyError on WDL tables.
        """
    def best_moves(self, position: Union[str, Position], counter: Optional[int] = None) -> List[str]:
        """The fastest wins, else every drawing move, else the slowest losses.

        Raises as ``probe`` (WdlOnlyError on WDL tables).
        """
    def moves(
        self, position: Union[str, Position], counter: Optional[int] = None
    ) -> List[Tuple[str, Outcome, Optional[int]]]:
        """Every legal move as ``(move, outcome, distance)`` for its player, best first.

        The order of ``moulin probe --json``: by outcome, ties in the order
        of ``Position.legal_moves``. With ``counter``, each move valued at the
        counter it leads to (0 after a capture or placement, counter + 1 else).
        Raises as ``probe`` (WdlOnlyError on WDL tables).
        """
    @property
    def path(self) -> pathlib.Path:
        """The directory of the tables."""
    @property
    def flying(self) -> bool:
        """Whether the tables were solved with flying."""
    @property
    def no_capture_limit(self) -> Optional[int]:
        """The no-capture limit of rule tables, None for tables without the rule."""
    def sectors(self) -> List[str]:
        """The sectors present, like ``['3v3', '3v4', ...]``."""
