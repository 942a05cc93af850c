"""Pure revision-chain logic: validation, content hashes, revision ids, the rows a mutation writes.

No I/O here. The store commits what these functions plan in one `merge_insert`; the service
retries the plan when a concurrent writer wins the compare-and-swap.

Chain shape for a memory at revision 3:

    <id>/<rid1> (rev 1) -> <id>/<rid2> (rev 2) -> <id> (rev 3, live)

Each archived row's `next` points at its successor's key (the live key `<id>` for the newest
archive); the live row's `previous` points at the newest archive. A delete turns the live row
into a final archive whose `next` is null.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import unicodedata
from dataclasses import replace
from datetime import datetime

from graphit_cli.core.ids import validate_ulid
from graphit_cli.core.models import DEFAULT_TYPE, MEMORY_TYPES, Memory, MemoryDraft
from graphit_cli.errors import InvalidInput

MAX_TITLE = 300
MAX_BODY = 1_000_000
MAX_TAG = 64
MAX_TAGS = 64
# Letters, digits and a few joiners (c++, c#, node.js, team/backend, area:ci). No quotes,
# spaces, `%` or `;`, and no `--`: tags end up inside LanceDB filters, where they are also
# quoted, but refusing them keeps every tag printable and greppable as written.
_TAG = re.compile(r"^\w[\w.+#/:@-]*$")


# --- validation ---------------------------------------------------------------------------


def validate_id(value: str) -> str:
    return validate_ulid(value, "memory id")


def parse_ref(ref: str) -> tuple[str, str]:
    """Split `<id>` or `<id>/<revision_id>` into (id, revision_id or "")."""
    head, sep, tail = ref.strip().partition("/")
    memory_id = validate_id(head)
    if not sep:
        return memory_id, ""
    if "/" in tail:
        raise InvalidInput(f"invalid reference {ref!r}: expected <id> or <id>/<revision-id>")
    return memory_id, validate_id(tail) if tail else ""


def nfc(text: str) -> str:
    """`text` in Unicode's composed form (NFC): the same words typed as composed or decomposed
    characters ("é" as one code point, or "e" and a combining accent) are one text, one content
    hash, one memory. Checked first: a text already composed (nearly all) is returned as is."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def validate_title(value: str) -> str:
    title = nfc(" ".join(value.split()))  # one line: YAML frontmatter and tables stay intact
    if not title:
        raise InvalidInput("title must not be empty")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in title):
        raise InvalidInput("title must not contain control characters or lone surrogates")
    if len(title) > MAX_TITLE:
        raise InvalidInput(f"title is {len(title)} characters long; at most {MAX_TITLE}")
    return title


def normalise_body(value: str) -> str:
    body = value.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()
    if not body.strip():
        raise InvalidInput("body must not be empty")
    try:
        body.encode("utf-8")  # fails exactly on lone surrogates; C speed on long bodies
    except UnicodeEncodeError:
        raise InvalidInput("body must be valid Unicode text (it holds a lone surrogate)") from None
    body = nfc(body)
    if len(body) > MAX_BODY:
        raise InvalidInput(f"body is {len(body)} characters long; at most {MAX_BODY}")
    return body


def validate_type(value: str) -> str:
    memory_type = value.strip().lower()
    if memory_type not in MEMORY_TYPES:
        raise InvalidInput(f"unknown type {value!r}: use one of {', '.join(MEMORY_TYPES)}")
    return memory_type


def validate_tag(value: str) -> str:
    tag = nfc(value.strip())
    if not tag or len(tag) > MAX_TAG or "--" in tag or not _TAG.match(tag):
        raise InvalidInput(
            f"invalid tag {value!r}: use letters, digits and . + # / : @ - "
            f"(no spaces, quotes, % or ;, at most {MAX_TAG} characters)"
        )
    return tag


def normalise_tags(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    tags = tuple(sorted({validate_tag(v) for v in values}))
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"{len(tags)} tags; at most {MAX_TAGS}")
    return tags


# --- identity -----------------------------------------------------------------------------


