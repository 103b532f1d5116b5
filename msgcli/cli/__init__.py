"""The ``msgcli`` command line: a thin layer over :mod:`msgcli.api`.

:mod:`.app` holds the application and ``main``; :mod:`.options` the options several
commands share, their choices read from the registries; :mod:`.common` the usage failure
and the helpers every command uses; each command is a module of its own
(``validate_cmd``, ``show_cmd``, ...), imported only when that command runs.
"""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
