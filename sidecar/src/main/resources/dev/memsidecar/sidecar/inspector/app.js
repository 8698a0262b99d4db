// memsidecar inspector: a single page over the sidecar's JSON API (/inspector/api/). Plain
// JavaScript, no build, no external resources. Every text from the sidecar is put in the page
// with textContent (never as HTML). The bearer token is kept in this tab's sessionStorage and sent
// as the Authorization header; a "token=" parameter in the URL fragment is taken and removed.
"use strict";

const TOKEN_KEY = "memsidecar.inspector.token";
const PAGES = [
  ["workspaces", "Workspaces"],
  ["profiles", "Profiles"],
  ["memories", "Memories"],
  ["decisions", "Write decisions"],
  ["rules", "Tool rules"],
  ["sessions", "Sessions"],
  ["skills", "Skill candidates"],
  ["events", "Live events"],
];
const SCOPE_KEYS = ["ws", "user", "agent", "session"];
let info = { writes: false, version: "" };
let leave = null; // what the current page must stop when another one opens (the event stream)

// ---------------------------------------------------------------- small helpers

function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") Object.assign(el.style, v); // CSSOM: allowed by the page's CSP
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function short(enumValue, prefix) {
  if (!enumValue) return "UNSPECIFIED";
  return prefix && enumValue.startsWith(prefix) ? enumValue.slice(prefix.length) : enumValue;
}

function time(ts) {
  if (!ts) return "";
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toISOString().replace("T", " ").slice(0, 19) + "Z";
}

function num(x, digits) {
  return (x === undefined || x === null ? 0 : Number(x)).toFixed(digits === undefined ? 1 : digits);
}

function route() {
  const raw = location.hash.replace(/^#\/?/, "");
  const q = raw.indexOf("?");
  const page = (q < 0 ? raw : raw.slice(0, q)) || "workspaces";
  const params = new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));
  return { page, params };
}

function link(page, params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) p.set(k, v);
  const s = p.toString();
  return "#/" + page + (s ? "?" + s : "");
}

function scopeParams(params) {
  const out = {};
  for (const k of SCOPE_KEYS) if (params.get(k)) out[k] = params.get(k);
  return out;
}

function scopeOf(params) {
  const s = { workspaceId: params.get("ws") || "" };
  if (params.get("user")) s.userId = params.get("user");
  if (params.get("agent")) s.agentId = params.get("agent");
  if (params.get("session")) s.sessionId = params.get("session");
  return s;
}

function describeScope(params) {
  const parts = [];
  if (params.get("ws")) parts.push("workspace " + params.get("ws"));
  if (params.get("user")) parts.push("user " + params.get("user"));
  if (params.get("agent")) parts.push("agent " + params.get("agent"));
  if (params.get("session")) parts.push("session " + params.get("session"));
  return parts.join(", ");
}

// ---------------------------------------------------------------- the API

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(extra) {
  const out = Object.assign({}, extra || {});
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) out["Authorization"] = "Bearer " + token;
  return out;
}

async function answer(res) {
  let body = null;
  try {
    body = await res.json();
  } catch (e) {
    body = null;
  }
  if (!res.ok) {
    const err = (body && body.error) || {};
    if (res.status === 401) askToken();
    throw new ApiError(res.status, err.code || "HTTP " + res.status, err.message || res.statusText);
  }
  return body;
}

async function get(path) {
  return answer(await fetch("api/" + path, { headers: headers(), cache: "no-store" }));
}

/** One call of the contract: rpc("MemoryService/ListMemories", {...}). */
async function rpc(method, request) {
  return answer(
    await fetch("api/rpc/memsidecar.v1." + method, {
      method: "POST",
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify(request || {}),
      cache: "no-store",
    })
  );
}

function errorBox(e) {
  const text = e instanceof ApiError ? e.code + ": " + e.message : String(e);
  return h("div", { class: "error" }, text);
}

function needWorkspace(main, params, what) {
  if (params.get("ws")) return false;
  main.append(
    h("div", { class: "note" }, "Choose a workspace above (or on the ", h("a", { href: "#/workspaces" }, "Workspaces"), " page) to see " + what + ".")
  );
  return true;
}

// ---------------------------------------------------------------- token

