"""Readers of the public preference-leaderboard formats: Chatbot Arena (FastChat), Arena-Hard, AlpacaEval.

* **Chatbot Arena / FastChat clean battles** (``clean_battle_*.json``, FastChat ``clean_battle_data.py``): a JSON
  array of records with ``model_a``, ``model_b``, ``winner`` (``model_a``, ``model_b``, ``tie``,
  ``tie (bothbad)``), ``question_id``, ``judge``, ``turn``, ``anony``, ``tstamp`` and, once FastChat's
  ``add_markdown_info.py`` has run, ``conv_metadata`` with ``sum_assistant_a_tokens`` / ``_b_tokens``,
  ``header_count_a`` / ``_b`` (counts per level), ``list_count_a`` / ``_b`` and ``bold_count_a`` / ``_b``: the
  style features ``length``, ``header_count``, ``list_count``, ``bold_count``. As FastChat does for its
  leaderboard, only anonymous battles are kept (``anonymous_only=True``; the others are counted) and battles are
  put in time order.
* **Arena-Hard judgments** (``data/<bench>/model_judgment/<judge>/<model>.jsonl``): one line per question and
  model with ``question_id`` (v0.1) or ``uid`` (v2), ``model``, ``judge`` and ``games``, two games with swapped
  positions: in game 1 the baseline is A and the model B, in game 2 the model is A. Each game's ``score`` is one
  of ``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A`` (v2 also writes ``A<B``, ``B<A``, ``A<<B``, ``B<<A``,
  ``B=A``); a strong vote (``>>``) counts ``strong_weight`` times (3, as Arena-Hard). Games without a score are
  left out and counted. The files do not name the baseline: give ``baseline=`` (``gpt-4-0314`` in v0.1).
* **AlpacaEval annotations** (``results/<model>/<annotator>/annotations.json``): records with ``instruction``,
  ``generator_1`` (the baseline, ``output_1``), ``generator_2`` (the evaluated model, ``output_2``),
  ``annotator`` and ``preference`` in [1, 2] (1: output_1 better, 2: output_2 better, 1.5: a draw; 0 is read as
  1.5 as AlpacaEval does). Answer lengths in characters are the ``length`` feature. Records without a
  preference, and the baseline's annotations against itself, are left out and counted (AlpacaEval drops them
  too); a preference outside [1, 2] is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._cells import check_cells
from .._validate import ArgumentError, InputError
from .battles import battles_from_frame
from ..data.battles import partial_style_error
from ..display.notes import NoteKind
from .._words import words

if TYPE_CHECKING:  # pragma: no cover
    from ..data.battles import BattleTable

__all__ = ["read_fastchat", "read_arena_hard", "read_alpaca_eval", "READERS", "ARENA_HARD_LABELS"]

#: Arena-Hard game labels -> (A's score, strong vote)
ARENA_HARD_LABELS = {"A>>B": (1.0, True), "A>B": (1.0, False), "A=B": (0.5, False), "B=A": (0.5, False),
                     "B>A": (0.0, False), "B>>A": (0.0, True), "A<B": (0.0, False), "A<<B": (0.0, True),
                     "B<A": (1.0, False), "B<<A": (1.0, True)}
#: FastChat's conv_metadata fields -> style feature names
FASTCHAT_STYLE = {"length": "sum_assistant_{}_tokens", "header_count": "header_count_{}",
                  "list_count": "list_count_{}", "bold_count": "bold_count_{}"}


def _count(value) -> float:
    """A conv_metadata entry: a number, or a dict of counts (summed, as FastChat's style control does)."""
    if isinstance(value, dict):
        return float(sum(float(v) for v in value.values()))
    return float(value)


NOTE_NON_ANONYMOUS_BATTLES_LEFT = NoteKind(
    'io.non-anonymous-battles-left', 'excluded',
    '{value:,} non-anonymous battles left out (FastChat ranks anonymous battles only; anonymous_only=False keeps '
    'them)')
NOTE_BATTLES_PUT_TIME_ORDER = NoteKind('io.battles-put-time-order', 'info',
                                        'battles put in time order (tstamp), as FastChat does before online Elo')


#: some battles carry FastChat's style counts and others do not: the battles are read without style features (a
#: style model needs them on every battle; preferences.core says so when one is asked for)
NOTE_PARTIAL_CONV_METADATA = NoteKind(
    "io.partial-conv-metadata", "excluded", "{n_missing:,} of {n:,} battles have no conv_metadata (style counts; at"
    " {at}{more}): no style features read, since style control (`{arg:style}`) needs them on every battle")


def read_fastchat(records, where, source: str, *, anonymous_only: bool = True, style_cols=None) -> "BattleTable":
    """Chatbot Arena / FastChat clean battle records -> BattleTable (see the module docs)."""
    frame = pd.DataFrame.from_records(records)
    frame.index = pd.Index(where, dtype=object)
    notes = []
    if anonymous_only and "anony" in frame.columns:
        anony = frame["anony"].astype(bool).to_numpy()
        if (~anony).any():
            notes.append(NOTE_NON_ANONYMOUS_BATTLES_LEFT(value=int((~anony).sum())))
            frame = frame.loc[anony]
    if "tstamp" in frame.columns:
        ts = pd.to_numeric(frame["tstamp"], errors="coerce")
        if not ts.isna().any() and not ts.is_monotonic_increasing:
            frame = frame.iloc[np.argsort(ts.to_numpy(), kind="stable")]
            notes.append(NOTE_BATTLES_PUT_TIME_ORDER())
    if "conv_metadata" in frame.columns:
        meta = frame["conv_metadata"]
        missing = np.flatnonzero([not isinstance(m, dict) for m in meta])
        if missing.size == len(meta):
            pass
        elif missing.size:  # style counts on some battles only: the battles are read, no style feature is
            note = NOTE_PARTIAL_CONV_METADATA(n_missing=int(missing.size), n=len(meta),
                                              at=", ".join(str(frame.index[i]) for i in missing[:5]),
                                              more=" ..." if missing.size > 5 else "")
            if style_cols is not None:  # style control asked for at read time (the command line's --style)
                raise InputError(partial_style_error(note.params), source=source)
            notes.append(note)
        else:
            for name, pattern in FASTCHAT_STYLE.items():
                for side in ("a", "b"):
                    key = pattern.format(side)
                    try:
                        frame[f"{name}_{side}"] = [_count(m[key]) for m in meta]
                    except (KeyError, TypeError, ValueError):
                        bad = next(i for i, m in enumerate(meta) if not _has_number(m, key))
                        raise InputError(f"conv_metadata has no count {key!r}", source=source,
                                         row=str(frame.index[bad]), column="conv_metadata") from None
    keep = [c for c in frame.columns if c in ("model_a", "model_b", "winner", "question_id", "judge", "turn")
            or c.endswith(("_a", "_b")) and c[:-2] in FASTCHAT_STYLE]
    return battles_from_frame(frame[keep], source=source, row_word="at", style_cols=style_cols, notes=notes)


def _has_number(meta, key) -> bool:
    try:
        _count(meta[key])
        return True
    except (KeyError, TypeError, ValueError):
        return False


NOTE_ARENA_HARD_GAMES_WITHOUT = NoteKind('io.arena-hard-games-without', 'excluded',
                                          '{left:,} Arena-Hard games without a score left out')
NOTE_STRONG_VOTES_B_B = NoteKind('io.strong-votes-b-b', 'info',
                                  'strong votes (A>>B, B>>A) count {strong_weight:g} times, as in Arena-Hard')


def read_arena_hard(records, where, source: str, *, baseline: str | None = None, strong_weight: float = 3,
                    style_cols=None) -> "BattleTable":
    """Arena-Hard judgment records -> BattleTable: two battles per record, one per game (see the module docs)."""
    if isinstance(strong_weight, bool) or not isinstance(strong_weight, (int, float)) or not strong_weight >= 1:
        raise ArgumentError(f"`strong_weight` must be a number >= 1; got {strong_weight!r}.")
    rows = {"model_a": [], "model_b": [], "winner": [], "question_id": [], "judge": [], "weight": []}
    labels, left = [], 0
    for rec, at in zip(records, where):
        base = baseline if baseline is not None else rec.get("baseline")
        if base is None:
            raise InputError(words("Arena-Hard judgments do not name the baseline model: give {arg:baseline=} (arena-hard-v0.1 used 'gpt-4-0314')"), source=source, row=at)
        model = rec.get("model")
        question = rec.get("question_id", rec.get("uid"))
        if model is None or question is None:
            raise InputError("an Arena-Hard judgment needs 'model' and 'question_id' (or 'uid')", source=source,
                             row=at, column="model" if model is None else "question_id")
        games = rec.get("games")
        if not isinstance(games, (list, tuple)) or not games:
            raise InputError("'games' must be a list of one or two games", source=source, row=at, column="games")
        for g, game in enumerate(games[:2]):
            score = game.get("score") if isinstance(game, dict) else None
            if score is None:
                left += 1
                continue
            if str(score).strip() not in ARENA_HARD_LABELS:
                raise InputError(f"game score {score!r} is none of {', '.join(ARENA_HARD_LABELS)}", source=source,
                                 row=at, column=f"games[{g}].score")
            y, strong = ARENA_HARD_LABELS[str(score).strip()]
            first, second = (base, model) if g == 0 else (model, base)
            rows["model_a"].append(first)
            rows["model_b"].append(second)
            rows["winner"].append(y)
            rows["question_id"].append(question)
            rows["judge"].append(rec.get("judge", "judge"))
            rows["weight"].append(float(strong_weight) if strong else 1.0)
            labels.append(f"{at}, games[{g}]")
    if not labels:
        raise InputError("holds no scored Arena-Hard game", source=source)
    notes = []
    if left:
        notes.append(NOTE_ARENA_HARD_GAMES_WITHOUT(left=left))
    if any(w > 1 for w in rows["weight"]):
        notes.append(NOTE_STRONG_VOTES_B_B(strong_weight=strong_weight))
    _as_text(rows, labels, source, {"model_a": "model", "model_b": "model", "question_id": "question_id",
                                    "judge": "judge"})
    frame = pd.DataFrame(rows, index=pd.Index(labels, dtype=object))
    return battles_from_frame(frame, source=source, row_word="at", style_cols=style_cols, notes=notes)


NOTE_ALPACAEVAL_ANNOTATIONS_WITHOUT_PREFERENCE = NoteKind(
    'io.alpacaeval-annotations-without-preference', 'excluded',
    '{no_pref:,} AlpacaEval annotations without a preference left out (as AlpacaEval drops them)')
NOTE_ANNOTATIONS_BASELINE_AGAINST_ITSELF = NoteKind(
    'io.annotations-baseline-against-itself', 'excluded',
    '{self_rows:,} annotations of the baseline against itself left out (its win rate is 0.5 by definition)')


def read_alpaca_eval(records, where, source: str, *, style_cols=None) -> "BattleTable":
    """AlpacaEval annotation records -> BattleTable (A = generator_1, the baseline; see the module docs)."""
    rows = {"model_a": [], "model_b": [], "winner": [], "question_id": [], "judge": [], "length_a": [],
            "length_b": []}
    labels, no_pref, self_rows = [], 0, 0
    has_outputs = all(isinstance(r.get("output_1"), str) and isinstance(r.get("output_2"), str) for r in records)
    for rec, at in zip(records, where):
        for key in ("generator_1", "generator_2"):
            if rec.get(key) in (None, ""):
                raise InputError(f"an AlpacaEval annotation needs {key!r}", source=source, row=at, column=key)
        pref = rec.get("preference")
        try:
            p = float(pref) if pref is not None else float("nan")
        except (TypeError, ValueError):
            raise InputError(f"preference {pref!r} is not a number in [1, 2]", source=source, row=at,
                             column="preference") from None
        if np.isnan(p):
            no_pref += 1
            continue
        if p == 0:
            p = 1.5  # AlpacaEval's old encoding of a draw
        if not 1 <= p <= 2:
            raise InputError(f"preference {p!r} lies outside [1, 2] (1: output_1 better, 2: output_2 better)",
                             source=source, row=at, column="preference")
        for key in ("generator_1", "generator_2"):
            check_cells([rec[key]], key, source=source, where=lambda _: at, expected="text")
        if str(rec["generator_1"]) == str(rec["generator_2"]):
            self_rows += 1
            continue
        rows["model_a"].append(rec["generator_1"])
        rows["model_b"].append(rec["generator_2"])
        rows["winner"].append(2.0 - p)
        rows["question_id"].append(rec.get("instruction", rec.get("question_id")))
        rows["judge"].append(rec.get("annotator", "annotator"))
        if has_outputs:
            rows["length_a"].append(float(len(rec["output_1"])))
            rows["length_b"].append(float(len(rec["output_2"])))
        labels.append(at)
    notes = []
    if no_pref:
        notes.append(NOTE_ALPACAEVAL_ANNOTATIONS_WITHOUT_PREFERENCE(no_pref=no_pref))
    if self_rows:
        notes.append(NOTE_ANNOTATIONS_BASELINE_AGAINST_ITSELF(self_rows=self_rows))
    if not labels:
        raise InputError("holds no AlpacaEval annotation with a preference between two different models",
                         source=source)
    if not has_outputs:
        rows.pop("length_a")
        rows.pop("length_b")
    if all(q is None for q in rows["question_id"]):
        rows.pop("question_id")
    _as_text(rows, labels, source, {"model_a": "generator_1", "model_b": "generator_2", "question_id":
                                    "instruction", "judge": "annotator"})
    frame = pd.DataFrame(rows, index=pd.Index(labels, dtype=object))
    return battles_from_frame(frame, source=source, row_word="at", style_cols=style_cols, notes=notes)


def _as_text(rows: dict, labels: list, source: str, fields: dict) -> None:
    """The label lists of ``rows`` as text, in place (missing stays None), after refusing a nested value (an object
    or a list where a name belongs, :mod:`evalband._cells`) naming the record and its field."""
    for key, name in fields.items():
        if key in rows:
            check_cells(rows[key], name, source=source, where=lambda pos: labels[pos], column=name)
            rows[key] = [None if v is None else str(v) for v in rows[key]]


READERS = {"fastchat": read_fastchat, "arena-hard": read_arena_hard, "alpaca-eval": read_alpaca_eval}
