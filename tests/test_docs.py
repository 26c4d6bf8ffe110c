"""README.md and docs/: the README stays a page a newcomer reads in minutes, every relative link
(and its #anchor) of README.md and docs/*.md leads somewhere, and the generated pages are written
in one pass (gen/report/tables.py update_pages). That the generated tables match out/ is
tests/test_drops.py's."""
import re
from pathlib import Path

import pytest

from gen.report import tables as report

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _headings(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to '-',
    a repeated one suffixed -1, -2, ..."""
    seen, out = {}, set()
    for line in FENCE.sub("", text).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(page: Path):
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):       # https:, mailto:: not ours to check
            continue
        yield target


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines: move the detail into docs/"
    assert lines[0] == "# slicegen" and lines[3].startswith("make ") and lines[4].startswith("make test")  # SPEC §1


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_somewhere(page):
    bad = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
        elif anchor and dest.suffix == ".md" and anchor not in _headings(dest.read_text()):
            bad.append(f"{target}: {dest.name} has no heading #{anchor}")
    assert not bad, "\n".join(bad)


def test_docs_index_links_every_page():
    index = (ROOT / "docs" / "README.md").read_text()
    linked = {t.partition("#")[0] for t in _links(ROOT / "docs" / "README.md")}
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md"))
               if p.name != "README.md" and p.name not in linked]
    assert not missing, f"docs/README.md does not link {missing}"
    assert index.startswith("# ")


def test_update_pages_one_pass(tmp_path):
    """Every page regenerated from the same manifests, twice: the second run writes nothing; a page
    without its markers fails the run before any file is written."""
    ms = report.load_manifests(ROOT / "out")
    docs = tmp_path / "docs"
    docs.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\n\n{report.DROPS_START}\nold\n{report.DROPS_END}\ntail\n")
    for name, sections in report.DOCS_PAGES.items():
        marks = "".join(f"{report.SECTIONS[s][0]}\nold\n{report.SECTIONS[s][1]}\n" for s in sections)
        (docs / name).write_text(f"# {name}\n\n{marks}tail\n")
    changed = report.update_pages(readme, docs, ms)
    assert readme in changed and all(docs / name in changed for name in report.DOCS_PAGES)
    texts = {p: p.read_text() for p in [readme, *docs.iterdir()]}
    assert "old" not in texts[readme] and texts[readme].endswith(f"{report.DROPS_END}\ntail\n")
    # one row per core and cipher with a constant-time drop; each row's fastest is the group's
    groups = {(report._choice_core(m), report._cipher_title(m)) for m in ms
              if m.get("constant_time") and report.headline_cpb(m) is not None and not m.get("multikey_of")}
    rows = [line for line in texts[readme].splitlines() if line.startswith("| ") and "`" in line]
    # a multi-key drop (issue 32): a row of its own, its figure per key size
    multi = [r for r in rows if " | AES-GCM, " in r]
    assert {r.split("`")[1] for r in multi} == {m["multikey_of"] for m in ms if m.get("multikey_of")}
    assert all(len(r.split(" | ")[3].split(" / ")) == 3 for r in multi)
    rows = [r for r in rows if r not in multi]
    assert len(rows) == len(groups) and {tuple(r.split(" | ")[:2]) for r in rows} == \
        {(f"| {core}", cipher) for core, cipher in groups}
    by_name = {m["name"]: m for m in ms}
    for r in rows:
        fastest = r.split("`")[1]
        assert by_name[fastest]["constant_time"]
        same = [m for m in ms if (report._choice_core(m), report._cipher_title(m)) ==
                (report._choice_core(by_name[fastest]), report._cipher_title(by_name[fastest]))
                and m.get("constant_time")]
        assert report.headline_cpb(by_name[fastest]) == min(report.headline_cpb(m) for m in same)
    assert not any(f"`{m['name']}`" in texts[readme] for m in ms if not m.get("constant_time"))
    assert report.update_pages(readme, docs, ms) == []
    assert {p: p.read_text() for p in [readme, *docs.iterdir()]} == texts
    (docs / "presets.md").write_text("# no markers\n")
    readme.write_text(f"{report.DROPS_START}\n{report.DROPS_END}\n")
    with pytest.raises(ValueError, match="markers"):
        report.update_pages(readme, docs, ms)
    assert readme.read_text() == f"{report.DROPS_START}\n{report.DROPS_END}\n"