function takeTokenFromUrl() {
  const { page, params } = route();
  if (!params.has("token")) return;
  sessionStorage.setItem(TOKEN_KEY, params.get("token"));
  params.delete("token");
  const s = params.toString();
  history.replaceState(null, "", location.pathname + "#/" + page + (s ? "?" + s : ""));
}

function askToken() {
  const dialog = document.getElementById("token-dialog");
  if (!dialog.open) dialog.showModal();
}

function setUpToken() {
  const dialog = document.getElementById("token-dialog");
  document.getElementById("token-button").addEventListener("click", askToken);
  dialog.addEventListener("close", () => {
    const input = document.getElementById("token-input");
    if (dialog.returnValue === "save" && input.value.trim()) {
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    } else if (dialog.returnValue === "clear") {
      sessionStorage.removeItem(TOKEN_KEY);
    }
    input.value = "";
    start();
  });
}

// ---------------------------------------------------------------- pages

async function workspacesPage(main) {
  main.append(h("h1", {}, "Workspaces"));
  main.append(
    h("p", { class: "sub" }, "Workspace, user and agent ids the sidecar has seen (write decisions, runs, sessions, tool rules). Pick one, or type any ids in the bar above.")
  );
  const { scopes } = await get("scopes");
  if (!scopes.length) {
    main.append(h("div", { class: "note" }, "Nothing yet: remember something (memsidecar remember …) or run an agent, then reload."));
    return;
  }
  const byWs = new Map();
  for (const s of scopes) {
    if (!byWs.has(s.workspaceId)) byWs.set(s.workspaceId, { users: new Set(), agents: new Set() });
    const w = byWs.get(s.workspaceId);
    if (s.userId) w.users.add(s.userId);
    if (s.agentId) w.agents.add(s.agentId);
  }
  const rows = [];
  for (const [ws, w] of byWs) {
    rows.push(
      h("tr", {},
        h("td", {}, h("a", { href: link("memories", { ws }), class: "mono" }, ws)),
        h("td", {}, [...w.users].map((u) => h("a", { href: link("memories", { ws, user: u }), class: "chip" }, u))),
        h("td", {}, [...w.agents].map((a) => h("span", { class: "chip" }, a))),
        h("td", {},
          h("a", { href: link("profiles", { ws }) }, "profiles"), " · ",
          h("a", { href: link("decisions", { ws }) }, "decisions"), " · ",
          h("a", { href: link("rules", { ws }) }, "tool rules"), " · ",
          h("a", { href: link("sessions", { ws }) }, "sessions"), " · ",
          h("a", { href: link("skills", { ws }) }, "skills"))
      )
    );
  }
  main.append(h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "workspace"), h("th", {}, "users"), h("th", {}, "agents"), h("th", {}, "browse"))), h("tbody", {}, rows)));
}

async function profilesPage(main, params) {
  main.append(h("h1", {}, "Profiles"));
  const status = await rpc("AdminService/GetStatus", {});
  const f = status.flags || {};
  const flag = (name, on) => h("span", { class: "chip " + (on ? "ok" : "bad") }, name + " " + (on ? "on" : "off"));
  main.append(
    h("div", { class: "cards" },
      h("div", { class: "card" }, h("h3", {}, "Sidecar"),
        h("dl", { class: "kv" },
          h("dt", {}, "version"), h("dd", {}, status.version || ""),
          h("dt", {}, "embedder"), h("dd", {}, (status.embedder || "") + (status.embedderDimensions ? " (" + status.embedderDimensions + " dims)" : "")),
          h("dt", {}, "extractor"), h("dd", {}, status.extractor || ""),
          h("dt", {}, "providers"), h("dd", {}, (status.providers || []).join(", ")))),
      h("div", { class: "card" }, h("h3", {}, "The four flags"),
        flag("deepagentsMem.read", f.deepagentsMemRead), flag("deepagentsMem.write", f.deepagentsMemWrite),
        flag("LangMem.read", f.langmemRead), flag("LangMem.write", f.langmemWrite))
    )
  );
  main.append(h("h2", {}, "Memory profiles"));
  const sp = scopeParams(params);
  const rows = (status.profiles || []).map((p) =>
    h("tr", {},
      h("td", { class: "mono" }, p.id),
      h("td", {}, p.scopeKind || ""),
      h("td", {}, p.provider || ""),
      h("td", {}, p.enabled ? h("span", { class: "ok" }, "enabled") : h("span", { class: "bad" }, "disabled")),
      h("td", {}, Object.entries(p.settings || {}).map(([k, v]) => h("span", { class: "chip" }, k + "=" + v))),
      h("td", {}, sp.ws ? h("a", { href: link("memories", Object.assign({}, sp, { profile: p.id })) }, "memories") : h("span", { class: "muted" }, "pick a workspace"))
    )
  );
  main.append(h("table", {}, h("thead", {}, h("tr", {}, ["id", "scope", "provider", "state", "settings", ""].map((t) => h("th", {}, t)))), h("tbody", {}, rows)));
}

