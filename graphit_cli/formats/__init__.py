"""Input and output formats: parsing Markdown/JSON/NDJSON into drafts (`parse`),
rendering records (`render`), and the text agents are given (`guidance`)."""
