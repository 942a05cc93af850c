"""How common a word is in the language (core/commonness.py) and how search weighs it
(core/relevance.py): common words never carry a query, in English or in the other languages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graphit_cli.core import commonness, relevance
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService

ROOT = Path(__file__).resolve().parent.parent


def test_common_words_are_common_and_domain_words_are_not() -> None:
    for word in ("use", "have", "make", "get", "work", "need", "the"):
        assert commonness.zipf(word) >= relevance.CARRIER_ZIPF, word
    for word in ("database", "deploy", "zebra", "kubernetes", "postgresql"):
        assert commonness.zipf(word) < relevance.CARRIER_ZIPF, word
    assert commonness.zipf("pnpm") == 0.0 == commonness.zipf("zzzqqq")  # rarer than MIN_ZIPF
    assert commonness.zipf("") == 0.0
    assert 5.5 < commonness.zipf("use") < 6.0 and 4.0 < commonness.zipf("database") < 4.6


def test_the_other_languages_function_words_are_common_and_foreign_words_are_not_rare() -> None:
    """The table takes each word's highest frequency among English, German, Spanish, French and
    Portuguese: a common word of any of them is common, and a word of one of them is not taken
    for an unknown (rare) one because English does not use it."""
    for word in ("de", "para", "que", "wir", "welche", "und", "nous", "não", "über"):
        assert commonness.zipf(word) >= relevance.CARRIER_ZIPF, word
    for word in ("datenbank", "despliegue", "bereitstellen"):
        assert 0.0 < commonness.zipf(word) < relevance.CARRIER_ZIPF, word


def test_every_word_of_the_table_is_found_by_the_binary_search() -> None:
    lines = commonness._table().split(b"\n")[1:-1]
    assert len(lines) > 100_000
    assert lines == sorted(lines)
    for line in lines[:: max(1, len(lines) // 5000)] + lines[:3] + lines[-3:]:
        word, value = line.split(b"\t")
        assert commonness.zipf(word.decode()) == int(value) / 10, word
        assert int(value) >= commonness.MIN_ZIPF * 10


def test_weights_and_shares() -> None:
    """In a lexical-only search a common word keeps less of its idf than a domain word; a
    share needs a word that is not common (when the query has one)."""
    counts = {"database": 1, "use": 1}
    plain = relevance.term_weights(counts, rows=30)
    assert plain["use"] == plain["database"]  # equally rare in the table
    weighed = relevance.term_weights(counts, rows=30, lexical_only=True)
    assert weighed["use"] < 0.7 * weighed["database"] == 0.7 * plain["database"]
    assert relevance.commonness_factor(3.0) == 1.0
    assert relevance.commonness_factor(8.0) == relevance.COMMON_FLOOR
    carrying = relevance.carriers(counts)
    assert carrying == {"database"}
    assert relevance.lexical_share(["use"], plain, carrying) == 0.0
    assert relevance.lexical_share(["use", "database"], plain, carrying) == 1.0
    assert relevance.lexical_share(["use"], {"use": 1.0}, relevance.carriers(["use"])) == 1.0


@pytest.fixture
def svc(scope) -> MemoryService:
    return MemoryService(open_service(scope).store, scope, embedder=lambda: None)


def test_in_spanish_and_german_a_function_word_alone_is_not_a_match(svc: MemoryService) -> None:
    """Memories and questions in Spanish and German: a memory that shares only "de", "la",
    "es" or "wir" with the question is not a match; the one about its subject is."""
    drafts = [
        ("Base de datos", "Todos los servicios guardan sus datos en PostgreSQL 16."),
        ("Despliegue", "Para desplegar en producción usamos Helm y el clúster de EKS."),
        ("Formato del código", "El código de Python se formatea con ruff antes de cada commit."),
        ("Guardia", "La persona de guardia recibe las alertas de PagerDuty."),
        ("Revisión", "Cada cambio necesita la revisión de una persona del equipo."),
        ("Datenbank", "Alle Dienste speichern ihre Daten in PostgreSQL."),
        ("Bereitstellung", "Wir stellen mit Helm auf dem Produktionscluster bereit."),
        ("Code-Stil", "Wir formatieren den Python-Code mit ruff."),
        ("Bereitschaft", "Wir haben jede Woche eine Person in Bereitschaft."),
    ]
    ids = {t: svc.upsert(MemoryDraft(title=t, body=b)).memory.id for t, b in drafts}

    def titles(query: str) -> list[str]:
        found = svc.search(query, top_k=0, mode="fts").hits
        return [t for t, i in ids.items() if i in {h.memory.id for h in found}]

    assert titles("¿cuál es la base de datos?") == ["Base de datos"]
    assert titles("welche Datenbank haben wir") == ["Datenbank"]
    assert titles("¿cómo es el despliegue?") == ["Despliegue"]


def test_the_shipped_table_needs_no_wordfreq_and_help_never_imports_it() -> None:
    code = (
        "import sys; from graphit_cli.cli.app import app; "
        "assert 'wordfreq' not in sys.modules; "
        "from graphit_cli.core import commonness; commonness.zipf('use'); "
        "assert 'wordfreq' not in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_the_shipped_table_is_what_the_script_generates() -> None:
    """scripts/gen_word_frequencies.py --check (wordfreq's five lists: ~20 s)."""
    pytest.importorskip("wordfreq")
    script = ROOT / "scripts" / "gen_word_frequencies.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
