"""Is a page's text layer real text, or nothing / garbage that needs OCR instead?

Scanned PDFs often carry an empty text layer, or a broken one (bad font encodings give runs of symbols
and replacement characters). Both must go to OCR, or the page silently vanishes from search.
"""

import re

_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
MIN_CHARS = 20


def has_real_text(text: str) -> bool:
    """True when the text looks like language: enough letters, mostly word-like tokens, few odd symbols."""
    stripped = "".join(text.split())
    if len(stripped) < MIN_CHARS:
        return False
    bad = sum(1 for c in stripped if c == "\ufffd" or (ord(c) < 32) or 0xE000 <= ord(c) <= 0xF8FF)
    if bad / len(stripped) > 0.05:
        return False
    letters = sum(1 for c in stripped if c.isalpha())
    if letters / len(stripped) < 0.4:
        return False
    tokens = text.split()
    wordlike = sum(1 for t in tokens if _WORD.search(t))
    return wordlike / max(1, len(tokens)) >= 0.5