function memoryRow(m, params, profile) {
  const status = short(m.status, "MEMORY_STATUS_");
  const md = m.metadata || {};
  const target = Object.assign(scopeParams(params), { profile, id: m.id });
  const chain = [];
  if (md.supersedes) chain.push(h("div", { class: "muted" }, "supersedes ", h("a", { href: link("memory", Object.assign({}, target, { id: md.supersedes })), class: "mono" }, md.supersedes)));
  if (md.superseded_by) chain.push(h("div", { class: "muted" }, "superseded by ", h("a", { href: link("memory", Object.assign({}, target, { id: md.superseded_by })), class: "mono" }, md.superseded_by)));
  return h("tr", { class: status === "ACTIVE" ? "" : "inactive" },
    h("td", { class: "content" }, h("a", { href: link("memory", target) }, m.content || "(empty)"), chain),
    h("td", { class: "status-" + status }, status),
    h("td", {}, short(m.kind, "MEMORY_KIND_").toLowerCase()),
    h("td", {}, num(m.gateScore)),
    h("td", {}, (m.tags || []).map((t) => h("span", { class: "chip" }, t))),
    h("td", { class: "muted time" }, time(m.updateTime || m.createTime))
  );
}

async function memoriesPage(main, params) {
  main.append(h("h1", {}, "Memories"), h("p", { class: "sub" }, describeScope(params)));
  if (needWorkspace(main, params, "memories")) return;
  const inactive = params.get("inactive") !== "0";
  const toggle = h("input", { type: "checkbox", checked: inactive, onchange: () => {
    const p = Object.assign(scopeParams(params), { profile: params.get("profile") || "", inactive: toggle.checked ? "" : "0" });
    location.hash = link("memories", p);
  } });
  main.append(h("div", { class: "toolbar" }, h("label", {}, toggle, " show superseded and forgotten memories (their supersede chains)")));
  let profiles;
  if (params.get("profile")) {
    profiles = [{ id: params.get("profile") }];
  } else {
    const status = await rpc("AdminService/GetStatus", {});
    profiles = (status.profiles || []).filter((p) => p.enabled);
  }
  for (const p of profiles) {
    const section = h("section", {}, h("h2", {}, "Profile ", h("span", { class: "mono" }, p.id), p.scopeKind ? h("span", { class: "muted" }, " (" + p.scopeKind + ")") : ""));
    main.append(section);
    if (p.scopeKind === "user" && !params.get("user")) { section.append(h("div", { class: "note" }, "A user profile: give a user id above.")); continue; }
    if (p.scopeKind === "agent" && !params.get("agent")) { section.append(h("div", { class: "note" }, "An agent profile: give an agent id above.")); continue; }
    if (p.scopeKind === "session" && !params.get("session")) { section.append(h("div", { class: "note" }, "A session profile: give a session id above.")); continue; }
    const body = h("tbody", {});
    const table = h("table", {}, h("thead", {}, h("tr", {}, ["content", "status", "kind", "gate", "tags", "updated"].map((t) => h("th", {}, t)))), body);
    const more = h("button", { type: "button", class: "small" }, "more");
    const load = async (token) => {
      try {
        const r = await rpc("MemoryService/ListMemories", { scope: scopeOf(params), profile: p.id, pageSize: 100, pageToken: token || "", includeInactive: inactive });
        for (const m of r.memories || []) body.append(memoryRow(m, params, p.id));
        if (!body.children.length) body.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, "no memories")));
        if (r.nextPageToken) { more.onclick = () => { more.remove(); load(r.nextPageToken); }; section.append(more); }
      } catch (e) {
        table.replaceWith(errorBox(e));
      }
    };
    section.append(table);
    await load("");
  }
}

