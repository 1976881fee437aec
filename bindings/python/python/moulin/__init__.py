"""Perfect play for Nine Men's Morris from the moulin tables.

>>> import moulin
>>> tb = moulin.Tablebase("data/tables")          # doctest: +SKIP
>>> tb.probe("W:a1,d1,g1 B:b2,d2,f2 w")             # doctest: +SKIP
Probe(outcome='win', distance=3)
>>> moulin.Tablebase("data/tables", wdl=True).probe_wdl("W:a1,d1,g1 B:b2,d2,f2 w")  # doctest: +SKIP
'win'
"""

from ._moulin import (
    DamagedTableError,
    MissingTableError,
    Position,
    Probe,
    TableError,
    Tablebase,
    WdlOnlyError,
    __version__,
)

__all__ = [
    "DamagedTableError",
    "MissingTableError",
    "Position",
    "Probe",
    "TableError",
    "Tablebase",
    "WdlOnlyError",
    "__version__",
]
