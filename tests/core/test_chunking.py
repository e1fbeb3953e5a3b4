from ltm_desktop.core.chunking import ChunkSizes, chunk_pages, embedding_text
from ltm_desktop.core.models import PageText


def _pages(*texts: str) -> tuple[PageText, ...]:
    return tuple(PageText(i + 1, t, "text") for i, t in enumerate(texts))


def test_chunks_keep_pages_and_never_cross_a_page_break():
    pages = _pages("Alpha paragraph one.\n\nAlpha paragraph two.\n\n", "Beta paragraph on page two.\n\n")
    chunks = chunk_pages(pages)
    assert [(c.page_from, c.page_to) for c in chunks] == [(1, 1), (2, 2)]
    assert "Beta" not in chunks[0].text and "Alpha" not in chunks[1].text


def test_offsets_point_into_the_concatenated_page_text():
    pages = _pages("Intro line here.\n\n", "Second page body text.\n\n")
    full = "".join(p.text for p in pages)
    for c in chunk_pages(pages):
        assert full[c.char_start : c.char_end] in c.text


def test_heading_path_names_the_section_a_chunk_starts_in():
    text = "# Lease\n\nIntro.\n\n## Renewal\n\n" + ("The lease renews each March. " * 40) + "\n\n## Rent\n\n" + ("Rent is due monthly. " * 40)
    chunks = chunk_pages(_pages(text), ChunkSizes(target=600, maximum=900, overlap=0))
    headings = {c.heading for c in chunks}
    assert "Lease > Renewal" in headings and "Lease > Rent" in headings
    assert all("Rent is due" not in c.text for c in chunks if c.heading == "Lease > Renewal")


def test_split_on_headings_gives_one_chunk_per_section():
    text = "# A\n\nshort a.\n\n# B\n\nshort b.\n\n# C\n\nshort c.\n"
    chunks = chunk_pages(_pages(text), split_on_headings=True)
    assert [c.heading for c in chunks] == ["A", "B", "C"]


def test_long_paragraph_is_split_at_sentences_within_maximum_with_overlap():
    sentence = "Payment of the monthly rent is due on the first day of each month without demand. "
    chunks = chunk_pages(_pages(sentence * 60), ChunkSizes(target=500, maximum=700, overlap=120))
    assert len(chunks) > 3
    assert all(len(c.text) <= 700 + 120 + 2 for c in chunks)
    # The overlap repeats the end of the previous chunk at the start of the next.
    assert any(chunks[i].text[:40] in chunks[i - 1].text for i in range(1, len(chunks)))


def test_empty_text_gives_no_chunks():
    assert chunk_pages(_pages("   \n\n  ")) == []


def test_embedding_text_carries_title_and_heading():
    [chunk] = chunk_pages(_pages("# Rent\n\nDue monthly.\n"))
    assert embedding_text("Oak lease", chunk) == "Oak lease > Rent\nDue monthly."