async function memoryPage(main, params) {
  const profile = params.get("profile");
  const id = params.get("id");
  main.append(h("h1", {}, "Memory ", h("span", { class: "mono" }, id || "")), h("p", { class: "sub" }, describeScope(params) + (profile ? ", profile " + profile : "")));
  const fetchOne = async (mid) => (await rpc("MemoryService/GetMemory", { scope: scopeOf(params), profile, id: mid })).memory;
  const m = await fetchOne(id);
  // The supersede chain: back through "supersedes", forward through "superseded_by".
  const chain = [m];
  const seen = new Set([m.id]);
  let cur = m;
  while (cur.metadata && cur.metadata.supersedes && !seen.has(cur.metadata.supersedes) && chain.length < 50) {
    try { cur = await fetchOne(cur.metadata.supersedes); } catch (e) { break; }
    seen.add(cur.id); chain.unshift(cur);
  }
  cur = m;
  while (cur.metadata && cur.metadata.superseded_by && !seen.has(cur.metadata.superseded_by) && chain.length < 100) {
    try { cur = await fetchOne(cur.metadata.superseded_by); } catch (e) { break; }
    seen.add(cur.id); chain.push(cur);
  }
  const status = short(m.status, "MEMORY_STATUS_");
  const actions = [];
  if (info.writes && status === "ACTIVE") {
    actions.push(h("button", { type: "button", class: "danger", onclick: async (ev) => {
      if (!confirm("Forget this memory? It stays in the store, marked forgotten, and is no longer recalled.")) return;
      ev.target.disabled = true;
      try { await rpc("MemoryService/ForgetMemory", { scope: scopeOf(params), profile, id }); render(); } catch (e) { main.append(errorBox(e)); }
    } }, "forget"));
  }
  main.append(
    h("div", { class: "card" },
      h("pre", {}, m.content || ""),
      h("dl", { class: "kv" },
        h("dt", {}, "status"), h("dd", { class: "status-" + status }, status),
        h("dt", {}, "kind"), h("dd", {}, short(m.kind, "MEMORY_KIND_").toLowerCase()),
        h("dt", {}, "gate score"), h("dd", {}, num(m.gateScore)),
        h("dt", {}, "confidence"), h("dd", {}, num(m.confidence, 2)),
        h("dt", {}, "validity"), h("dd", {}, short(m.validity, "VALIDITY_").toLowerCase() + (m.expireTime ? ", expires " + time(m.expireTime) : "")),
        h("dt", {}, "tags"), h("dd", {}, (m.tags || []).map((t) => h("span", { class: "chip" }, t))),
        h("dt", {}, "namespace"), h("dd", { class: "mono" }, m.namespace || ""),
        h("dt", {}, "provider"), h("dd", {}, m.provider || ""),
        h("dt", {}, "sources"), h("dd", { class: "mono" }, (m.sourceRefs || []).join(", ")),
        h("dt", {}, "created"), h("dd", {}, time(m.createTime)),
        h("dt", {}, "updated"), h("dd", {}, time(m.updateTime)),
        h("dt", {}, "metadata"), h("dd", {}, Object.entries(m.metadata || {}).map(([k, v]) => h("span", { class: "chip mono" }, k + "=" + v)))),
      actions.length ? h("div", { class: "row" }, actions) : null
    )
  );
  main.append(h("h2", {}, "Supersede chain"), h("p", { class: "sub" }, chain.length > 1 ? "Oldest first; each later memory replaced the one before it." : "This memory neither replaced nor was replaced by another."));
  main.append(
    h("ol", { class: "chain" },
      chain.map((c, i) =>
        h("li", { class: c.id === m.id ? "current" : "" },
          i > 0 ? h("div", { class: "arrow" }, "↓ replaced by") : null,
          h("a", { href: link("memory", Object.assign(scopeParams(params), { profile, id: c.id })) }, c.content || "(empty)"),
          " ", h("span", { class: "status-" + short(c.status, "MEMORY_STATUS_") }, short(c.status, "MEMORY_STATUS_").toLowerCase()),
          h("div", { class: "muted mono" }, c.id + " · " + time(c.updateTime || c.createTime))
        )
      )
    )
  );
}

