"""Readers fuzzed with hypothesis: damaged logs end in one InputError line naming the file, never a traceback.

Each case starts from a real log of each tool and damages it: truncation at any byte, a malformed JSON line,
a value of the wrong type at any place of the parsed JSON, a key removed anywhere. The reader must either read
the result (some damage is harmless, e.g. a removed optional key) or raise :class:`InputError` whose message is
a single line naming the file; any other exception fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalband._validate import InputError
from evalband.io import read

from ..conftest import FIXTURES

LOGS = FIXTURES / "harness_logs"
# CI runs 40 fixed examples per test; EVALBAND_FUZZ_EXAMPLES=1000 runs that many fresh random ones
_EXAMPLES = os.environ.get("EVALBAND_FUZZ_EXAMPLES")
FUZZ = settings(max_examples=int(_EXAMPLES or 40), deadline=None, derandomize=_EXAMPLES is None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                        st.text(max_size=5), st.lists(st.integers(0, 2), max_size=2),
                        st.dictionaries(st.text(max_size=3), st.integers(0, 1), max_size=2))


def _check(path, source, **options):
    try:
        read(path, source=source, **options)
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text
        assert path.name in text or str(path) in text
    # anything else propagates and fails the test


def _paths(obj, prefix=()):
    """Every (path, value) inside a parsed JSON document, depth-first, capped for speed."""
    out = [(prefix, obj)]
    if isinstance(obj, dict):
        for k, v in list(obj.items())[:40]:
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:6]):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _set(doc, path, value):
    if not path:
        return value
    target = doc
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    return doc


def _delete(doc, path):
    if not path:
        return {}
    target = doc
    for p in path[:-1]:
        target = target[p]
    del target[path[-1]]
    return doc


def _small_logs(tmp):
    """One small real log per reader, copied to ``tmp``: (path to damage, path to read, source)."""
    cases = []
    lm = tmp / "lm"
    shutil.copytree(LOGS / "lm_eval", lm)
    cases += [(next(lm.glob("samples_*.jsonl")), lm, "lm-eval"), (next(lm.glob("results_*.json")), lm, "lm-eval")]
    ins = tmp / "ins"
    ins.mkdir()
    shutil.copy(LOGS / "inspect" / "data_pubmedqa_gpt4o_mini.json", ins / "log.json")
    cases.append((ins / "log.json", ins / "log.json", "inspect"))
    helm = tmp / "helm"
    shutil.copytree(LOGS / "helm" / "narrative_qa-model=openai_gpt2", helm)
    cases += [(helm / "per_instance_stats.json", helm, "helm"), (helm / "run_spec.json", helm, "helm")]
    rl = tmp / "rl"
    rl.mkdir()
    (rl / "Algo.json").write_text(json.dumps({"Pong": [1.0, 2.0, -3.5], "Alien": [200.0, 250.0]}))
    cases.append((rl / "Algo.json", rl / "Algo.json", "rliable"))
    return cases


@pytest.fixture
def logs(tmp_path):
    return _small_logs(tmp_path)


@FUZZ
@given(case=st.integers(0, 5), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_files(logs, case, cut):
    damaged, target, source = logs[case]
    original = damaged.read_bytes()
    try:
        damaged.write_bytes(original[: int(len(original) * cut)])
        _check(target, source)
    finally:
        damaged.write_bytes(original)


@FUZZ
@given(case=st.integers(0, 5), pick=st.integers(0, 10 ** 6), value=JSON_VALUES, delete=st.booleans())
def test_wrong_types_and_missing_keys(logs, case, pick, value, delete):
    damaged, target, source = logs[case]
    original = damaged.read_bytes()
    try:
        if damaged.suffix == ".jsonl":
            lines = original.decode().splitlines()
            i = pick % len(lines)
            doc = json.loads(lines[i])
            paths = _paths(doc)
            path = paths[(pick // len(lines)) % len(paths)][0]
            doc = _delete(doc, path) if delete and path else _set(doc, path, value)
            lines[i] = json.dumps(doc)
            damaged.write_text("\n".join(lines) + "\n")
        else:
            doc = json.loads(original)
            paths = _paths(doc)
            path = paths[pick % len(paths)][0]
            doc = _delete(doc, path) if delete and path else _set(doc, path, value)
            damaged.write_text(json.dumps(doc))
        _check(target, source)
    finally:
        damaged.write_bytes(original)


@FUZZ
@given(pick=st.integers(0, 100), junk=st.text(min_size=1, max_size=12).filter(lambda s: s.strip() != ""))
def test_malformed_json_lines(logs, pick, junk):
    damaged, target, source = logs[0]
    original = damaged.read_bytes()
    try:
        lines = original.decode().splitlines()
        lines.insert(pick % (len(lines) + 1), junk)
        damaged.write_text("\n".join(lines) + "\n")
        try:
            json.loads(junk)
            parsable = True
        except ValueError:
            parsable = False
        if parsable:
            _check(target, source)
        else:
            with pytest.raises(InputError, match=r"line \d+: malformed JSON line"):
                read(target, source=source)
    finally:
        damaged.write_bytes(original)


@FUZZ
@given(cut=st.floats(0, 1, exclude_max=True), flip=st.integers(0, 10 ** 6))
def test_damaged_eval_archives(tmp_path, cut, flip):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    src = sorted((LOGS / "inspect_eval").glob("*.eval"))[0]
    data = bytearray(src.read_bytes())
    path = tmp_path / "log.eval"
    path.write_bytes(bytes(data[: int(len(data) * cut)]))
    _check(path, "inspect")
    data[flip % len(data)] ^= 0xFF
    path.write_bytes(bytes(data))
    _check(path, "inspect")


def test_eval_archive_with_a_bad_sample_names_the_member(tmp_path):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    src = sorted((LOGS / "inspect_eval").glob("*.eval"))[0]
    from evalband.io.inspect import read_eval_archive

    header, _ = read_eval_archive(src)
    path = tmp_path / "x.eval"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps(header))
        zf.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": "one", "scores": {}}))
    with pytest.raises(InputError, match=r"x.eval, samples/1_epoch_1.json: 'samples/1_epoch_1.json.epoch' must"):
        read(path)


@FUZZ
@given(which=st.integers(0, 18), pick=st.integers(0, 10 ** 6), value=JSON_VALUES, delete=st.booleans())
def test_wrong_types_inside_eval_archives(tmp_path, which, pick, value, delete):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    from evalband.io.inspect import read_eval_archive

    src = sorted((LOGS / "inspect_eval").glob("*.eval"))[0]
    header, samples = read_eval_archive(src)
    members = [("header.json", header)] + samples
    name, doc = members[which % len(members)]
    paths = _paths(doc)
    path = paths[pick % len(paths)][0]
    doc = _delete(doc, path) if delete and path else _set(doc, path, value)
    members[which % len(members)] = (name, doc)
    out = tmp_path / "mut.eval"
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for n, d in members:
            zf.writestr(n, json.dumps(d))
    _check(out, "inspect")
