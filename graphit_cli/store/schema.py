"""The table schema (the design notes' "Record schema") and its conversion to and from Memory
rows."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from graphit_cli.core import provenance
from graphit_cli.core.models import Memory

# 2: anchors_json and verified_at; 3: provenance_json and status. Added to older tables when
# they open (`ADDED`), read as null where a table still lacks them.
SCHEMA_VERSION = "3"
META_SCHEMA_VERSION = "graphit.schema_version"
META_EMBED_MODEL = "graphit.embedding_model"
META_EMBED_DIM = "graphit.embedding_dim"

_TS = pa.timestamp("us", tz="UTC")


def memory_schema(dim: int) -> pa.Schema:
    fields = [
        pa.field("key", pa.string(), nullable=False),
        pa.field("id", pa.string(), nullable=False),
        pa.field("revision_id", pa.string(), nullable=False),
        pa.field("revision", pa.int32(), nullable=False),
        pa.field("previous", pa.string()),
        pa.field("next", pa.string()),
        pa.field("superseded", pa.bool_(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("body", pa.string(), nullable=False),
        pa.field("type", pa.string(), nullable=False),
        pa.field("tags_json", pa.string(), nullable=False),
        pa.field("important", pa.bool_(), nullable=False),
        pa.field("mandatory", pa.bool_(), nullable=False),
        pa.field("created_at", _TS, nullable=False),
        pa.field("updated_at", _TS, nullable=False),
        pa.field("scope_kind", pa.string(), nullable=False),
        pa.field("scope_id", pa.string(), nullable=False),
        pa.field("updated_by", pa.string(), nullable=False),
        pa.field("content_hash", pa.string(), nullable=False),
        pa.field("embedding", pa.list_(pa.float32(), dim)),
        *added_fields(),
    ]
    return pa.schema(
        fields, metadata={META_SCHEMA_VERSION: SCHEMA_VERSION, META_EMBED_DIM: str(dim)}
    )


def added_fields() -> list[pa.Field]:
    """Columns added after version 1, nullable so that older rows read as "none": what the
    revision that wrote a memory found it depends on (anchors), when it was last verified,
    who wrote it how (provenance) and its review status (core/provenance.py)."""
    return [
        pa.field("anchors_json", pa.string()),
        pa.field("verified_at", _TS),
        pa.field("provenance_json", pa.string()),
        pa.field("status", pa.string()),
    ]


ADDED = ("anchors_json", "verified_at", "provenance_json", "status")

# Every column but the vector: what reads select unless they need the embedding.
COLUMNS_NO_VECTOR = [f for f in memory_schema(1).names if f != "embedding"]


def to_record(memory: Memory) -> dict[str, Any]:
    return {
        "key": memory.key,
        "id": memory.id,
        "revision_id": memory.revision_id,
        "revision": memory.revision,
        "previous": memory.previous,
        "next": memory.next,
        "superseded": memory.superseded,
        "title": memory.title,
        "body": memory.body,
        "type": memory.type,
        "tags_json": json.dumps(list(memory.tags), ensure_ascii=False),
        "important": memory.important,
        "mandatory": memory.mandatory,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "scope_kind": memory.scope_kind,
        "scope_id": memory.scope_id,
        "updated_by": memory.updated_by,
        "content_hash": memory.content_hash,
        "embedding": list(memory.embedding) if memory.embedding is not None else None,
        "anchors_json": json.dumps(list(memory.anchors), ensure_ascii=False)
        if memory.anchors
        else None,
        "verified_at": memory.verified_at,
        "provenance_json": memory.provenance.to_json() if memory.provenance else None,
        "status": memory.status,
    }


def from_record(row: dict[str, Any]) -> Memory:
    embedding = row.get("embedding")
    created = row["created_at"]
    return Memory(
        key=row["key"],
        id=row["id"],
        revision_id=row["revision_id"],
        revision=int(row["revision"]),
        previous=row["previous"],
        next=row["next"],
        superseded=bool(row["superseded"]),
        title=row["title"],
        body=row["body"],
        type=row["type"],
        tags=tuple(json.loads(row["tags_json"] or "[]")),
        important=bool(row["important"]),
        mandatory=bool(row["mandatory"]),
        created_at=created,
        updated_at=row["updated_at"] or created,  # legacy rows: created_at is the fallback
        scope_kind=row["scope_kind"],
        scope_id=row["scope_id"],
        updated_by=row["updated_by"],
        content_hash=row["content_hash"],
        embedding=tuple(embedding) if embedding is not None else None,
        anchors=tuple(json.loads(row.get("anchors_json") or "[]")),
        verified_at=row.get("verified_at"),
        provenance=provenance.from_json(row.get("provenance_json")),
        status=row.get("status"),
    )


def to_arrow(memories: list[Memory], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist([to_record(m) for m in memories], schema=schema)
