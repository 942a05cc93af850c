// The Memory Explorer page: catalogue, detail, revision timeline and diff, create/edit/flag/remove.
// Plain DOM code, no build step. Every piece of memory text is set with textContent; the one
// exception is the body's HTML, which the server rendered with raw HTML off and sanitised.
"use strict";

(function () {
  const PREFIX = "/memory/explorer";
  const TYPES = ["fact", "decision", "convention", "correction", "preference", "constraint",
    "procedure", "skill", "tension"];
  const PAGE = 50;

  const state = {
    scope: "project",
    scopes: [],
    projectDir: new URLSearchParams(location.search).get("project_dir") || "",
    query: "", type: "", tag: "", important: "", mandatory: "",
    offset: 0,
    total: 0,
    memoryId: "",
    revisionId: "",
    trace: null,
    editing: false,
  };
  let listRequest = 0;
  let detailRequest = 0;

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // --- addresses ---------------------------------------------------------------------------

  function parseAddress() {
    const rest = location.pathname.startsWith(PREFIX + "/")
      ? location.pathname.slice(PREFIX.length + 1) : "";
    const parts = rest.split("/").filter(Boolean).map(decodeURIComponent);
    return { scope: parts[0] || "project", id: parts[1] || "", revisionId: parts[2] || "" };
  }

  function pageUrl(scope, key) {
    const qs = state.projectDir ? "?project_dir=" + encodeURIComponent(state.projectDir) : "";
    return `${PREFIX}/${scope}/${key ? key : ""}${qs}`;
  }

  function apiUrl(path, params) {
    const search = new URLSearchParams({ scope: state.scope });
    if (state.projectDir) search.set("project_dir", state.projectDir);
    for (const [k, v] of Object.entries(params || {})) {
      if (v !== "" && v !== null && v !== undefined) search.set(k, String(v));
    }
    return `/api/memories${path}?${search}`;
  }

  async function api(method, path, params, body) {
    const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(apiUrl(path, params), init);
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const error = new Error((data && data.error) || `HTTP ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  function navigate(scope, key, replace) {
    const url = pageUrl(scope, key);
    if (replace) history.replaceState(null, "", url);
    else history.pushState(null, "", url);
    route();
  }

  // --- small helpers -----------------------------------------------------------------------

  function say(message, isError) {
    const status = $("status");
    status.textContent = message;
    status.classList.toggle("error", Boolean(isError));
    status.classList.add("visible");
    clearTimeout(say.timer);
    say.timer = setTimeout(() => status.classList.remove("visible"), isError ? 8000 : 3000);
  }

  function day(iso) { return iso ? iso.slice(0, 10) : ""; }
  function when(iso) { return iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : ""; }

  function badges(memory) {
    return el("span", { class: "badges" },
      memory.mandatory ? el("span", { class: "badge mandatory", text: "Mandatory" }) : null,
      memory.important ? el("span", { class: "badge important", text: "Important" }) : null,
      // Anchors that no longer hold in this checkout: the memory may be wrong now.
      memory.stale ? el("span", { class: "badge stale", text: "May be stale",
        title: memory.stale.map((s) => s.anchor + ": " + s.reason).join("\n") }) : null);
  }

  function scopeLabel() {
    const found = state.scopes.find((s) => s.id === state.scope);
    return found ? found.label : state.scope;
  }

  // --- scopes ------------------------------------------------------------------------------

  async function loadScopes() {
    const select = $("scope");
    try {
      state.scopes = await api("GET", "/scopes");
    } catch (error) {
      say(error.message, true);
      state.scopes = [];
    }
    select.replaceChildren(...state.scopes.map((s) =>
      el("option", { value: s.id, text: s.label })));
    if (!state.scopes.some((s) => s.id === state.scope)) {
      select.append(el("option", { value: state.scope, text: state.scope }));
    }
    select.value = state.scope;
    document.title = "Graphit Memory - " + scopeLabel();
  }

  // --- catalogue ---------------------------------------------------------------------------

  function fillFacet(select, values, current) {
    const keep = current && !values.includes(current) ? [current] : [];
    select.replaceChildren(el("option", { value: "", text: "All" }),
      ...[...values, ...keep].map((v) => el("option", { value: v, text: v })));
    select.value = current;
  }

  // While a request is out (the first search may wait seconds for the model), the list says
  // so instead of showing the previous answer as if it were this one.
  function busy(on) {
    const list = $("list");
    list.classList.toggle("loading", on);
    if (on) list.setAttribute("aria-busy", "true");
    else list.removeAttribute("aria-busy");
    if (on) $("count").textContent = state.query ? "Searching…" : "Loading…";
  }

  async function loadList() {
    const ticket = ++listRequest;
    busy(true);
    const params = {
      query: state.query, type: state.type, tag: state.tag,
      important: state.important, mandatory: state.mandatory,
      limit: PAGE, offset: state.offset,
    };
    let data;
    try {
      data = await api("GET", "", params);
    } catch (error) {
      if (ticket === listRequest) { busy(false); $("count").textContent = ""; say(error.message, true); }
      return;
    }
    if (ticket !== listRequest) return; // a newer request is on its way
    busy(false);
    state.total = data.total;
    fillFacet($("f-type"), data.types, state.type);
    fillFacet($("f-tag"), data.tags, state.tag);
    const noun = state.query ? "match" : "memory";
    const plural = state.query ? "matches" : "memories";
    $("count").textContent = `${data.total} ${data.total === 1 ? noun : plural}`;
    const list = $("list");
    list.replaceChildren(...data.results.map(listItem));
    if (!data.results.length) {
      list.append(el("li", { class: "empty", text: state.query ? "Nothing matches." : "No memories here yet." }));
    }
    const first = data.total ? state.offset + 1 : 0;
    const last = Math.min(state.offset + PAGE, data.total);
    $("range").textContent = data.total > PAGE ? `${first}–${last} of ${data.total}` : "";
    $("prev").disabled = state.offset === 0;
    $("next").disabled = state.offset + PAGE >= data.total;
    $("prev").hidden = $("next").hidden = data.total <= PAGE;
  }

  // A search lists its matches in canonical order (category, then date): the meter shows how
  // well each one matched, so the best hit can be told apart wherever it is listed.
  function relevance(memory) {
    if (typeof memory.score !== "number") return null;
    const score = Math.max(0, Math.min(1, memory.score));
    return el("span", { class: "item-relevance", title: `relevance ${score.toFixed(2)} (1 = the best match)` },
      el("meter", { min: 0, max: 1, value: score.toFixed(3), "aria-label": "relevance" }),
      ` ${score.toFixed(2)}`);
  }

  function listItem(memory) {
    const selected = memory.id === state.memoryId;
    const link = el("a", {
      href: pageUrl(state.scope, memory.id),
      class: "item",
      "data-id": memory.id,
      "aria-current": selected ? "true" : null,
    },
    el("span", { class: "item-head" },
      el("span", { class: "item-title", text: memory.title }), badges(memory)),
    el("span", { class: "item-meta",
      text: `${memory.type} · rev ${memory.revision} · ${day(memory.updated_at)}` },
      relevance(memory)),
    memory.snippet ? el("span", { class: "item-snippet", text: memory.snippet }) : null);
    link.addEventListener("click", (event) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(state.scope, memory.id);
    });
    return el("li", {}, link);
  }

  function markSelected() {
    for (const link of $("list").querySelectorAll("a.item")) {
      if (link.dataset.id === state.memoryId) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    }
  }

  // --- detail ------------------------------------------------------------------------------

  async function loadDetail() {
    const ticket = ++detailRequest;
    const detail = $("detail");
    state.editing = false;
    if (!state.memoryId) {
      state.trace = null;
      detail.replaceChildren(el("p", { class: "placeholder",
        text: "Select a memory to read it, or create one." }));
      return;
    }
    let trace, shown;
    try {
      trace = await api("GET", "/" + state.memoryId);
      shown = trace.memory;
      if (state.revisionId) {
        shown = await api("GET", `/${state.memoryId}/revisions/${state.revisionId}`);
      }
    } catch (error) {
      if (ticket !== detailRequest) return;
      state.trace = null;
      detail.replaceChildren(el("div", { class: "notice" },
        el("h2", { text: error.status === 404 ? "Not found" : "Could not load this memory" }),
        el("p", { text: error.message })));
      return;
    }
    if (ticket !== detailRequest) return;
    state.trace = trace;
    renderDetail(trace, shown);
  }

  function stateOf(trace, shown) {
    if (shown.revision_id === "" || shown.revision_id === null) return "Current";
    if (!trace.current && shown.key === trace.memory.key) return "Deleted";
    return "Superseded";
  }

  function renderDetail(trace, shown) {
    const detail = $("detail");
    const status = stateOf(trace, shown);
    const viewingCurrent = status === "Current";
    const body = el("div", { class: "markdown-body" });
    body.innerHTML = shown.body_html; // rendered with raw HTML off, then sanitised (nh3)

    const actions = viewingCurrent ? el("div", { class: "actions" },
      el("button", { type: "button", id: "edit", text: "Edit", title: "Edit (e)", onclick: () => openEditor(shown) }),
      el("button", { type: "button", id: "toggle-important",
        text: shown.important ? "Unmark important" : "Mark important",
        onclick: () => flag(shown, { important: !shown.important }) }),
      el("button", { type: "button", id: "toggle-mandatory",
        text: shown.mandatory ? "Unmark mandatory" : "Mark mandatory",
        onclick: () => flag(shown, { mandatory: !shown.mandatory }) }),
      el("button", { type: "button", id: "remove", class: "danger", text: "Remove",
        onclick: () => confirmRemove(shown) }))
      : el("div", { class: "actions" }, trace.current
        ? el("a", { href: pageUrl(state.scope, shown.id), class: "button", onclick: follow,
          text: "View the current revision" })
        : null,
      el("button", { type: "button", id: "restore",
        text: status === "Deleted" ? "Restore this memory" : "Restore this revision",
        title: "Make this revision current again, as a new revision",
        onclick: () => restore(shown) }));

    const meta = el("dl", { class: "meta" },
      ...metaRow("Scope", shown.scope),
      ...metaRow("Scope id", shown.scope_id),
      ...metaRow("Updated by", shown.updated_by),
      ...metaRow("Provenance", shown.provenance ? author(shown) +
        (shown.provenance.branch ? ` · ${shown.provenance.branch}` : "") +
        (shown.provenance.commit ? ` @ ${shown.provenance.commit.slice(0, 12)}` : "") +
        (shown.provenance.approved_by ? ` · approved by ${shown.provenance.approved_by}` : "")
        : "—"),
      ...metaRow("Created", when(shown.created_at)),
      ...metaRow("Updated", when(shown.updated_at)),
      ...metaRow("Content hash", shown.content_hash, "hash"),
      ...metaRow("Previous", shown.previous || "—", "address"),
      ...metaRow("Next", shown.next || "—", "address"),
      ...metaRow("Revision address", shown.key, "address"));

    const tags = el("ul", { class: "tags", "aria-label": "Tags" },
      ...(shown.tags.length ? shown.tags.map((t) => el("li", {},
        el("button", { type: "button", class: "tag", text: t, title: `Show memories tagged ${t}`,
          onclick: () => { state.tag = t; state.offset = 0; loadList(); } })))
        : [el("li", { class: "muted", text: "no tags" })]));

    const diff = el("section", { class: "diff", id: "diff", "aria-label": "Changes" });

    detail.replaceChildren(
      el("article", { class: "memory", "data-key": shown.key },
        el("div", { class: "memory-head" },
          el("span", { class: "badge type", text: shown.type }),
          el("span", { class: "badge state " + status.toLowerCase(), id: "state", text: status }),
          badges(shown)),
        el("h2", { id: "memory-title", text: shown.title }),
        el("p", { class: "address", id: "memory-address", text: `${shown.id} · revision ${shown.revision}` }),
        actions,
        el("div", { class: "memory-grid" },
          el("div", { class: "memory-main" }, body, diff),
          el("div", { class: "memory-side" },
            el("h3", { text: "Tags" }), tags,
            el("h3", { text: "Metadata" }), meta,
            el("h3", { text: "Revisions" }), timeline(trace, shown)))));
    loadDiff(shown, diff);
    markDeletes(trace, $("timeline"));
  }

  function metaRow(label, value, kind) {
    return [el("dt", { text: label }), el("dd", { class: kind || null, text: value })];
  }

  function follow(event) {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    history.pushState(null, "", event.currentTarget.getAttribute("href"));
    route();
  }

  function timeline(trace, shown) {
    return el("ol", { class: "timeline", id: "timeline" }, ...trace.revisions.map((r) => {
      const current = r.revision_id === "";
      const label = current ? "current" : (!trace.current && r.key === trace.memory.key ? "deleted" : "superseded");
      return el("li", { class: r.key === shown.key ? "selected" : null },
        el("a", { href: pageUrl(state.scope, r.key), onclick: follow,
          "aria-current": r.key === shown.key ? "page" : null, "data-revision": r.revision },
        el("span", { class: "rev", text: `rev ${r.revision}` }),
        el("span", { class: "rev-title", text: r.title }),
        el("span", { class: "rev-meta", "data-key": r.key, text: `${label} · ${when(r.updated_at)} · ${r.updated_by}` })));
    }));
  }

  // A memory removed and then restored keeps the delete in its chain as two equal revisions in
  // a row (revisions.closed_by_delete: restoring writes the memory back as it was deleted, and
  // no other write repeats the revision before it). The trace lists revisions without their
  // content, so the rows are read to find those pairs and label the first one "deleted".
  const MAX_MARKED = 100;
  async function markDeletes(trace, list) {
    const archived = trace.revisions.filter((r) => r.revision_id !== "").slice(0, MAX_MARKED);
    if (!archived.length || (trace.revisions.length < 2)) return;
    let rows;
    try {
      rows = await Promise.all(archived.map((r) => api("GET", `/${trace.memory.id}/revisions/${r.revision_id}`)));
    } catch (_) {
      return; // the labels stay as they are
    }
    const byRevision = new Map(rows.map((row) => [row.revision, row]));
    if (trace.current) byRevision.set(trace.memory.revision, trace.memory);
    for (const row of rows) {
      const after = byRevision.get(row.revision + 1);
      const same = after && after.content_hash === row.content_hash &&
        after.important === row.important && after.mandatory === row.mandatory;
      if (!same) continue;
      const meta = [...list.querySelectorAll(".rev-meta")].find((m) => m.dataset.key === row.key);
      if (meta) meta.textContent = meta.textContent.replace(/^superseded/, "deleted");
    }
  }

  // --- diff against the revision before ------------------------------------------------------

  async function loadDiff(shown, target) {
    if (!shown.previous) {
      target.replaceChildren(el("h3", { text: "Changes" }),
        el("p", { class: "muted", text: "Revision 1: nothing before it." }));
      return;
    }
    const revisionId = shown.previous.split("/")[1];
    let before;
    try {
      before = await api("GET", `/${shown.id}/revisions/${revisionId}`);
    } catch (error) {
      target.replaceChildren(el("p", { class: "muted", text: "Previous revision: " + error.message }));
      return;
    }
    const fields = [];
    for (const [name, a, b] of [
      ["title", before.title, shown.title], ["type", before.type, shown.type],
      ["tags", before.tags.join(", "), shown.tags.join(", ")],
      ["important", String(before.important), String(shown.important)],
      ["mandatory", String(before.mandatory), String(shown.mandatory)]]) {
      if (a !== b) fields.push(el("li", {}, el("strong", { text: name + ": " }),
        el("del", { text: a || "—" }), " → ", el("ins", { text: b || "—" })));
    }
    const lines = lineDiff(before.body.split("\n"), shown.body.split("\n"));
    const changed = lines.some((l) => l[0] !== " ");
    target.replaceChildren(...[
      el("h3", { text: `Changes from revision ${before.revision}` }),
      fields.length ? el("ul", { class: "field-changes" }, ...fields) : null,
      changed
        ? el("pre", { class: "line-diff", "aria-label": "Body diff" }, ...lines.map(([op, text]) =>
          el("span", { class: op === "+" ? "add" : op === "-" ? "del" : "same", text: `${op} ${text}\n` })))
        : el("p", { class: "muted", text: "The body did not change." })].filter(Boolean));
  }

  // A line diff from the longest common subsequence; past ~4M cells (huge bodies) it shows
  // the whole old text removed and the new one added rather than stall the page.
  function lineDiff(a, b) {
    const n = a.length, m = b.length;
    if (n * m > 4e6) return [...a.map((t) => ["-", t]), ...b.map((t) => ["+", t])];
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    const out = [];
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
      else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push(["-", a[i++]]);
      else out.push(["+", b[j++]]);
    }
    while (i < n) out.push(["-", a[i++]]);
    while (j < m) out.push(["+", b[j++]]);
    return out;
  }

  // --- create, edit, flag, remove -------------------------------------------------------------

  function openEditor(memory) {
    state.editing = true;
    const creating = !memory;
    const m = memory || { title: "", body: "", type: "fact", tags: [], important: false, mandatory: false };
    const form = el("form", { class: "editor", id: "editor", "aria-label": creating ? "New memory" : "Edit memory" },
      el("h2", { text: creating ? "New memory" : `Edit revision ${m.revision}` }),
      el("label", {}, "Title", el("input", { name: "title", id: "ed-title", required: true, value: m.title, maxlength: 500 })),
      el("div", { class: "row" },
        el("label", {}, "Type", el("select", { name: "type", id: "ed-type" },
          ...TYPES.map((t) => el("option", { value: t, text: t, selected: t === m.type })))),
        el("label", {}, "Tags (comma or space separated)",
          el("input", { name: "tags", id: "ed-tags", value: m.tags.join(", ") }))),
      el("div", { class: "row checks" },
        el("label", { class: "check" }, el("input", { type: "checkbox", name: "important", id: "ed-important", checked: m.important }), "Important"),
        el("label", { class: "check" }, el("input", { type: "checkbox", name: "mandatory", id: "ed-mandatory", checked: m.mandatory }), "Mandatory")),
      el("label", {}, "Body (Markdown)", el("textarea", { name: "body", id: "ed-body", rows: 16, required: true })),
      el("div", { class: "actions" },
        el("button", { type: "submit", class: "primary", id: "ed-save", text: creating ? "Create" : "Save" }),
        el("button", { type: "button", id: "ed-cancel", text: "Cancel", onclick: closeEditor })));
    form.elements.body.value = m.body;
    form.addEventListener("submit", (event) => { event.preventDefault(); save(form, memory); });
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); closeEditor(); }
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); form.requestSubmit(); }
    });
    $("detail").replaceChildren(form);
    form.elements.title.focus();
  }

  function closeEditor() {
    state.editing = false;
    loadDetail();
  }

  async function save(form, memory) {
    const f = form.elements;
    const payload = {
      title: f.title.value,
      body: f.body.value,
      type: f.type.value,
      tags: f.tags.value.split(/[\s,]+/).filter(Boolean),
      important: f.important.checked,
      mandatory: f.mandatory.checked,
    };
    f["ed-save"].disabled = true;
    try {
      if (!memory) {
        if (!payload.title.trim() || !payload.body.trim()) throw new Error("title and body are required");
        const trace = await api("POST", "", {}, payload);
        say(`Created "${trace.memory.title}".`);
        state.editing = false;
        navigate(state.scope, trace.memory.id);
      } else {
        const trace = await api("PATCH", "/" + memory.id, {}, { ...payload, revision: memory.revision });
        const revision = trace.memory.revision;
        say(revision === memory.revision ? "Nothing changed." : `Saved revision ${revision}.`);
        state.editing = false;
        navigate(state.scope, memory.id, true);
      }
      loadList();
    } catch (error) {
      say(error.message, true);
      f["ed-save"].disabled = false;
    }
  }

  async function flag(memory, change) {
    try {
      const trace = await api("PATCH", "/" + memory.id, {}, { ...change, revision: memory.revision });
      say(`Saved revision ${trace.memory.revision}.`);
      navigate(state.scope, memory.id, true);
      loadList();
    } catch (error) {
      say(error.message, true);
    }
  }

  // Restore writes a new revision with this one's content (MemoryService.restore, as
  // `graphit memory restore ID/REVISION_ID`); nothing is lost, so it asks no confirmation.
  async function restore(shown) {
    try {
      const trace = await api("POST", `/${shown.id}/revisions/${shown.revision_id}/restore`, {}, {});
      say(`Restored revision ${shown.revision} as revision ${trace.memory.revision}.`);
      navigate(state.scope, shown.id);
      loadList();
    } catch (error) {
      say(error.message, true);
    }
  }

  function confirmRemove(memory) {
    const dialog = $("confirm");
    $("confirm-text").textContent =
      `Remove "${memory.title}"? The current record is removed and its final revision kept.`;
    dialog.returnValue = "";
    dialog.addEventListener("close", async function onClose() {
      dialog.removeEventListener("close", onClose);
      if (dialog.returnValue !== "remove") { $("remove") && $("remove").focus(); return; }
      try {
        await api("DELETE", "/" + memory.id, { confirm: "true" });
        say(`Removed "${memory.title}".`);
        navigate(state.scope, memory.id, true);
        loadList();
      } catch (error) {
        say(error.message, true);
      }
    });
    dialog.showModal();
    $("confirm-cancel").focus();
  }

  // --- routing and wiring ----------------------------------------------------------------------

  async function route() {
    const address = parseAddress();
    const scopeChanged = address.scope !== state.scope || !state.scopes.length;
    state.scope = address.scope;
    state.memoryId = address.id.toUpperCase();
    state.revisionId = address.revisionId.toUpperCase();
    if (scopeChanged) {
      await loadScopes();
      loadList();
    } else {
      markSelected();
    }
    await loadDetail();
  }

  // --- what the hooks injected, and why (GET /api/recalls; `graphit agent recalls`) -----------

  function figures(item) {
    const parts = [];
    if (item.score !== undefined && item.score !== null) parts.push(`score ${item.score}`);
    if (item.similarity !== undefined && item.similarity !== null) parts.push(`cosine ${item.similarity}`);
    if (item.share !== undefined && item.share !== null) parts.push(`words ${item.share}`);
    if (item.words && item.words.length) parts.push(`[${item.words.join(", ")}]`);
    return parts.join(" ");
  }

  // What became of a hook call: printed (shown), nothing relevant, late, failed.
  function outcome(call) {
    if (call.outcome === "late") return `late (${call.ms} ms, waiting for ${call.waiting || "an answer"}): nothing shown`;
    if (call.outcome === "failed") return `failed: ${call.cause || ""}`;
    if (call.outcome === "nothing") return "nothing relevant";
    return `${call.outcome || "shown"}, ${call.chars || 0} characters`;
  }

  async function showRecalls() {
    const main = $("detail");
    let data;
    try {
      const response = await fetch("/api/recalls", { headers: { Accept: "application/json" }, credentials: "same-origin" });
      data = await response.json();
      if (!response.ok) throw new Error((data && data.error) || `HTTP ${response.status}`);
    } catch (error) {
      say(error.message, true);
      return;
    }
    const sessions = data.sessions || [];
    const blocks = sessions.map((group) => el("section", { class: "recall-session" },
      el("h3", { text: `Session ${group.session || "(none)"} (${group.client || ""})` }),
      el("ol", {}, group.calls.map((call) => el("li", {},
        el("p", {}, el("strong", { text: `${new Date(call.at * 1000).toISOString().slice(0, 19).replace("T", " ")} ${call.event}` }),
          call.prompt !== undefined ? ` "${call.prompt}" (${call.mode || ""})` : "",
          ` ${outcome(call)}`),
        el("ul", {},
          (call.injected || []).map((item) => el("li", { class: "injected",
            text: `+ ${item.title} (${item.id}, ${item.date || ""}) ${figures(item) || item.why || ""}` })),
          (call.left || []).map((item) => el("li", { class: "left",
            text: `- ${item.title} (${item.id}): ${item.why}; ${figures(item)}` }))))))));
    main.replaceChildren(el("h2", { text: "What the hooks injected, and why" }),
      ...(sessions.length ? blocks : [el("p", { class: "placeholder", text: "No hook call recorded yet." })]));
  }

  // --- the review queue (GET /api/review; `graphit memory review`) --------------------------

  async function reviewCall(path, body) {
    const search = new URLSearchParams({ scope: "project" });
    if (state.projectDir) search.set("project_dir", state.projectDir);
    const init = { method: body === undefined ? "GET" : "POST", credentials: "same-origin",
      headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(`/api/review${path}?${search}`, init);
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Error((data && data.error) || `HTTP ${response.status}`);
    return data;
  }

  function author(row) {
    const p = row.provenance || {};
    return [p.author || row.updated_by, p.via ? `via ${p.via}` : "", p.client || ""]
      .filter(Boolean).join(" · ");
  }

  async function decide(key, verdict, reason) {
    try {
      await reviewCall(`/${key}/${verdict}`, verdict === "reject" ? { reason } : {});
      say(verdict === "approve" ? "Approved." : "Rejected.");
      await showReview();
      loadList();
    } catch (error) {
      say(error.message, true);
    }
  }

  async function showReview() {
    const main = $("detail");
    let data;
    try {
      data = await reviewCall("");
    } catch (error) {
      say(error.message, true);
      return;
    }
    const head = el("p", { class: "muted", id: "review-policy", text: data.review
      ? `Reviewers: ${data.reviewers.join(", ")}. You are ${data.you}.`
      : "Review is off for this project (graphit memory review on --reviewer EMAIL)." });
    const items = data.proposals.map((item) => {
      const row = item.proposal;
      const reason = el("input", { type: "text", class: "reason", placeholder: "Why reject it?",
        "aria-label": `Reason for rejecting ${row.title}` });
      const diff = item.change.body_diff
        ? el("pre", { class: "diff-text", text: item.change.body_diff })
        : el("div", { class: "markdown-body" });
      if (!item.change.body_diff) diff.innerHTML = row.body_html; // sanitised by the server
      return el("li", { class: "proposal", "data-key": row.key },
        el("h3", { text: `${row.title} (${item.change.kind})` }),
        el("p", { class: "address", text: `${row.key} · ${author(row)} · ${when(row.updated_at)}` }),
        diff,
        el("div", { class: "actions" },
          el("button", { type: "button", class: "primary approve", text: "Approve",
            onclick: () => decide(row.key, "approve") }),
          reason,
          el("button", { type: "button", class: "danger reject", text: "Reject",
            onclick: () => reason.value.trim()
              ? decide(row.key, "reject", reason.value.trim())
              : say("Give the reason for the rejection.", true) })));
    });
    main.replaceChildren(el("h2", { text: "Review queue" }), head,
      items.length ? el("ul", { class: "queue", id: "queue" }, items)
        : el("p", { class: "placeholder", id: "queue-empty", text: "No open proposals." }));
  }

  function filterChanged() {
    state.type = $("f-type").value;
    state.tag = $("f-tag").value;
    state.important = $("f-important").value;
    state.mandatory = $("f-mandatory").value;
    state.offset = 0;
    loadList();
  }

  function wire() {
    $("scope").addEventListener("change", (event) => {
      state.query = state.type = state.tag = state.important = state.mandatory = "";
      state.offset = 0;
      $("search").value = "";
      $("f-important").value = $("f-mandatory").value = "";
      navigate(event.target.value, "");
    });
    let timer = 0;
    $("search").addEventListener("input", (event) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.query = event.target.value.trim();
        state.offset = 0;
        loadList();
      }, 250);
    });
    for (const id of ["f-type", "f-tag", "f-important", "f-mandatory"]) {
      $(id).addEventListener("change", filterChanged);
    }
    $("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); loadList(); });
    $("next").addEventListener("click", () => { state.offset += PAGE; loadList(); });
    $("new").addEventListener("click", () => openEditor(null));
    $("recalls").addEventListener("click", showRecalls);
    $("review").addEventListener("click", showReview);
    $("home").addEventListener("click", (event) => { event.preventDefault(); navigate(state.scope, ""); });
    $("list").addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      const links = [...$("list").querySelectorAll("a.item")];
      const at = links.indexOf(document.activeElement);
      const next = links[at + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) { event.preventDefault(); next.focus(); }
    });
    document.addEventListener("keydown", (event) => {
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
      if (typing || event.ctrlKey || event.metaKey || event.altKey || $("confirm").open) return;
      if (event.key === "/") { event.preventDefault(); $("search").focus(); }
      else if (event.key === "n") { event.preventDefault(); openEditor(null); }
      else if (event.key === "e" && $("edit")) { event.preventDefault(); $("edit").click(); }
    });
    window.addEventListener("popstate", route);
  }

  wire();
  route();
})();
