"""The Memory renderer: a body's Markdown source to HTML that is safe to put in the page.

GFM as the spec lists it (headings, emphasis, links, lists, task lists, tables, quotes, code,
strikethrough, images) through markdown-it-py with raw HTML off; its link validation refuses
javascript:, vbscript:, file: and non-image data: URLs. The output is then sanitised with nh3
against an allow-list, so a renderer bug still cannot put a script or an event handler in the
page (and the page's CSP forbids inline script besides).

Remote images are never loaded: an image whose source is not an inline `data:image/...` becomes
a link to it, so opening a memory makes no request to a host its author chose (a tracking pixel
in a shared memory would tell the author who read it, and when). The sanitiser drops any other
image source as well, and the page's CSP allows images only from itself and data: URLs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

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
    "a": {"remote-image"},
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
    """Render, turning table cells' `style="text-align:..."` into classes (the page's CSP
    allows no inline style, and the sanitiser drops style attributes anyway) and remote images
    into links."""
    tokens = md.parse(source)
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            style = token.attrGet("style")
            if isinstance(style, str) and (match := _ALIGN_STYLE.match(style)):
                token.attrs.pop("style", None)
                token.attrSet("class", f"align-{match.group(1)}")
        elif token.type == "inline" and token.children:
            token.children = _remote_images_as_links(token.children)
    return str(md.renderer.render(tokens, md.options, {}))


def _remote_images_as_links(children: list[Token]) -> list[Token]:
    """An image with a source other than an inline raster `data:` URL becomes a link showing
    its alt text (or the URL): the reader sees where it points, the browser fetches nothing.
    Inside a link it becomes that alt text alone (a link cannot hold a link)."""
    from markdown_it.token import Token

    out: list[Token] = []
    depth = 0
    for child in children:
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
        src = child.attrGet("src") if child.type == "image" else None
        if not isinstance(src, str) or _SAFE_IMAGE_DATA.match(src.strip()):
            out.append(child)
            continue
        label = list(child.children or []) or [Token("text", "", 0, content=src)]
        if depth:
            out.extend(label)
            continue
        attrs: dict[str, str | int | float] = {"href": src, "class": "remote-image"}
        attrs["title"] = f"Remote image, not loaded: {src}"
        out.append(Token("link_open", "a", 1, attrs=attrs))
        out.extend(label)
        out.append(Token("link_close", "a", -1))
    return out


def _attribute_filter(tag: str, name: str, value: str) -> str | None:
    """The last word on URLs: only images may carry data: (and only raster images), and an
    image may carry nothing else (no remote image is ever fetched)."""
    if name in ("href", "src"):
        lowered = value.strip().lower()
        if lowered.startswith("data:") and not (tag == "img" and _SAFE_IMAGE_DATA.match(lowered)):
            return None
        if tag == "img" and not _SAFE_IMAGE_DATA.match(lowered):
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