function scoreBars(s) {
  s = s || {};
  const dims = ["importance", "novelty", "relevance", "credibility", "granularity", "timeliness"];
  return h("div", { class: "scores" }, dims.map((d) => [h("span", { class: "muted" }, d), h("span", { class: "bar" }, h("i", { style: { width: Math.max(0, Math.min(100, (s[d] || 0) * 10)) + "%" } })), h("span", {}, num(s[d]))]));
}

async function decisionsPage(main, params) {
  main.append(h("h1", {}, "Write decisions"), h("p", { class: "sub" }, "The write gate's audit, oldest first: what EndRun and Remember stored, merged or rejected, with the six scores. " + describeScope(params)));
  if (needWorkspace(main, params, "write decisions")) return;
  const outcome = params.get("outcome") || "";
  const select = h("select", { onchange: () => { location.hash = link("decisions", Object.assign(scopeParams(params), { outcome: select.value })); } },
    ["", "WRITE_OUTCOME_STORED", "WRITE_OUTCOME_MERGED", "WRITE_OUTCOME_REJECTED"].map((o) => h("option", { value: o, selected: o === outcome }, o ? short(o, "WRITE_OUTCOME_").toLowerCase() : "all outcomes")));
  main.append(h("div", { class: "toolbar" }, h("label", {}, "outcome ", select)));
  const body = h("tbody", {});
  main.append(h("table", {}, h("thead", {}, h("tr", {}, ["time", "outcome", "score", "dimensions", "memory", "reason", "run"].map((t) => h("th", {}, t)))), body));
  const more = h("button", { type: "button", class: "small" }, "more");
  const load = async (token) => {
    const r = await rpc("AdminService/ListWriteDecisions", { scope: scopeOf(params), outcome: outcome || undefined, pageSize: 200, pageToken: token || "" });
    for (const e of r.decisions || []) {
      const d = e.decision || {};
      const o = short(d.outcome, "WRITE_OUTCOME_");
      body.append(h("tr", {},
        h("td", { class: "muted time" }, time(e.time)),
        h("td", { class: "outcome-" + o }, o.toLowerCase()),
        h("td", { class: "score" }, num(d.gateScore)),
        h("td", {}, d.scores && Object.values(d.scores).some((v) => v) ? scoreBars(d.scores) : h("span", { class: "muted" }, "no dimension scores")),
        h("td", {}, (d.memory && d.memory.content) || ""),
        h("td", {}, d.reason || ""),
        h("td", { class: "mono" }, e.runId || "remember")));
    }
    if (!body.children.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted" }, "no decisions")));
    if (r.nextPageToken) { more.onclick = () => { more.remove(); load(r.nextPageToken); }; main.append(more); }
  };
  await load("");
}

async function rulesPage(main, params) {
  main.append(h("h1", {}, "Tool rules"), h("p", { class: "sub" }, "Rules per tool (critical and high are pinned into every BeginRun) and each tool's stats. " + describeScope(params)));
  if (needWorkspace(main, params, "tool rules")) return;
  const scope = scopeOf(params);
  const { rules = [] } = await rpc("ToolRuleService/ListToolRules", { scope });
  if (!rules.length) main.append(h("div", { class: "note" }, "No tool rules in this workspace."));
  const tools = [...new Set(rules.map((r) => r.toolName))].sort();
  for (const tool of tools) {
    main.append(h("h2", {}, "Tool ", h("span", { class: "mono" }, tool)));
    let stats = {};
    try { stats = (await rpc("ToolRuleService/GetToolStats", { scope, toolName: tool })).stats || {}; } catch (e) { main.append(errorBox(e)); }
    main.append(h("p", {},
      h("span", { class: "chip" }, "calls " + (stats.calls || 0)),
      h("span", { class: "chip" }, "failures " + (stats.failures || 0)),
      h("span", { class: "chip" }, "denials " + (stats.denials || 0)),
      Object.entries(stats.failuresByCategory || {}).map(([k, v]) => h("span", { class: "chip bad" }, k + " " + v)),
      stats.lastErrorMessage ? h("span", { class: "muted" }, " last error (" + time(stats.lastFailureTime) + "): " + stats.lastErrorMessage) : ""));
    const rows = rules.filter((r) => r.toolName === tool).map((r) => {
      const prio = short(r.priority, "TOOL_RULE_PRIORITY_");
      return h("tr", {},
        h("td", { class: "prio-" + prio }, prio.toLowerCase()),
        h("td", {}, r.rule || ""),
        h("td", {}, short(r.source, "TOOL_RULE_SOURCE_").toLowerCase().replace(/_/g, " ")),
        h("td", {}, (r.tags || []).map((t) => h("span", { class: "chip" }, t))),
        h("td", { class: "muted time" }, time(r.updateTime)),
        h("td", {}, info.writes ? h("button", { type: "button", class: "danger small", onclick: async () => {
          if (!confirm("Delete this tool rule?")) return;
          try { await rpc("ToolRuleService/DeleteToolRule", { scope, toolName: tool, id: r.id }); render(); } catch (e) { main.append(errorBox(e)); }
        } }, "delete") : ""));
    });
    main.append(h("table", {}, h("thead", {}, h("tr", {}, ["priority", "rule", "source", "tags", "updated", ""].map((t) => h("th", {}, t)))), h("tbody", {}, rows)));
  }
  const rendered = await rpc("ToolRuleService/RenderToolRules", { scope });
  main.append(h("h2", {}, "Pinned block (as BeginRun renders it)"), h("pre", {}, rendered.markdown || "(nothing pinned)"));
}

async function sessionsPage(main, params) {
  main.append(h("h1", {}, "Sessions"), h("p", { class: "sub" }, "Every message kept verbatim, per session; full-text search over them. " + describeScope(params)));
  if (needWorkspace(main, params, "sessions")) return;
  const scope = scopeOf(params);
  const query = h("input", { name: "q", placeholder: "search the messages", value: params.get("q") || "" });
  main.append(h("form", { class: "toolbar", onsubmit: (ev) => { ev.preventDefault(); location.hash = link("sessions", Object.assign(scopeParams(params), { q: query.value })); } }, query, h("button", { type: "submit" }, "search")));
  if (params.get("q")) {
    const { hits = [] } = await rpc("SessionService/SearchSessions", { scope, query: params.get("q"), topK: 20 });
    main.append(h("h2", {}, "Search: " + params.get("q")));
    main.append(h("table", {}, h("thead", {}, h("tr", {}, ["score", "session", "role", "message", "time"].map((t) => h("th", {}, t)))),
      h("tbody", {}, hits.length ? hits.map((x) => h("tr", {},
        h("td", {}, num(x.score, 2)),
        h("td", {}, h("a", { class: "mono", href: link("session", Object.assign(scopeParams(params), { session: x.sessionId })) }, x.sessionId)),
        h("td", {}, short((x.message || {}).role, "MESSAGE_ROLE_").toLowerCase()),
        h("td", {}, x.snippet || (x.message || {}).content || ""),
        h("td", { class: "muted time" }, time(x.time)))) : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "no matches")))));
  }
  main.append(h("h2", {}, "Sessions" + (params.get("user") ? " of user " + params.get("user") : "")));
  const { sessions = [] } = await rpc("SessionService/ListSessions", { scope, pageSize: 200 });
  main.append(h("table", {}, h("thead", {}, h("tr", {}, ["session", "agent", "messages", "created", "last message"].map((t) => h("th", {}, t)))),
    h("tbody", {}, sessions.length ? sessions.map((s) => h("tr", {},
      h("td", {}, h("a", { class: "mono", href: link("session", Object.assign(scopeParams(params), { session: s.sessionId })) }, s.sessionId)),
      h("td", {}, s.agentId || ""),
      h("td", {}, s.messageCount || 0),
      h("td", { class: "muted time" }, time(s.createTime)),
      h("td", { class: "muted time" }, time(s.lastMessageTime)))) : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "no sessions" + (params.get("user") ? "" : " without a user id; give one above"))))));
}

