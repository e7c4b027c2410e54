"""Reading pages as a browser would: an HTML fragment's words, the board's move list, the values
a form submits."""

import re
from html import unescape
from html.parser import HTMLParser


def text(html: str) -> str:
    """The words of an HTML fragment, spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def log_items(content: str) -> list[tuple[str, str]]:
    """(class, text) of each item of the move list, in order."""
    start = content.index('<ol class="move-log')
    log = content[start : content.index("</ol>", start)]
    return [
        (m.group(1), text(m.group(2)))
        for m in re.finditer(r'<li class="([^"]*)"[^>]*>(.*?)</li>', log, re.S)
    ]


class _FormFields(HTMLParser):
    """The values a browser submits for the form `form_id` when nothing is changed: text inputs'
    values, checked radios and checkboxes, each select's selected option (else its first)."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, str] = {}
        self.select: str | None = None
        self.select_first: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox"):
                if "checked" in a:
                    self.data[name] = a.get("value") or "on"
            elif kind != "submit":
                self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self.select, self.select_first = name, None
        elif tag == "option" and self.select:
            value = a.get("value") or ""
            if self.select_first is None:
                self.select_first = value
                self.data.setdefault(self.select, value)
            if "selected" in a:
                self.data[self.select] = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None


def form_defaults(html: str, form_id: str) -> dict[str, str]:
    parser = _FormFields(form_id)
    parser.feed(html)
    return parser.data