def content_hash(title: str, body: str, memory_type: str, tags: tuple[str, ...]) -> str:
    canonical = json.dumps([title, body, memory_type, list(tags)], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def revision_id_for(memory_id: str, revision: int, updated_at: datetime) -> str:
    """Deterministic ULID of an archived revision, so racing writers build the same key.

    Time part: the archived revision's `updated_at`; random part: hashed from (id, revision).
    """
    from ulid import ULID

    millis = int(updated_at.timestamp() * 1000)
    entropy = hashlib.sha256(f"{memory_id}:{revision}".encode()).digest()[:10]
    return str(ULID.from_bytes(millis.to_bytes(6, "big") + entropy))


def archive_key(memory_id: str, revision_id: str) -> str:
    return f"{memory_id}/{revision_id}"


# --- planning mutations -------------------------------------------------------------------


def new_memory(
    draft: MemoryDraft,
    *,
    memory_id: str,
    scope_kind: str,
    scope_id: str,
    author: str,
    now: datetime,
) -> Memory:
    if draft.title is None or draft.body is None:
        raise InvalidInput("a new memory needs a title and a body")
    title = validate_title(draft.title)
    body = normalise_body(draft.body)
    memory_type = validate_type(draft.type or DEFAULT_TYPE)
    tags = normalise_tags(draft.tags or ())
    created = draft.created_at or now
    updated = draft.updated_at or created
    return Memory(
        key=memory_id,
        id=memory_id,
        revision_id="",
        revision=1,
        previous=None,
        next=None,
        superseded=False,
        title=title,
        body=body,
        type=memory_type,
        tags=tags,
        important=bool(draft.important),
        mandatory=bool(draft.mandatory),
        created_at=created,
        updated_at=max(updated, created),
        scope_kind=scope_kind,
        scope_id=scope_id,
        updated_by=author,
        content_hash=content_hash(title, body, memory_type, tags),
        anchors=tuple(draft.anchors or ()),
        verified_at=now,  # a write confirms the memory as it now reads
    )


def revise(current: Memory, draft: MemoryDraft, *, author: str, now: datetime) -> Memory | None:
    """The next live row for `draft` applied to `current`, or None when nothing changes."""
    title = validate_title(draft.title) if draft.title is not None else current.title
    body = normalise_body(draft.body) if draft.body is not None else current.body
    memory_type = validate_type(draft.type) if draft.type is not None else current.type
    tags = normalise_tags(draft.tags) if draft.tags is not None else current.tags
    important = current.important if draft.important is None else draft.important
    mandatory = current.mandatory if draft.mandatory is None else draft.mandatory
    digest = content_hash(title, body, memory_type, tags)
    anchors = current.anchors if draft.anchors is None else tuple(draft.anchors)
    if (digest, important, mandatory, anchors) == (
        current.content_hash,
        current.important,
        current.mandatory,
        current.anchors,
    ):
        return None
    return replace(
        current,
        title=title,
        body=body,
        type=memory_type,
        tags=tags,
        important=important,
        mandatory=mandatory,
        revision=current.revision + 1,
        updated_at=max(now, current.updated_at),
        updated_by=author,
        content_hash=digest,
        anchors=anchors,
        verified_at=now,  # a write confirms the memory as it now reads
        # a flag-only change keeps the vector; new text waits for the embedding pass
        embedding=current.embedding if digest == current.content_hash else None,
    )


def archive_of(row: Memory, *, successor: str | None) -> Memory:
    """Revision `row` as an archived row whose `next` is `successor` (None: deleted)."""
    rid = revision_id_for(row.id, row.revision, row.updated_at)
    return replace(
        row, key=archive_key(row.id, rid), revision_id=rid, superseded=True, next=successor
    )


def plan_update(current: Memory, tail: Memory | None, revised: Memory) -> list[Memory]:
    """Rows for live revision N -> N+1: archive N, re-point archive N-1, replace the live row."""
    archived = archive_of(current, successor=current.id)
    rows = [archived, replace(revised, previous=archived.key, next=None)]
    if tail is not None:
        rows.append(replace(tail, next=archived.key))
    return rows


def plan_delete(current: Memory, tail: Memory | None) -> list[Memory]:
    """Rows for a delete: the final archive (no successor) and archive N-1 re-pointed to it.

    The store removes the live row in the same commit.
    """
    final = archive_of(current, successor=None)
    rows = [final]
    if tail is not None:
        rows.append(replace(tail, next=final.key))
    return rows


def closed_by_delete(chain: list[Memory]) -> set[str]:
    """Keys of the revisions in `chain` (oldest first) that a delete closed.

    The final archive of a deleted memory has no successor. A memory brought back keeps the
    delete visible as two equal revisions in a row: reviving writes the memory as it was
    deleted (`plan_revive`, `MemoryService.restore`), and that is the only write that repeats
    the revision before it (an edit that changes nothing writes nothing).
    """
    closed = {m.key for m in chain if not m.is_live and m.next is None}
    for before, after in itertools.pairwise(chain):
        same = (before.content_hash, before.important, before.mandatory) == (
            after.content_hash,
            after.important,
            after.mandatory,
        )
        if same and after.revision == before.revision + 1:
            closed.add(before.key)
    return closed


def plan_revive(final: Memory, draft: MemoryDraft, *, author: str, now: datetime) -> list[Memory]:
    """Writing to a deleted id continues its chain: a new live row after the final archive."""
    base = replace(final, key=final.id, revision_id="", superseded=False, next=None)
    revised = revise(base, draft, author=author, now=now)
    if revised is None:  # same content as when it was deleted: restore it as it was
        revised = replace(base, revision=base.revision + 1, updated_at=now, updated_by=author)
    return [replace(final, next=final.id), replace(revised, previous=final.key)]


def linked(live: Memory, tail: Memory | None) -> bool:
    """The live row and the newest archive point at each other (or there is no archive yet)."""
    if tail is None:
        return live.revision == 1 and live.previous is None
    return tail.revision == live.revision - 1 and live.previous == tail.key and tail.next == live.id


def same_state(live: Memory, wanted: Memory) -> bool:
    return (live.revision, live.content_hash, live.important, live.mandatory) == (
        wanted.revision,
        wanted.content_hash,
        wanted.important,
        wanted.mandatory,
    )