async function sessionPage(main, params) {
  main.append(h("h1", {}, "Session ", h("span", { class: "mono" }, params.get("session") || "")), h("p", { class: "sub" }, describeScope(params)));
  const { messages = [] } = await rpc("SessionService/GetHistory", { scope: scopeOf(params), pageSize: 500 });
  main.append(h("table", {}, h("thead", {}, h("tr", {}, ["#", "role", "speaker", "message", "time", "run"].map((t) => h("th", {}, t)))),
    h("tbody", {}, messages.length ? messages.map((m) => h("tr", { class: m.contextVisible === false ? "inactive" : "" },
      h("td", { class: "muted" }, m.sequence || ""),
      h("td", {}, short(m.role, "MESSAGE_ROLE_").toLowerCase()),
      h("td", {}, m.name || ""),
      h("td", {}, m.content || "", m.toolCall ? h("div", { class: "mono muted" }, "calls " + m.toolCall.name + " " + (m.toolCall.arguments || "")) : ""),
      h("td", { class: "muted time" }, time(m.time)),
      h("td", { class: "mono muted" }, m.runId || ""))) : h("tr", {}, h("td", { colspan: 6, class: "muted" }, "no messages")))));
}

async function skillsPage(main, params) {
  main.append(h("h1", {}, "Skill candidates"), h("p", { class: "sub" }, "Procedures learned from sessions and accepted tasks, waiting for review, and the skills published from them. " + describeScope(params)));
  if (needWorkspace(main, params, "skill candidates")) return;
  const scope = scopeOf(params);
  const { candidates = [] } = await rpc("LearningService/ListSkillCandidates", { scope, pageSize: 50 });
  if (!candidates.length) main.append(h("div", { class: "note" }, "No skill candidates in this workspace."));
  const review = (c, decision) => async () => {
    let reason = "";
    if (decision === "REJECT") { reason = prompt("Why reject it?") || ""; if (!reason) return; }
    try { await rpc("LearningService/ReviewSkillCandidate", { scope, candidateId: c.candidateId, decision, reason }); render(); } catch (e) { main.append(errorBox(e)); }
  };
  for (const c of candidates) {
    const status = c.status || "UNSPECIFIED";
    main.append(h("div", { class: "card" },
      h("h3", {}, c.name || c.candidateId, " ", h("span", { class: "chip" }, status.toLowerCase().replace(/_/g, " "))),
      h("p", {}, c.description || ""),
      h("p", { class: "muted" }, (c.sessionCount || 0) + " sessions, " + (c.taskCount || 0) + " accepted tasks, by " + (c.synthesizer || "?") + " · " + time(c.createTime)),
      h("details", {}, h("summary", {}, "draft SKILL.md"), h("pre", {}, c.draft || "")),
      h("details", {}, h("summary", {}, "evidence (" + (c.evidence || []).length + ")"), h("pre", {}, JSON.stringify(c.evidence || [], null, 2))),
      info.writes && status === "REVIEW_REQUIRED" ? h("div", { class: "row" }, h("button", { type: "button", onclick: review(c, "APPROVE") }, "approve"), h("button", { type: "button", class: "danger", onclick: review(c, "REJECT") }, "reject")) : ""));
  }
  const { skills = [] } = await rpc("LearningService/ListSkills", { scope });
  main.append(h("h2", {}, "Published skills"));
  main.append(h("table", {}, h("thead", {}, h("tr", {}, ["name", "version", "description", "path", "published"].map((t) => h("th", {}, t)))),
    h("tbody", {}, skills.length ? skills.map((s) => h("tr", {}, h("td", { class: "mono" }, s.name), h("td", {}, s.version || ""), h("td", {}, s.description || ""), h("td", { class: "mono" }, s.path || ""), h("td", { class: "muted time" }, time(s.publishTime)))) : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "none published")))));
}

