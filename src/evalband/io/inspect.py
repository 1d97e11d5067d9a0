"""inspect_ai evaluation logs: native ``.eval`` archives and JSON logs, read without inspect_ai.

An ``.eval`` log is a zip archive with ``header.json`` (the eval spec: ``eval.model``, ``eval.task``, results)
and one member per sample and epoch (``samples/<id>_epoch_<n>.json``). Recent inspect_ai versions compress the
members with Zstandard (zip method 93), which :mod:`zipfile` of Python < 3.14 cannot open, so the raw member
bytes are read from the archive and decompressed with the ``zstandard`` package (the ``logs`` extra); deflated
and stored members are read too. A JSON log holds the same fields in one object with a ``samples`` list.

Each sample gives one row: model ``eval.model``, task ``eval.task``, item ``samples[].id``, trial
``samples[].epoch``, score ``samples[].scores[<scorer>].value`` with the letters C/I/P/N read as 1/0/0.5/0,
and optionally a cluster (``cluster_col='metadata.passage'``) or a split of the task into sub-tasks grouped under
it (``group_col='metadata.category'``) from the sample's ``metadata``.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from .._validate import ArgumentError, ArgumentTypeError, InputError
from ..data.table import SCORE_LETTERS, ResultsTable
from .folders import as_label, build_table, check_tabular_unused, field, files_of, load_json, places, \
    require_zstandard
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_inspect", "read_eval_archive"]

_ZSTD = 93
_MAX_MEMBER = 2 ** 31  # refuse absurd sizes from a corrupt header rather than allocating them


NOTE_INSPECT_SCORER_USED = NoteKind('io.inspect-scorer-used', 'info',
                                     'inspect scorer used: {value}{how}')
NOTE_STATUS_ITS_LOGGED_SAMPLES = NoteKind('io.status-its-logged-samples', 'info',
                                           "{name}: status '{status}'; its {n_samples} logged samples are used")


def read_inspect(data, *, metric: str | None = None, cluster_col: str | None = None,
                 group_col: str | None = None, facets=None, unbounded: bool = False, **tabular) -> ResultsTable:
    """Read inspect_ai logs (``.eval`` archives or JSON logs; a file, folder, glob or list) into one table.

    Parameters
    ----------
    data : str, os.PathLike or list
    metric : str, optional
        The scorer whose value to use (e.g. ``match``, ``choice``, ``model_graded_qa``); ``scorer:key`` picks one
        entry of a scorer that returns a dictionary of values. Default: each log's first scorer (noted).
    cluster_col : str, optional
        A sample metadata field used as cluster, written ``metadata.<field>`` (or just ``<field>``).
    group_col : str, optional
        ``metadata.<field>``: split each task into sub-tasks ``<task>/<value>``, grouped under the task. The
        tabular default 'group' is ignored.
    facets : str or list of str, optional
        Sample metadata fields read as facets (label columns of other sources of variation: prompt variant,
        judge, ...), each written ``metadata.<field>`` or ``<field>``; the column is named by the field. Epochs
        are trials, never a facet.
    unbounded : bool
        Declare scores not proportions.

    Returns
    -------
    ResultsTable
        Item level, with trials when any log has several epochs.

    Notes
    -----
    Samples without a value for the scorer (errors, cancelled samples) are skipped and counted. Logs whose
    status is not 'success' are used for the samples they hold, and said so. Two logs giving the same model,
    task, sample and epoch are a conflict and raise :class:`InputError`.

    References
    ----------
    inspect_ai, ``inspect_ai/log/_recorders/eval.py`` (archive layout) and ``scorer/_metric.py`` (value_to_float:
    C = 1, I = 0, P = 0.5, N = 0).
    """
    if group_col == "group":
        group_col = None
    tabular.pop("group_col", None)
    check_tabular_unused(tabular, "inspect")
    cluster_key = _metadata_key(cluster_col, "cluster_col")
    facet_keys = [] if facets is None else [_metadata_key(f, "facets") for f in
                                            ([facets] if isinstance(facets, str) else facets)]
    facet_keys = [f for f in dict.fromkeys(facet_keys) if f not in ("epoch", "trial")]
    if set(facet_keys) & {"model", "task", "item", "score", "cluster", "group"}:
        raise ArgumentError(words("`{arg:facets}` must name metadata fields other than the table's roles; got {facets!r}.", facets=facets))
    group_key = _metadata_key(group_col, "group_col")
    if group_col is not None and not group_col.startswith("metadata."):
        raise ArgumentError(words("`{arg:group_col}` for inspect logs must be 'metadata.<field>'; got {group_col!r}.", group_col=group_col))
    scorer, sub = (metric.split(":", 1) + [None])[:2] if metric else (None, None)
    source, files, skipped = files_of(data, "inspect")
    notes: list[str] = []
    rows = {k: [] for k in ("model", "task", "item", "trial", "score", "where", "group", "cluster", *facet_keys)}
    owner: dict[tuple, tuple] = {}  # (model, task, sample, epoch) -> (log, place in it)
    used_scorers: set = set()
    for path in files:
        if path.suffix.lower() == ".eval":
            header, samples = read_eval_archive(path)
        else:
            header, samples = _read_json_log(path)
        src = str(path)
        spec = field(header, "eval", dict, source=src)
        model = as_label(field(spec, "model", (str,), source=src, path="eval"), what="'eval.model'", source=src)
        task = as_label(field(spec, "task", (str,), source=src, path="eval"), what="'eval.task'", source=src)
        status = header.get("status")
        if samples is None:
            skipped.add(path, "log holds no samples (written with log_samples=False?)")
            continue
        if status not in (None, "success"):
            notes.append(NOTE_STATUS_ITS_LOGGED_SAMPLES(name=path.name, status=status, n_samples=len(samples)))
        use = scorer or _default_scorer(header, samples)
        if use is None:
            skipped.add(path, "no scorer in the log")
            continue
        used_scorers.add(use)
        missing = 0
        for pos, (where, s) in enumerate(samples):
            loc = f"samples[{pos}]" if where is None else where
            row = None if where is None else where
            item = as_label(field(s, "id", (str, int, float), source=src, row=row, path=loc),
                            what=f"'{loc}.id'", source=src, row=row)
            epoch = field(s, "epoch", int, source=src, row=row, path=loc, default=1)
            scores = field(s, "scores", dict, source=src, row=row, path=loc, default=None)
            if scores is None and "score" in s and isinstance(s["score"], dict):
                scores = {use: s["score"]}
            entry = None if scores is None else scores.get(use)
            if entry is None:
                missing += 1
                continue
            value = _value(entry, use, sub, src, row, f"{loc}.scores.{use}")
            if value is None:
                missing += 1
                continue
            meta = field(s, "metadata", dict, source=src, row=row, path=loc, default={})
            sample_task, group = task, None
            if group_key is not None:
                sample_task = f"{task}/{_meta(meta, group_key, src, row, loc)}"
                group = task
            key = (model, sample_task, item, epoch)
            if key in owner:
                raise InputError(f"model '{model}', task '{sample_task}', sample '{item}', epoch {epoch} appears"
                                 f" {places(owner[key][0], path, at=(owner[key][1], loc))}; keep one",
                                 source=source)
            owner[key] = (path, loc)
            rows["model"].append(model)
            rows["task"].append(sample_task)
            rows["item"].append(item)
            rows["trial"].append(epoch)
            rows["score"].append(value)
            rows["where"].append(f"{path.name}:{loc}")
            rows["group"].append(group)
            rows["cluster"].append(None if cluster_key is None else _meta(meta, cluster_key, src, row, loc))
            for f in facet_keys:
                rows[f].append(_meta(meta, f, src, row, loc))
        if missing:
            skipped.add(f"{path.name} ({missing})", f"samples without a '{use}' score (errors or cancelled)")
    if used_scorers:
        how = "" if scorer else " (each log's first scorer; choose with --metric)"
        notes.append(NOTE_INSPECT_SCORER_USED(value=', '.join(sorted(used_scorers)), how=how))
    if group_key is None:
        rows["group"] = None
    if cluster_key is None:
        rows["cluster"] = None
    return build_table(rows, source=source, notes=notes, skipped=skipped, unbounded=unbounded,
                       what="inspect logs", facets=tuple(facet_keys))


def _metadata_key(name, arg):
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip():
        raise ArgumentTypeError(words("`{arg:{arg}}` must be a metadata field name such as 'metadata.passage'; got {name!r}.", arg=arg, name=name))
    return name[len("metadata."):] if name.startswith("metadata.") else name


def _meta(meta: dict, key: str, src, row, loc) -> str:
    if key not in meta or meta[key] is None:
        raise InputError(f"missing '{loc}.metadata.{key}' (available: {', '.join(meta) or 'none'})",
                         source=src, row=row)
    return as_label(meta[key], what=f"'{loc}.metadata.{key}'", source=src, row=row)


def _default_scorer(header: dict, samples) -> str | None:
    spec = header.get("eval") or {}
    scorers = spec.get("scorers")
    if isinstance(scorers, list):
        for s in scorers:
            if isinstance(s, dict) and isinstance(s.get("name"), str):
                return s["name"]
    results = header.get("results")
    if isinstance(results, dict) and isinstance(results.get("scores"), list):
        for s in results["scores"]:
            if isinstance(s, dict) and isinstance(s.get("name"), str):
                return s["name"]
    for _, s in samples:
        if isinstance(s, dict) and isinstance(s.get("scores"), dict) and s["scores"]:
            return next(iter(s["scores"]))
    return None


def _value(entry, scorer, sub, src, row, loc):
    if not isinstance(entry, dict):
        raise InputError(f"'{loc}' must be a score object with a 'value'", source=src, row=row)
    if "value" not in entry:
        raise InputError(f"missing key '{loc}.value'", source=src, row=row)
    value = entry["value"]
    if isinstance(value, dict):
        if sub is None:
            raise InputError(f"scorer '{scorer}' gives several values ({', '.join(map(str, value))}); choose one"
                             f" as --metric {scorer}:<key>", source=src, row=row)
        if sub not in value:
            raise InputError(f"scorer '{scorer}' has no value '{sub}' (has {', '.join(map(str, value))})",
                             source=src, row=row)
        value = value[sub]
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in SCORE_LETTERS:
            return SCORE_LETTERS[value]
        low = value.strip().lower()
        if low in ("true", "yes"):
            return 1.0
        if low in ("false", "no"):
            return 0.0
        try:
            return float(value)
        except ValueError:
            pass
    raise InputError(f"'{loc}.value' {value!r} is not a number, a boolean or one of C/I/P/N"[:240],
                     source=src, row=row)


# ---------------------------------------------------------------------------------------------- JSON logs
def _read_json_log(path: Path):
    doc = load_json(path)
    src = str(path)
    if not isinstance(doc, dict):
        raise InputError("an inspect JSON log must hold a JSON object", source=src)
    field(doc, "eval", dict, source=src)
    samples = field(doc, "samples", list, source=src, default=None)
    if samples is None:
        return doc, None
    return doc, [(None, s) for s in samples]


# ---------------------------------------------------------------------------------------------- .eval archives
def read_eval_archive(path) -> tuple[dict, list | None]:
    """Read an inspect_ai ``.eval`` archive without inspect_ai.

    Returns
    -------
    header, samples : dict, list of (member name, dict) or None
        ``header`` is ``header.json`` (or ``_journal/start.json`` for a log still being written); ``samples``
        holds each ``samples/*.json`` member in archive order, or None when the archive has none.
    """
    path = Path(path)
    src = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or type(exc).__name__})", source=src) from None
    try:
        import io

        zf = zipfile.ZipFile(io.BytesIO(raw))
        infos = zf.infolist()
    except Exception as exc:  # BadZipFile, NotImplementedError (damaged version field), struct.error, ...
        raise InputError(f"not a readable .eval archive ({str(exc) or type(exc).__name__}); is it truncated?",
                         source=src) from None
    names = {i.filename: i for i in infos}
    if "header.json" in names:
        header = load_json(path, _member(raw, names["header.json"], src), member="header.json")
    elif "_journal/start.json" in names:
        header = load_json(path, _member(raw, names["_journal/start.json"], src), member="_journal/start.json")
    else:
        raise InputError("an .eval archive without header.json or _journal/start.json", source=src)
    if not isinstance(header, dict):
        raise InputError("header.json must hold a JSON object", source=f"{src}:header.json")
    members = [i for i in infos if i.filename.startswith("samples/") and i.filename.endswith(".json")]
    if not members:
        return header, None
    samples = []
    for info in members:
        doc = load_json(path, _member(raw, info, src), member=info.filename)
        if not isinstance(doc, dict):
            raise InputError("a sample must be a JSON object", source=f"{src}:{info.filename}")
        samples.append((info.filename, doc))
    return header, samples


def _member(raw: bytes, info: zipfile.ZipInfo, src: str) -> bytes:
    """The uncompressed bytes of one archive member, read from its local header."""
    where = f"{src}:{info.filename}"
    off = info.header_offset
    head = raw[off:off + 30]
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        raise InputError("archive member header is damaged; is the file truncated?", source=where)
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    start = off + 30 + name_len + extra_len
    data = raw[start:start + info.compress_size]
    if len(data) < info.compress_size:
        raise InputError("archive member is cut short; is the file truncated?", source=where)
    if info.file_size > _MAX_MEMBER:
        raise InputError(f"archive member claims {info.file_size:,} bytes", source=where)
    method = info.compress_type
    try:
        if method == zipfile.ZIP_STORED:
            out = data
        elif method == zipfile.ZIP_DEFLATED:
            out = zlib.decompress(data, -15)
        elif method == _ZSTD:
            zstd = require_zstandard()
            out = zstd.ZstdDecompressor().decompressobj().decompress(data)
        else:
            raise InputError(f"archive member compressed with zip method {method}, which is not supported",
                             source=where)
    except InputError:
        raise
    except ImportError:
        raise
    except Exception as exc:  # zlib.error, zstandard.ZstdError
        raise InputError(f"archive member cannot be decompressed ({str(exc).splitlines()[0] if str(exc) else ''})"
                         "; is the file truncated?", source=where) from None
    if len(out) != info.file_size or (zlib.crc32(out) & 0xFFFFFFFF) != info.CRC:
        raise InputError("archive member is damaged (size or checksum mismatch); is the file truncated?",
                         source=where)
    return out
