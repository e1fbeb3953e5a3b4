"""`python -m ltm_desktop.sample_corpus [OUT]`: regenerate the sample corpus (default: resources/sample_corpus)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from ltm_desktop.sample_corpus import SEED, generate_sample_corpus


def main() -> int:
    default = Path(__file__).resolve().parents[2] / "resources" / "sample_corpus"
    parser = argparse.ArgumentParser(prog="python -m ltm_desktop.sample_corpus", description=__doc__)
    parser.add_argument("out", nargs="?", type=Path, default=default)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)  # stale files of an older version must not linger
    docs, questions = generate_sample_corpus(args.out, args.seed)
    print(f"wrote {docs} documents and {questions} questions to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
