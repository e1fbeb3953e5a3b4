"""Evaluation datasets in the BEIR layout: corpus.jsonl, queries.jsonl and qrels/<split>.tsv.

A corpus line may name a real file (`"file": "files/lease.pdf"`, relative to the dataset) next to its text:
the eval then ingests that file, so extraction, OCR and chunking are measured too. Queries without a
positive judgement are the unanswerable ones. Every problem names the file and line to fix, because a
dataset with one bad line among thousands is otherwise hopeless to repair.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import InvalidInput


class DatasetError(InvalidInput):
    """A malformed evaluation dataset; the message names the file and line."""


@dataclass(frozen=True)
class CorpusDoc:
    doc_id: str
    title: str
    text: str
    file: Path | None  # a real file to ingest instead of the text


@dataclass(frozen=True)
class EvalQuery:
    query_id: str
    text: str
    relevant: dict[str, int]  # corpus id -> grade (> 0); empty when the corpus cannot answer it

    @property
    def is_answerable(self) -> bool:
        return bool(self.relevant)


@dataclass(frozen=True)
class EvalDataset:
    name: str
    root: Path
    docs: tuple[CorpusDoc, ...]
    queries: tuple[EvalQuery, ...]

    @property
    def answerable(self) -> tuple[EvalQuery, ...]:
        return tuple(q for q in self.queries if q.is_answerable)

    @property
    def unanswerable(self) -> tuple[EvalQuery, ...]:
        return tuple(q for q in self.queries if not q.is_answerable)


def _json_lines(path: Path, display: str) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a bad line is reported with its number."""
    rows: list[tuple[int, dict]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise DatasetError(f"{display}: not UTF-8 text ({e})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            raise DatasetError(f"{display} line {number}: not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(value, dict):
            raise DatasetError(f"{display} line {number}: expected a JSON object, got {type(value).__name__}")
        rows.append((number, value))
    return rows


def _string_field(row: dict, key: str, where: str, required: bool = True) -> str:
    value = row.get(key)
    if value is None and not required:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key == "_id":
        return str(value)  # some BEIR sets store numeric ids
    if not isinstance(value, str) or (required and not value.strip()):
        raise DatasetError(f"{where}: field {key!r} must be a non-empty string (got {value!r})")
    return value


def _load_corpus(root: Path) -> tuple[CorpusDoc, ...]:
    docs: list[CorpusDoc] = []
    seen: set[str] = set()
    resolved_root = root.resolve()
    for number, row in _json_lines(root / "corpus.jsonl", "corpus.jsonl"):
        where = f"corpus.jsonl line {number}"
        doc_id = _string_field(row, "_id", where)
        if doc_id in seen:
            raise DatasetError(f"{where}: duplicate _id {doc_id!r}")
        seen.add(doc_id)
        title = _string_field(row, "title", where, required=False)
        file = None
        if row.get("file") is not None:
            rel = _string_field(row, "file", where)
            file = (root / rel).resolve()
            if not file.is_relative_to(resolved_root):
                raise DatasetError(f"{where}: file {rel!r} lies outside the dataset folder")
            if not file.is_file():
                raise DatasetError(f"{where}: file {rel!r} does not exist in {root}")
        text = _string_field(row, "text", where, required=file is None)
        docs.append(CorpusDoc(doc_id, title, text, file))
    if not docs:
        raise DatasetError("corpus.jsonl: no documents")
    return tuple(docs)


def _load_queries(root: Path) -> dict[str, str]:
    queries: dict[str, str] = {}
    for number, row in _json_lines(root / "queries.jsonl", "queries.jsonl"):
        where = f"queries.jsonl line {number}"
        qid = _string_field(row, "_id", where)
        if qid in queries:
            raise DatasetError(f"{where}: duplicate _id {qid!r}")
        queries[qid] = _string_field(row, "text", where)
    if not queries:
        raise DatasetError("queries.jsonl: no queries")
    return queries


def _load_qrels(path: Path, display: str, queries: dict[str, str], doc_ids: set[str]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        cols = line.rstrip("\r").split("\t")
        if number == 1 and cols[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue  # the BEIR header line
        where = f"{display} line {number}"
        if len(cols) != 3:
            raise DatasetError(f"{where}: expected 3 tab-separated columns (query-id, corpus-id, score), got {len(cols)}")
        qid, doc_id, raw_score = (c.strip() for c in cols)
        try:
            score = int(raw_score)
        except ValueError:
            raise DatasetError(f"{where}: score {raw_score!r} is not an integer") from None
        if qid not in queries:
            raise DatasetError(f"{where}: query id {qid!r} is not in queries.jsonl")
        if doc_id not in doc_ids:
            raise DatasetError(f"{where}: corpus id {doc_id!r} is not in corpus.jsonl")
        if score > 0:
            qrels.setdefault(qid, {})[doc_id] = score
        else:
            qrels.setdefault(qid, {})
    return qrels


def load_beir(root: Path, split: str = "test") -> EvalDataset:
    """Read and check a BEIR-layout dataset folder."""
    if not root.is_dir():
        raise DatasetError(f"{root} is not a folder: give a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/{split}.tsv)")
    qrels_path = root / "qrels" / f"{split}.tsv"
    for path in (root / "corpus.jsonl", root / "queries.jsonl", qrels_path):
        if not path.is_file():
            raise DatasetError(
                f"{path} is missing: a BEIR dataset folder holds corpus.jsonl, queries.jsonl and qrels/{split}.tsv"
            )
    docs = _load_corpus(root)
    queries = _load_queries(root)
    qrels = _load_qrels(qrels_path, f"qrels/{split}.tsv", queries, {d.doc_id for d in docs})
    return EvalDataset(
        name=root.resolve().name,
        root=root,
        docs=docs,
        queries=tuple(EvalQuery(qid, text, qrels.get(qid, {})) for qid, text in queries.items()),
    )


def with_questions(dataset: EvalDataset, folder: Path, split: str = "test") -> EvalDataset:
    """The same corpus with another set of questions: `folder` holds queries.jsonl and qrels/<split>.tsv.

    One ingestion then serves two question sets, e.g. the sample corpus's generated questions and the
    hand-written ones that check a verdict tuned on the first against questions it never saw.
    """
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for path in (folder / "queries.jsonl", qrels_path):
        if not path.is_file():
            raise DatasetError(f"{path} is missing: a question set holds queries.jsonl and qrels/{split}.tsv")
    queries = _load_queries(folder)
    qrels = _load_qrels(qrels_path, f"qrels/{split}.tsv", queries, {d.doc_id for d in dataset.docs})
    return EvalDataset(
        name=f"{dataset.name}+{folder.resolve().name}",
        root=dataset.root,
        docs=dataset.docs,
        queries=tuple(EvalQuery(qid, text, qrels.get(qid, {})) for qid, text in queries.items()),
    )
