"""What the generator produces: documents (with the questions each answers) and questions spanning documents."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Format = Literal["pdf", "scan", "docx", "md", "eml"]
SUFFIX = {"pdf": ".pdf", "scan": ".pdf", "docx": ".docx", "md": ".md", "eml": ".eml"}


@dataclass
class SampleDoc:
    """One document. `blocks` are paragraphs; a block starting with '# ' or '## ' is a heading."""

    doc_id: str
    fmt: Format
    folder: str
    name: str  # file name without suffix
    title: str
    blocks: list[str]
    questions: list[str] = field(default_factory=list)  # answered by this document alone (grade 2)
    headers: dict[str, str] = field(default_factory=dict)  # e-mail headers
    mono: bool = False  # statements and forms print in a fixed-width font
    page_breaks: tuple[int, ...] = ()  # block indexes that start a new page (PDFs)

    @property
    def rel_path(self) -> str:
        return f"files/{self.folder}/{self.name}{SUFFIX[self.fmt]}"

    @property
    def text(self) -> str:
        return "\n\n".join(b.lstrip("#").strip() if b.startswith("#") else b for b in self.blocks)


@dataclass(frozen=True)
class Question:
    """A question and its judged documents (doc id -> grade: 2 answers it, 1 helps); empty: unanswerable."""

    text: str
    relevant: dict[str, int]


def ask(doc: SampleDoc, *questions: str) -> SampleDoc:
    doc.questions.extend(questions)
    return doc
