"""The `ltm eval` chart as a PNG, drawn with PyMuPDF (already shipped for PDFs, so no plotting library is needed)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

METRICS = (("ndcg_10", "nDCG@10"), ("recall_10", "Recall@10"), ("recall_50", "Recall@50"), ("mrr_10", "MRR@10"))
COLOURS = {
    "dense": (0.30, 0.50, 0.80),
    "lexical": (0.85, 0.55, 0.20),
    "hybrid": (0.35, 0.65, 0.35),
    "hybrid+rerank": (0.55, 0.30, 0.65),
}
WIDTH, HEIGHT = 760, 470


def render_eval_chart(report, path: Path) -> Path:
    """Grouped bars (one group per metric, one bar per search mode) plus the verdict figures; returns the path."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    page.draw_rect(page.rect, color=None, fill=(1, 1, 1))
    title = f"ltm eval: {report.dataset} ({report.documents} docs, {report.answerable} answerable / {report.unanswerable} unanswerable questions)"
    page.insert_text((30, 28), title, fontsize=11, fontname="helv")
    left, top, bottom, right = 60, 50, 330, WIDTH - 150
    for i in range(6):  # gridlines at 0, 0.2, ... 1.0
        y = bottom - (bottom - top) * i / 5
        page.draw_line((left, y), (right, y), color=(0.85, 0.85, 0.85), width=0.5)
        page.insert_text((left - 28, y + 3), f"{i / 5:.1f}", fontsize=8, fontname="helv")
    group_w = (right - left) / len(METRICS)
    modes = list(report.modes)
    bar_w = group_w * 0.8 / max(1, len(modes))
    for g, (attr, label) in enumerate(METRICS):
        x0 = left + g * group_w + group_w * 0.1
        for b, m in enumerate(modes):
            value = max(0.0, min(1.0, float(getattr(m, attr))))
            x = x0 + b * bar_w
            y = bottom - (bottom - top) * value
            page.draw_rect(pymupdf.Rect(x + 1, y, x + bar_w - 1, bottom), color=None, fill=COLOURS.get(m.mode, (0.5, 0.5, 0.5)))
            page.insert_text((x + 1, y - 3), f"{value:.2f}", fontsize=6.5, fontname="helv")
        page.insert_text((x0 + group_w * 0.25, bottom + 14), label, fontsize=9, fontname="helv")
    for b, m in enumerate(modes):  # legend
        y = top + 10 + b * 16
        page.draw_rect(pymupdf.Rect(right + 15, y - 8, right + 25, y + 2), color=None, fill=COLOURS.get(m.mode, (0.5, 0.5, 0.5)))
        page.insert_text((right + 30, y), m.mode, fontsize=9, fontname="helv")
    y = bottom + 42
    for v in report.verdicts:
        basis = "reranker" if v.basis == "rerank" else "cosine only"
        mark = "meets" if v.meets_target else "misses"
        rule = f"low < {v.medium_threshold:g} or a detail in no top passage"
        line = (
            f"verdict ({basis}, {rule}): {v.unanswerable_flagged_low:.0%} of unanswerable flagged low "
            f"(target >= 80%), {v.answerable_flagged_low:.0%} of answerable flagged low (target <= 10%): {mark} target"
        )
        page.insert_text((30, y), line, fontsize=8.5, fontname="helv")
        y += 16
    latency = ", ".join(f"{m.mode} p50 {m.latency_p50_ms:.0f} / p95 {m.latency_p95_ms:.0f} ms" for m in modes)
    page.insert_text((30, y + 6), f"search latency: {latency}", fontsize=7.5, fontname="helv")
    path.parent.mkdir(parents=True, exist_ok=True)
    page.get_pixmap(dpi=144).save(str(path))
    doc.close()
    return path