async function eventsPage(main, params) {
  main.append(h("h1", {}, "Live events"), h("p", { class: "sub" }, "AdminService.WatchEvents as it happens (newest first): runs, stored, merged, superseded and rejected memories, captured tool rules, maintenance. " + describeScope(params)));
  if (needWorkspace(main, params, "live events")) return;
  const state = h("span", { id: "events-state" }, h("span", { class: "live off" }), "connecting…");
  main.append(h("div", { class: "toolbar" }, state));
  const body = h("tbody", {});
  main.append(h("table", { class: "events" }, h("thead", {}, h("tr", {}, ["time", "type", "namespace", "run", "attributes"].map((t) => h("th", {}, t)))), body));
  const q = new URLSearchParams();
  const s = scopeOf(params);
  q.set("workspace_id", s.workspaceId);
  if (s.userId) q.set("user_id", s.userId);
  if (s.agentId) q.set("agent_id", s.agentId);
  if (s.sessionId) q.set("session_id", s.sessionId);
  const abort = new AbortController();
  leave = () => abort.abort();
  let res;
  try {
    res = await fetch("api/events?" + q, { headers: headers(), signal: abort.signal, cache: "no-store" });
  } catch (e) {
    state.replaceChildren(h("span", { class: "live off" }), "disconnected");
    return;
  }
  if (!res.ok) { await answer(res); return; }
  state.replaceChildren(h("span", { class: "live" }), "watching");
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let type = "message";
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) type = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (!data) continue;
          const ev = JSON.parse(data);
          if (type === "error" || type === "end") {
            state.replaceChildren(h("span", { class: "live off" }), type === "end" ? "the sidecar ended the stream" : ev.code + ": " + ev.message);
            continue;
          }
          body.prepend(h("tr", {},
            h("td", { class: "muted time" }, time(ev.time)),
            h("td", {}, h("span", { class: "chip" }, ev.type)),
            h("td", { class: "mono" }, ev.namespace || ""),
            h("td", { class: "mono" }, ev.runId || ""),
            h("td", {}, Object.entries(ev.attributes || {}).map(([k, v]) => h("span", { class: "chip" }, k + "=" + v)))));
          while (body.children.length > 500) body.lastChild.remove();
        }
      }
      state.replaceChildren(h("span", { class: "live off" }), "disconnected");
    } catch (e) {
      if (!abort.signal.aborted) state.replaceChildren(h("span", { class: "live off" }), "disconnected");
    }
  })();
}

