"""Which dialect a log is in, settled on its first records, and one policy for the rest.

Every command that reads records (``validate``, ``show``, ``stats``, ``format``,
``convert``, the library) asks one :class:`Detector` per file what each record is.
The first record of a known dialect settles the file's dialect and kind (message or
event log). A later record is read as one of the file's when it is (or fits) the
file's dialect and kind; otherwise it is a problem, said the same way by every
command: ``D001`` (a record of no known dialect) or ``D002`` (a record of another
dialect or kind than the file's).

Once a file is settled on a *tolerant* dialect (``Dialect.tolerant``: a producer whose own
readers skip what they do not know), a record of no known dialect is no ``D001``: it is
read as a record of the file's kind, and :attr:`Detector.stranger` holds it, so that the
command asks the dialect what to make of it (``Dialect.unknown_record``,
``Dialect.read_unknown``, the replayer). A record another dialect claims is still ``D002``.

A file that so far holds only plain messages (which every provider dialect takes) is
settled tentatively: the first record that says more names the file's dialect.

``--dialect`` (``forced``) settles the dialect up front. What it means for a record that
dialect does not take is the one thing that depends on the command, and is said by
the ``use`` a detector is made for:

- :data:`CHECK` (``validate``): the first record settles the kind, and every record is
  checked as that kind of the named dialect, so its rules say what is wrong with it;
- :data:`READ` (the commands that read: ``show``, ``stats``, ``format``, ``convert``,
  the library): a record the named dialect does not take is a problem (``D001``, or
  ``D002`` once the file is settled), and not read.
"""

from __future__ import annotations

from .dialects import EVENT, MESSAGE, Dialect, classify, fits, is_plain
from .records import Problem

__all__ = ["CHECK", "READ", "Detector", "mixed", "undetected"]

#: what ``--dialect`` means for a record the named dialect does not take (see above)
CHECK = "check"
READ = "read"


class Detector:
    """The dialect and kind of one file, from its records (see the module's text)."""

    __slots__ = (
        "after",
        "dialect",
        "first_line",
        "forced",
        "kind",
        "problem",
        "stranger",
        "tentative",
        "use",
    )

    def __init__(self, forced: Dialect | None = None, use: str = CHECK):
        self.forced = forced
        #: :data:`CHECK` or :data:`READ`: what ``forced`` means for a record it does not take
        self.use = use
        #: the file's dialect and kind, once a record settled them
        self.dialect: Dialect | None = forced
        self.kind: str | None = None
        #: the line of the record that settled them
        self.first_line = 0
        #: a record of no known dialect after this line may be one of a tolerant dialect's
        #: file (the line that settled it; 0 in a part of a file checked in parts that does
        #: not hold that line, its lines numbered from 1)
        self.after = 0
        #: the file so far holds only plain messages, which every provider dialect takes
        self.tentative = False
        #: why the last record given to :meth:`kind_of` is not one of the file's
        self.problem: Problem | None = None
        #: the last record of no known dialect that :meth:`kind_of` took as one of a
        #: tolerant dialect's file (compare with ``is``: the record it was given)
        self.stranger: dict | None = None

    def settle(self, dialect: Dialect, kind: str, line: int) -> None:
        """Take ``dialect`` and ``kind`` as the file's (what its first records said)."""
        self.dialect, self.kind, self.first_line = dialect, kind, line
        self.after = line

    def kind_of(self, obj: dict, line: int) -> str | None:
        """``MESSAGE`` or ``EVENT``: how the record on ``line`` is read; ``None`` when it is
        not one of the file's records (:attr:`problem` says why). May settle or change
        :attr:`dialect`."""
        settled = self.dialect
        if settled is not None and self.kind is not None:
            # the common case, a record of the file's own: its dialect's answer settles it
            if self.forced is None:
                if not self.tentative:
                    kind = settled.classify(obj)
                    if kind is not None and kind == self.kind:
                        return kind
            elif self.use == CHECK:
                if settled.tolerant and settled.classify(obj) is None:
                    self._tolerate(obj, settled)
                return self.kind
        if self.forced is not None and self.use == READ:
            return self._read_as_forced(obj, line, self.forced)
        found = classify(obj)
        if self.forced is not None:
            if self.kind is None:
                self.settle(self.forced, EVENT if found == (self.forced, EVENT) else MESSAGE, line)
            return self.kind
        if found is None:
            if (
                settled is not None
                and settled.tolerant
                and self.kind is not None
                and line > self.after
                and self._tolerate(obj, settled)  # (what is merely new: see the module's text)
            ):
                return self.kind
            self.problem = Problem("D001", undetected(obj))
            return None
        dialect, kind = found
        if settled is None:
            self.settle(dialect, kind, line)
            self.tentative = is_plain(obj)
        elif dialect is not settled or kind != self.kind:
            assert self.kind is not None
            if self.tentative and kind == self.kind:
                # the file so far held only plain messages: it is of this record's dialect
                self.dialect = dialect
            elif fits(settled, obj) == self.kind:
                return self.kind
            else:
                self.problem = Problem(
                    "D002", mixed(dialect, kind, settled, self.kind, self.first_line)
                )
                return None
        if self.tentative and not is_plain(obj):
            self.tentative = False
        return kind

    def _tolerate(self, obj: dict, dialect: Dialect) -> bool:
        """Whether a record of no known dialect, after the one that settled a file on a
        tolerant ``dialect``, is one of the file's: a record of its kind that holds something
        new (``Dialect.claims``), or a record of a kind msgcli does not know (``Dialect.is_new``:
        then it is :attr:`stranger`). ``False``: one of the dialect's own records gone wrong
        (a message whose role is no role), which stays what it was."""
        if dialect.claims(obj) == self.kind:
            return True
        if not dialect.is_new(obj):
            return False
        if self.forced is None or classify(obj) is None:
            self.stranger = obj
        return True

    def _read_as_forced(self, obj: dict, line: int, forced: Dialect) -> str | None:
        kind = fits(forced, obj)
        if kind is not None and self.kind is None:
            self.settle(forced, kind, line)
        if kind is not None and kind == self.kind:
            return kind
        found = classify(obj)
        if found is None and kind is not None:
            found = (forced, kind)  # (an event of the dialect in its message log, or so)
        if (
            found is None
            and forced.tolerant
            and self.kind is not None
            and line > self.after
            and self._tolerate(obj, forced)
        ):
            return self.kind
        if self.kind is None or found is None:  # (of no dialect msgcli knows)
            said = f"this record is no {forced.title} message or event (--dialect {forced.name})"
            self.problem = Problem("D001", said)
            return None
        other, other_kind = found
        self.problem = Problem("D002", mixed(other, other_kind, forced, self.kind, self.first_line))
        return None


def undetected(obj: dict) -> str:
    """The D001 message of a record of no known dialect."""
    keys = ", ".join(list(obj)[:8]) or "no keys"
    return (
        f"this record matches none of the known dialects (keys: {keys}); "
        "name one with --dialect if the file is of a known dialect"
    )


def _a(title: str) -> str:
    return f"{'an' if title[:1].lower() in 'aeiou' else 'a'} {title}"


def _kind_name(kind: str) -> str:
    return "event" if kind == EVENT else "message"


def mixed(d: Dialect, kind: str, file_dialect: Dialect, file_kind: str, since: int) -> str:
    """The D002 message of a record of another dialect or kind than the file's."""
    return (
        f"this record is {_a(d.title)} {_kind_name(kind)}, "
        f"but the file is {_a(file_dialect.title)} "
        f"{_kind_name(file_kind)} log (from line {since}); one file should hold one dialect"
    )
