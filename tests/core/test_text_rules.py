from ltm_desktop.core.confidence import RERANK_THRESHOLDS, Thresholds, verdict
from ltm_desktop.core.doc_types import guess_doc_type
from ltm_desktop.core.text_quality import has_real_text


def test_real_text_is_recognised():
    assert has_real_text("The tenant shall pay rent on the first day of each month.")


def test_empty_short_or_garbled_text_layers_need_ocr():
    assert not has_real_text("")
    assert not has_real_text("   \n  12 ")
    assert not has_real_text("\ufffd\ufffd\ufffd" * 20)
    assert not has_real_text("%$#@ 1234 5678 ~~~ ||| ;;; 9999 0000 !!!! ****")
    assert not has_real_text("\ue000\ue001\ue002 " * 20)  # private-use glyphs from broken font encodings


def test_verdict_uses_absolute_scores():
    t = Thresholds(high=5, medium=1)
    assert verdict(7.2, t) == "high"
    assert verdict(2.0, t) == "medium"
    assert verdict(-9.0, t) == "low"
    assert verdict(None, RERANK_THRESHOLDS) == "low"


def test_doc_type_guess_by_name_then_text_then_format():
    assert guess_doc_type("Oak_Street_Lease_2024.pdf", "", "application/pdf") == "lease"
    assert guess_doc_type("scan0001.pdf", "MORTGAGE STATEMENT Loan number 1234", "application/pdf") == "mortgage"
    assert guess_doc_type("x.eml", "", "message/rfc822") == "email"
    assert guess_doc_type("ideas.md", "random thoughts", "text/markdown") == "note"
    assert guess_doc_type("x.pdf", "nothing special here", "application/pdf") == "document"
