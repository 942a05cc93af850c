"""The Memory renderer: a body's Markdown source to HTML that is safe to put in the page.

GFM as the spec lists it (headings, emphasis, links, lists, task lists, tables, quotes, code,
strikethrough, images) through markdown-it-py with raw HTML off; its link validation refuses
javascript:, vbscript:, file: and non-image data: URLs. The output is then sanitised with nh3
against an allow-list, so a renderer bug still cannot put a script or an event handler in the
page (and the page's CSP forbids inline script besides).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_TAGS = {
    *("a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6"),
    *("hr", "i", "img", "input", "li", "ol", "p", "pre", "s", "strong", "sub", "sup"),
    *("table", "tbody", "td", "th", "thead", "tr", "ul"),
}
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "input": {"type", "checked", "disabled"},
    "ol": {"start"},
}
_ALIGN = {"align-left", "align-center", "align-right"}
_CLASSES = {
    "td": _ALIGN,
    "th": _ALIGN,
    "ul": {"contains-task-list"},
    "ol": {"contains-task-list"},
    "li": {"task-list-item"},
    "input": {"task-list-item-checkbox"},
}
_SAFE_IMAGE_DATA = re.compile(r"^data:image/(gif|png|jpeg|webp);", re.IGNORECASE)
_ALIGN_STYLE = re.compile(r"^text-align:(left|center|right)$")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.tasklists import tasklists_plugin

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    return md


def _align_as_class(md: MarkdownIt, source: str) -> str:
    """Render, turning table cells' `style="text-align:..."` into classes: the page's CSP
    allows no inline style, and the sanitiser drops style attributes anyway."""
    tokens = md.parse(source)
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            style = token.attrGet("style")
            if isinstance(style, str) and (match := _ALIGN_STYLE.match(style)):
                token.attrs.pop("style", None)
                token.attrSet("class", f"align-{match.group(1)}")
    return str(md.renderer.render(tokens, md.options, {}))


def _attribute_filter(tag: str, name: str, value: str) -> str | None:
    """The last word on URLs: only images may carry data: (and only raster images)."""
    if name in ("href", "src"):
        lowered = value.strip().lower()
        if lowered.startswith("data:") and not (tag == "img" and _SAFE_IMAGE_DATA.match(lowered)):
            return None
    return value


def render(source: str) -> str:
    """Sanitised HTML for one memory body (Markdown source)."""
    import nh3

    html = _align_as_class(_parser(), source)
    return str(
        nh3.clean(
            html,
            tags=_TAGS,
            clean_content_tags={"script", "style"},
            attributes=_ATTRIBUTES,
            attribute_filter=_attribute_filter,
            url_schemes={"http", "https", "mailto", "data"},
            allowed_classes=_CLASSES,
            link_rel="noopener noreferrer nofollow",
        )
    )
