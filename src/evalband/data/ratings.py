"""The ratings table: who rated which unit how, validated once, read by every agreement statistic.

A *unit* is what is rated (an item, a model output, a pair of outputs for pairwise judgements); a *rater* is a
person, a crowd worker or a model judge; a *value* is the rating. Ratings reach :class:`RatingsTable` long (one
row per unit and rater), wide (one row per unit, one column per rater) or as Krippendorff's reliability data (one
row per rater, one column per unit). Missing ratings are allowed and counted. The level of measurement (nominal,
ordinal, interval, ratio) is given or detected, and the detection is said in ``notes``.

Units are kept in a canonical order (sorted by label), so that the bootstrap over units gives the same numbers
whatever the order of the input rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._cells import check_cells
from .labels import label_column
from .._lists import check_named_columns
from .._validate import ArgumentError, InputError, check_choice
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["RatingsTable", "LEVELS", "MAX_ORDINAL_CATEGORIES"]

#: levels of measurement (Stevens 1946), as Krippendorff's alpha knows them
LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: integer ratings with at most this many distinct values are detected as ordinal; more as interval
MAX_ORDINAL_CATEGORIES = 12


def _row(index, pos: int, row_word: str):
    """The row as the user sees it: 'line 7', 'record 3', 'row 2' (several files: the label names file and line)."""
    label = index[pos]
    return label if row_word == "at" else f"{row_word} {label}"


def _labels(col: pd.Series, name: str, source: str, row_word: str, notes: list | None = None) -> np.ndarray:
    """A label column (units, raters, clusters) as stripped text by the one label rule (:mod:`evalband.data.labels`:
    NFC, look-alike spellings refused; its notes go to ``notes``); a missing label is an error."""
    check_cells(col, name, source=source, where=lambda pos: _row(col.index, pos, row_word), column=str(col.name))
    blank = col.isna().to_numpy()
    if blank.any():
        pos = int(np.flatnonzero(blank)[0])
        raise InputError(f"missing {name} label ({int(blank.sum())} such row{'s' if blank.sum() > 1 else ''})",
                         source=source, row=_row(col.index, pos, row_word), column=str(col.name))
    text = pd.Series(col.astype(str).str.strip().to_numpy(dtype=object), index=col.index)
    coded, more = label_column(text, name, source, row_word)
    if notes is not None:
        notes.extend(x for x in more if x not in notes)
    return np.asarray(coded.cat.categories, dtype=object)[coded.cat.codes.to_numpy()]


NOTE_LEVEL_NOMINAL_DETECTED_NON = NoteKind(
    'data.ratings-level-nominal-detected', 'info',
    'level nominal detected ({n_cats} non-numeric value{value}: {value2}{value3}); give {arg:measurement=} to override')
NOTE_LEVEL_ORDINAL_ORDER_GIVEN = NoteKind('data.ratings-level-ordinal-order', 'info',
                                           'level ordinal: the order given in `categories` ({value})')
NOTE_LEVEL_DETECTED_GIVE_OVERRIDE = NoteKind('data.ratings-level-detected', 'info',
                                              'level {level} detected ({why}); give {arg:measurement=} to override')


def _parse_values(values: pd.Series, level: str, categories, source: str, row_word: str, column: str):
    """Values (non-missing) -> (codes, categories tuple, level, numeric, notes)."""
    notes = []
    raw = values.to_numpy(dtype=object)
    if categories is not None:
        cats = list(categories)
        text = {str(c).strip(): k for k, c in enumerate(cats)}
        if len(text) != len(cats):
            raise ArgumentError(f"`categories` lists a value twice: {cats!r}.")
        keys = pd.Series(raw).astype(str).str.strip().to_numpy()
        codes = np.array([text.get(k, -1) for k in keys], dtype=np.int64)
        if (codes < 0).any():
            pos = int(np.flatnonzero(codes < 0)[0])
            raise InputError(f"value {raw[pos]!r} is not one of `categories` ({', '.join(map(repr, cats))})",
                             source=source, row=_row(values.index, pos, row_word), column=column)
        numeric = all(isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, bool)
                      for c in cats)
        if level == "auto":
            level = "ordinal"
            notes.append(NOTE_LEVEL_ORDINAL_ORDER_GIVEN(value=', '.join(map(str, cats))))
        if level in ("interval", "ratio") and not numeric:
            raise ArgumentError(words('`{arg:measurement={level!r}}` needs numeric categories; got {cats!r}.', level=level, cats=cats))
        return codes, tuple(cats), level, numeric, notes
    is_bool = values.map(lambda v: isinstance(v, (bool, np.bool_))).all() if len(values) else False
    num = pd.to_numeric(values, errors="coerce") if not is_bool else None
    numeric = num is not None and not num.isna().any()
    if numeric:
        x = num.to_numpy(dtype=np.float64)
        if not np.isfinite(x).all():
            pos = int(np.flatnonzero(~np.isfinite(x))[0])
            raise InputError(f"value {raw[pos]!r} is not finite", source=source,
                             row=_row(values.index, pos, row_word), column=column)
        cats, codes = np.unique(x, return_inverse=True)
        integer = bool(np.all(cats == np.round(cats)))
        if level == "auto":
            if integer and len(cats) <= MAX_ORDINAL_CATEGORIES:
                level = "ordinal"
                why = f"{len(cats)} integer values, {cats[0]:g} to {cats[-1]:g}"
            else:
                level = "interval"
                why = (f"{len(cats)} distinct integer values" if integer else "non-integer numbers")
            notes.append(NOTE_LEVEL_DETECTED_GIVE_OVERRIDE(level=level, why=why))
        if level == "ratio" and cats[0] < 0:
            raise InputError(f"ratio ratings must be >= 0; got {cats[0]:g}", source=source, column=column)
        cats = tuple(int(c) if integer else float(c) for c in cats)
        return codes.astype(np.int64), cats, level, True, notes
    if level in ("interval", "ratio", "ordinal"):
        bad = np.flatnonzero(num.isna().to_numpy()) if num is not None else np.arange(len(values))
        pos = int(bad[0])
        extra = " (or give `categories=` in order)" if level == "ordinal" else ""
        raise InputError(f"level {level} needs numeric ratings; got {raw[pos]!r}{extra}", source=source,
                         row=_row(values.index, pos, row_word), column=column)
    keys = pd.Series(raw).map(lambda v: str(v).strip() if not isinstance(v, (bool, np.bool_)) else str(bool(v)))
    cats, codes = np.unique(keys.to_numpy(dtype=str), return_inverse=True)
    if level == "auto":
        level = "nominal"
        notes.append(NOTE_LEVEL_NOMINAL_DETECTED_NON(n_cats=len(cats), value='s' if len(cats) > 1 else '', value2=', '.join(map(str, cats[:8])), value3=' ...' if len(cats) > 8 else ''))
    return codes.astype(np.int64), tuple(str(c) for c in cats), level, False, notes


NOTE_BLANK_RATING_READ_MISSING = NoteKind('data.blank-rating-read-missing', 'info',
                                           '{n_blank:,} blank rating{value} read as missing')
NOTE_NO_UNIT_COLUMN_UNITS = NoteKind('data.no-unit-column-units', 'info',
                                      'no unit column: units named by {value}')
NOTE_UNIT_S_HAVE_NO = NoteKind('data.ratings-units-unrated', 'excluded',
                                '{value:,} unit(s) have no rating at all and are left out')
NOTE_UNITS_X_RATERS_CELLS = NoteKind(
    'data.ratings-cells-rated', 'info',
    '{n_u:,} of {n_units:,} units x {n_raters:,} raters = {cells:,} cells rated; {value:,} missing')
#: the notes of what a table's raters rated (said again when the raters change) and of its level
COUNT_CODES = (NOTE_UNIT_S_HAVE_NO.code, NOTE_UNITS_X_RATERS_CELLS.code)
LEVEL_CODES = (NOTE_LEVEL_NOMINAL_DETECTED_NON.code, NOTE_LEVEL_ORDINAL_ORDER_GIVEN.code,
               NOTE_LEVEL_DETECTED_GIVE_OVERRIDE.code)


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class RatingsTable:
    """A validated table of ratings. Build it with :func:`evalband.io.read_ratings` or the ``from_*`` methods.

    Attributes
    ----------
    units : tuple of str
        Unit labels in canonical (sorted) order; ``unit_code`` indexes them.
    raters : tuple of str
        Rater labels in order of first appearance.
    unit_code, rater_code, value_code : numpy.ndarray of int, shape (n_ratings,)
        One entry per rating present (missing ratings have none); ``value_code`` indexes ``categories``.
    categories : tuple
        The distinct values in order (numbers ascending, or the order given; text sorted).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}
    numeric : bool
        Whether the values are numbers (then ``values`` holds them as floats).
    cluster_code : numpy.ndarray of int or None, shape (n_units,)
        Cluster of each unit (indexing ``cluster_labels``); the bootstrap then resamples whole clusters.
    cluster_labels : tuple of str
    source : str
    notes : tuple of str
        What was detected, converted or left out while reading.
    """

    units: tuple
    raters: tuple
    unit_code: np.ndarray
    rater_code: np.ndarray
    value_code: np.ndarray
    categories: tuple
    level: str
    numeric: bool
    cluster_code: np.ndarray | None = None
    cluster_labels: tuple = ()
    source: str = "<DataFrame>"
    notes: tuple = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_long(cls, df: pd.DataFrame, *, unit_col: str = "unit", rater_col: str = "rater",
                  value_col: str = "value", cluster_col: str | None = None, level: str = "auto",
                  categories=None, source: str = "<DataFrame>", row_word: str = "row",
                  notes=()) -> "RatingsTable":
        """Ratings in long form: one row per unit and rater (blank value = missing rating, counted).

        Parameters
        ----------
        df : pandas.DataFrame
        unit_col, rater_col, value_col : str
            The columns holding the unit, the rater and the rating.
        cluster_col : str, optional
            A column constant within each unit naming its cluster (passage, prompt, ...): the bootstrap then
            resamples whole clusters.
        level : {'auto', 'nominal', 'ordinal', 'interval', 'ratio'}
            'auto' reads text as nominal, integers with at most 12 distinct values as ordinal, other numbers as
            interval, and says so in ``notes``.
        categories : sequence, optional
            The allowed values, in order (an ordinal scale of text labels such as ``['right', 'tie', 'left']``);
            any other value is an error.
        source, row_word : str
            For messages: the file name, and 'line' when the frame's index holds file line numbers.
        """
        level = check_choice(level, ("auto", *LEVELS), "measurement")
        check_named_columns([("unit_col", unit_col), ("rater_col", rater_col), ("value_col", value_col),
                             ("cluster_col", cluster_col)], df.columns, source)
        if len(df) == 0:
            raise InputError("no ratings to analyse", source=source)
        notes = list(notes)
        unit = _labels(df[unit_col], "unit", source, row_word, notes)
        rater = _labels(df[rater_col], "rater", source, row_word, notes)
        value = df[value_col]
        check_cells(value, "rating", source=source, where=lambda pos: _row(df.index, pos, row_word),
                    column=str(value_col))
        blank = value.isna().to_numpy() | value.map(lambda v: isinstance(v, str) and not v.strip()).to_numpy()
        u_labels = np.unique(unit)
        u_code_all = np.searchsorted(u_labels, unit)
        r_code_all, r_labels = pd.factorize(pd.Series(rater), sort=False)
        key = u_code_all.astype(np.int64) * len(r_labels) + r_code_all
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        if (counts > 1).any():
            dup_key = key[np.sort(first[counts > 1])[0]]
            pos = np.flatnonzero(key == dup_key)[:2]
            also = _row(df.index, int(pos[1]), row_word)
            raise InputError(f"rater '{rater[pos[0]]}' rated unit '{unit[pos[0]]}' twice (also {also};"
                             f" {int((counts - 1).clip(0).sum())} repeated ratings); give each repeat its own rater"
                             " or unit", source=source, row=_row(df.index, int(pos[0]), row_word))
        clusters, cluster_labels = None, ()
        if cluster_col:
            clab = _labels(df[cluster_col], "cluster", source, row_word, notes)
            per_unit = pd.Series(clab).groupby(u_code_all).nunique()
            if (per_unit > 1).any():
                u = int(per_unit.index[np.flatnonzero(per_unit.to_numpy() > 1)[0]])
                pos = np.flatnonzero(u_code_all == u)
                raise InputError(f"unit '{u_labels[u]}' lies in more than one cluster"
                                 f" ({', '.join(sorted(set(clab[pos])))})",
                                 source=source, row=_row(df.index, int(pos[0]), row_word), column=cluster_col)
            first_row = np.zeros(len(u_labels), dtype=np.int64)
            first_row[u_code_all[::-1]] = np.arange(len(unit))[::-1]
            cluster_labels, clusters = np.unique(clab[first_row], return_inverse=True)
            cluster_labels = tuple(str(c) for c in cluster_labels)
        keep = ~blank
        if not keep.any():
            raise InputError("every rating is blank", source=source, column=value_col)
        codes, cats, level, numeric, more = _parse_values(value[keep], level, categories, source, row_word,
                                                          value_col)
        notes += more
        n_blank = int(blank.sum())
        if n_blank:
            notes.append(NOTE_BLANK_RATING_READ_MISSING(n_blank=n_blank, value='s' if n_blank > 1 else ''))
        return cls._build(tuple(str(u) for u in u_labels), tuple(str(r) for r in r_labels),
                          u_code_all[keep], np.asarray(r_code_all)[keep], codes, cats, level, numeric, clusters,
                          cluster_labels, source, notes)

    @classmethod
    def from_wide(cls, df: pd.DataFrame, *, unit_col: str | None = "unit", raters=None,
                  cluster_col: str | None = None, level: str = "auto", categories=None,
                  source: str = "<DataFrame>", row_word: str = "row", notes=()) -> "RatingsTable":
        """Ratings in wide form: one row per unit, one column per rater (blank = missing).

        ``unit_col`` names the unit column (when it is absent, or None, the row names are the units, with a
        note); ``raters`` lists the rater columns (default: every column but the unit and cluster columns).
        """
        notes = list(notes)
        frame = df.copy()
        if unit_col is None or unit_col not in frame.columns:
            if unit_col is not None and unit_col != "unit":
                check_named_columns([("unit_col", unit_col)], df.columns, source)
            frame["__unit__"] = [str(i) for i in frame.index]
            notes.append(NOTE_NO_UNIT_COLUMN_UNITS(value='file line' if row_word == 'line' else 'row'))
            unit_col = "__unit__"
        others = [c for c in frame.columns if c not in (unit_col, cluster_col)]
        if raters is None:
            raters = others
        else:
            raters = [raters] if isinstance(raters, str) else list(raters)
            unknown = [r for r in raters if r not in frame.columns]
            if unknown:
                raise ArgumentError(words('`{arg:raters}`: no column {value}; found {value2}.', value=', '.join(map(repr, unknown)), value2=', '.join(map(repr, others))))
        if not raters:
            raise InputError("no rater columns", source=source)
        ids = ([unit_col] + ([cluster_col] if cluster_col else []))
        long = frame[ids + list(raters)].reset_index().melt(id_vars=["index"] + ids, value_vars=list(raters),
                                                            var_name="__rater__", value_name="__value__")
        long.index = long.pop("index")
        dup = frame[unit_col].astype(str).duplicated()
        if dup.any():
            pos = int(np.flatnonzero(dup.to_numpy())[0])
            raise InputError(f"unit '{frame[unit_col].iloc[pos]}' has two rows; wide ratings have one row per unit",
                             source=source, row=_row(frame.index, pos, row_word), column=unit_col)
        return cls.from_long(long, unit_col=unit_col, rater_col="__rater__", value_col="__value__",
                             cluster_col=cluster_col, level=level, categories=categories, source=source,
                             row_word=row_word, notes=notes)

    @classmethod
    def from_reliability_data(cls, data, *, raters=None, units=None, level: str = "auto",
                              categories=None) -> "RatingsTable":
        """Krippendorff's reliability data: a (raters, units) array, NaN (or None, '') = missing.

        This is the layout of ``krippendorff.alpha(reliability_data=...)``; raters default to 'rater 1', ...
        and units to '1', '2', ... (zero-padded so that they sort in column order).
        """
        arr = pd.DataFrame(np.asarray(data, dtype=object))
        n_r, n_u = arr.shape
        width = len(str(n_u))
        units = list(units) if units is not None else [str(k + 1).zfill(width) for k in range(n_u)]
        raters = list(raters) if raters is not None else [f"rater {k + 1}" for k in range(n_r)]
        if len(units) != n_u or len(raters) != n_r:
            raise ArgumentError(f"`data` is {n_r} raters x {n_u} units; got {len(raters)} rater and {len(units)} unit"
                             " names.")
        arr.index, arr.columns = raters, units
        long = arr.T.rename_axis("unit").reset_index().melt(id_vars="unit", var_name="rater", value_name="value")
        long["value"] = long["value"].map(lambda v: None if v is None or (isinstance(v, float) and np.isnan(v))
                                          or (isinstance(v, str) and not v.strip()) else v)
        return cls.from_long(long, level=level, categories=categories, source="<reliability data>")

    @classmethod
    def _build(cls, units, raters, u, r, v, cats, level, numeric, clusters, cluster_labels, source, notes):
        order = np.lexsort((r, u))
        n_units, n_raters = len(units), len(raters)
        rated = np.bincount(u, minlength=n_units)
        if (rated == 0).any():
            notes.append(NOTE_UNIT_S_HAVE_NO(value=int((rated == 0).sum())))
            keep_units = np.flatnonzero(rated > 0)
            remap = np.full(n_units, -1)
            remap[keep_units] = np.arange(keep_units.size)
            u = remap[u]
            units = tuple(units[k] for k in keep_units)
            if clusters is not None:
                clusters = clusters[keep_units]
            n_units = len(units)
        cells = n_units * n_raters
        if len(u) < cells:
            notes.append(NOTE_UNITS_X_RATERS_CELLS(n_u=len(u), n_units=n_units, n_raters=n_raters, cells=cells, value=cells - len(u)))
        return cls(tuple(units), tuple(raters), np.asarray(u, np.int64)[order], np.asarray(r, np.int64)[order],
                   np.asarray(v, np.int64)[order], tuple(cats), level, bool(numeric),
                   None if clusters is None else np.asarray(clusters, np.int64), tuple(cluster_labels), source,
                   tuple(notes))

    # ------------------------------------------------------------------ views
    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_raters(self) -> int:
        return len(self.raters)

    @property
    def n_ratings(self) -> int:
        return int(self.unit_code.size)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def has_clusters(self) -> bool:
        return self.cluster_code is not None

    @cached_property
    def values(self) -> np.ndarray | None:
        """The categories as floats (numeric ratings), else None."""
        return np.asarray(self.categories, dtype=np.float64) if self.numeric else None

    @cached_property
    def counts(self) -> np.ndarray:
        """(n_units, n_categories): how many raters gave each value to each unit."""
        flat = self.unit_code * self.n_categories + self.value_code
        return np.bincount(flat, minlength=self.n_units * self.n_categories).reshape(self.n_units,
                                                                                     self.n_categories)

    @cached_property
    def matrix(self) -> np.ndarray:
        """(n_raters, n_units) value codes, -1 where a rater did not rate a unit."""
        out = np.full((self.n_raters, self.n_units), -1, dtype=np.int64)
        out[self.rater_code, self.unit_code] = self.value_code
        return out

    def reliability_data(self) -> np.ndarray:
        """(n_raters, n_units) values as floats (NaN = missing), as ``krippendorff.alpha`` takes them; text
        categories are given by their position."""
        vals = self.values if self.numeric else np.arange(self.n_categories, dtype=np.float64)
        m = self.matrix
        return np.where(m >= 0, vals[np.maximum(m, 0)], np.nan)

    def select(self, raters) -> "RatingsTable":
        """The ratings of some raters only (in the order given); units left without a rating are dropped."""
        raters = [raters] if isinstance(raters, str) else list(raters)
        unknown = [r for r in raters if r not in self.raters]
        if unknown:
            raise ArgumentError(words('`{arg:raters}`: unknown {value}; available: {value2}{value3}.', value=', '.join(map(repr, unknown)), value2=', '.join(map(repr, self.raters[:12])), value3=' ...' if self.n_raters > 12 else ''))
        lookup = np.full(self.n_raters, -1)
        lookup[[self.raters.index(r) for r in raters]] = np.arange(len(raters))
        code = lookup[self.rater_code]
        keep = code >= 0
        notes = [n for n in self.notes if getattr(n, "code", None) not in COUNT_CODES]
        return RatingsTable._build(self.units, tuple(raters), self.unit_code[keep], code[keep],
                                   self.value_code[keep], self.categories, self.level, self.numeric,
                                   self.cluster_code, self.cluster_labels, self.source, notes)

    def with_level(self, level: str) -> "RatingsTable":
        """This table at another level of measurement ('auto' or its own level: itself); interval and ratio need
        numbers. The raters keep their order."""
        if level == "auto" or level == self.level:
            return self
        kept = [n for n in self.notes if getattr(n, "code", None) not in COUNT_CODES + LEVEL_CODES]
        table = RatingsTable.from_long(self.to_frame(), cluster_col="cluster" if self.has_clusters else None,
                                       level=level, categories=None if self.numeric else list(self.categories),
                                       source=self.source, notes=kept)
        return table.select(list(self.raters))

    def to_frame(self) -> pd.DataFrame:
        """Long frame: unit, rater, value (and cluster), one row per rating present."""
        cats = np.asarray(self.categories, dtype=object)
        frame = pd.DataFrame({"unit": np.asarray(self.units, dtype=object)[self.unit_code],
                              "rater": np.asarray(self.raters, dtype=object)[self.rater_code],
                              "value": cats[self.value_code]})
        if self.has_clusters:
            frame["cluster"] = np.asarray(self.cluster_labels, dtype=object)[self.cluster_code[self.unit_code]]
        return frame

    def describe(self) -> str:
        """One sentence saying what was read."""
        per_unit = np.bincount(self.unit_code, minlength=self.n_units)
        text = (f"{self.source}: {self.n_ratings:,} ratings of {self.n_units:,} units by {self.n_raters:,} raters"
                f" ({per_unit.min()} to {per_unit.max()} per unit), {self.n_categories} distinct values,"
                f" level {self.level}")
        if self.has_clusters:
            text += f", {len(self.cluster_labels):,} clusters"
        return text + "."

    def __repr__(self) -> str:
        cats = ", ".join(map(str, self.categories[:8])) + (" ..." if self.n_categories > 8 else "")
        lines = [f"RatingsTable({self.n_units:,} units x {self.n_raters:,} raters, {self.n_ratings:,} ratings,"
                 f" level {self.level!r})", f"  values: {cats}",
                 f"  raters: {', '.join(self.raters[:6])}{' ...' if self.n_raters > 6 else ''}"]
        lines += [f"  note: {n}" for n in self.notes[:4]]
        return "\n".join(lines)[:2000]

    def _repr_html_(self) -> str:
        return self.to_frame().head(10).to_html()
