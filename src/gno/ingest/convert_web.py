"""Converters for HTML and EPUB: the page's content as markdown (BeautifulSoup + markdownify).

Scripts, styles and navigation chrome are dropped before conversion; the page's `<title>` becomes
the document's `# ` heading when the body has none. An EPUB is its spine's chapters in reading
order, each converted as a page. Runs in the conversion worker.
"""

from __future__ import annotations

import posixpath
import zipfile
from typing import Any
from xml.etree import ElementTree

from gno.ingest.converters import Budget, Refused
from gno.ingest.problems import IngestCode

DROP = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav", "header", "footer")


def html_to_markdown(markup: bytes | str, *, keep_title: bool = True) -> str:
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    soup = BeautifulSoup(markup, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(list(DROP)):
        tag.decompose()
    root: Any = soup.find("main") or soup.find("article") or soup.body or soup
    md = str(markdownify(str(root), heading_style="ATX", bullets="-", strip=["img"]))
    lines = [ln.rstrip() for ln in md.split("\n")]
    text, blank = [], 0
    for ln in lines:  # markdownify leaves runs of blank lines where blocks were dropped
        blank = blank + 1 if not ln else 0
        if blank < 2:
            text.append(ln)
    body = "\n".join(text).strip()
    if keep_title and title and not any(ln.startswith("# ") for ln in text):
        body = f"# {title}\n\n{body}"
    return body + "\n"


def html(path: str, budget: Budget) -> str:
    with open(path, "rb") as fh:
        return html_to_markdown(fh.read())


_NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def epub(path: str, budget: Budget) -> str:
    if not zipfile.is_zipfile(path):
        raise Refused(IngestCode.CONVERT_FAILED, "not an EPUB (no zip signature)")
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        if "META-INF/encryption.xml" in names:
            raise Refused(IngestCode.ENCRYPTED, "the EPUB's content is encrypted (DRM)")
        container = ElementTree.fromstring(zf.read("META-INF/container.xml"))
        rootfile = container.find(".//c:rootfile", _NS)
        if rootfile is None:
            raise Refused(IngestCode.CONVERT_FAILED, "EPUB without a package document")
        opf_path = rootfile.get("full-path", "")
        opf = ElementTree.fromstring(zf.read(opf_path))
        base = posixpath.dirname(opf_path)
        title = opf.findtext(".//dc:title", default="", namespaces=_NS).strip()
        authors = [a.text.strip() for a in opf.findall(".//dc:creator", _NS) if a.text]
        manifest = {i.get("id"): i.get("href", "") for i in opf.findall(".//opf:manifest/opf:item", _NS)}
        parts = [f"# {title}" if title else ""]
        if authors:
            parts.append("**Authors:** " + ", ".join(authors))
        spent = 0
        for ref in opf.findall(".//opf:spine/opf:itemref", _NS):
            href = manifest.get(ref.get("idref"))
            member = posixpath.normpath(posixpath.join(base, href)) if href else ""
            if member not in names:
                continue
            chapter = html_to_markdown(zf.read(member), keep_title=False).strip()
            if chapter:
                parts.append(chapter)
                spent += len(chapter)
            if spent > budget.max_chars:
                break
    return "\n\n".join(p for p in parts if p) + "\n"