const RENDER = {
  workspaces: workspacesPage,
  profiles: profilesPage,
  memories: memoriesPage,
  memory: memoryPage,
  decisions: decisionsPage,
  rules: rulesPage,
  sessions: sessionsPage,
  session: sessionPage,
  skills: skillsPage,
  events: eventsPage,
};

// ---------------------------------------------------------------- frame

function renderFrame(page, params) {
  const form = document.getElementById("scope");
  for (const k of SCOPE_KEYS) form.elements[k].value = params.get(k) || "";
  const nav = document.getElementById("nav");
  const sp = scopeParams(params);
  const current = page === "memory" ? "memories" : page === "session" ? "sessions" : page;
  nav.replaceChildren(...PAGES.map(([id, title]) => h("a", { href: link(id, sp), class: id === current ? "on" : "" }, title)));
  const mode = document.getElementById("mode");
  mode.textContent = info.writes ? "writes allowed" : "read-only";
  mode.className = "badge " + (info.writes ? "rw" : "ro");
  document.getElementById("version").textContent = info.version ? "v" + info.version : "";
}

async function render() {
  if (leave) { leave(); leave = null; }
  takeTokenFromUrl();
  const { page, params } = route();
  renderFrame(page, params);
  const main = document.getElementById("main");
  main.replaceChildren();
  main.dataset.page = page;
  main.dataset.state = "loading";
  const fn = RENDER[page];
  try {
    if (!fn) throw new Error("no page " + page);
    await fn(main, params);
  } catch (e) {
    main.append(errorBox(e));
  }
  main.dataset.state = "ready";
}

async function start() {
  takeTokenFromUrl();
  try {
    info = await get("info");
  } catch (e) {
    const main = document.getElementById("main");
    main.replaceChildren(errorBox(e));
    main.dataset.state = "ready";
    return;
  }
  await render();
}

document.getElementById("scope").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const { page } = route();
  const p = {};
  for (const k of SCOPE_KEYS) p[k] = form.elements[k].value.trim();
  const target = page === "memory" ? "memories" : page === "session" && !p.session ? "sessions" : page === "workspaces" ? "memories" : page;
  location.hash = link(target, p);
});
window.addEventListener("hashchange", render);
setUpToken();
start();
