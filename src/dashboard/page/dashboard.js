// The dashboard page: reads /dashboard/api/* with the key kept in this tab's sessionStorage (sent in a header,
// never in a URL). Everything a payer or a chain may have written (reasons, symbols, addresses) is set as text,
// never as HTML; links are http(s) explorer pages only. Served under a Content-Security-Policy of 'self'.
(() => {
  const KEY = "relay402.dashboardKey";
  const API = "/dashboard/api";
  const $ = (id) => document.getElementById(id);
  let nextBefore = null;

  async function api(path) {
    const response = await fetch(API + path, { headers: { "x-dashboard-api-key": sessionStorage.getItem(KEY) ?? "" } });
    const body = await response.json().catch(() => ({}));
    if (response.status === 401) {
      logout("wrong key");
      throw new Error("unauthorized");
    }
    if (!response.ok) throw new Error(body?.error?.message ?? body?.message ?? `HTTP ${response.status}`);
    return body;
  }

  const cell = (row, value, className) => {
    const td = document.createElement("td");
    td.textContent = value === null || value === undefined ? "—" : String(value);
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  };

  const linkCell = (row, url, label) => {
    const td = document.createElement("td");
    td.className = "mono";
    if (url && /^https?:\/\//.test(url)) {
      const a = document.createElement("a");
      a.href = url;
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      a.textContent = label;
      td.appendChild(a);
    } else td.textContent = label ?? "—";
    row.appendChild(td);
  };

  const rows = (id, items, fill) => {
    const body = $(id).tBodies[0];
    body.replaceChildren();
    for (const item of items) {
      const tr = document.createElement("tr");
      fill(tr, item);
      body.appendChild(tr);
    }
  };

  const short = (value) =>
    typeof value === "string" && value.length > 14 ? `${value.slice(0, 8)}…${value.slice(-4)}` : value;
  // A token by its symbol when known (a contract's own text: set as text like the rest), else its short address.
  const tokenLabel = (symbol, token) => symbol ?? short(token);
  const amounts = (list) =>
    list.map((each) => `${each.amount} ${tokenLabel(each.symbol, each.token)}`).join(", ") || "—";

  // Settlements per bucket by status, drawn by uPlot (served from this origin) as stacked bars: each series is drawn
  // up to its running total, the largest first, and its legend shows its own count. Values are counts only.
  let plot = null;
  function chart(points) {
    const holder = $("chart");
    const kinds = [
      ["pending", "#f9a825"],
      ["failed", "#b3261e"],
      ["success", "#2e7d32"],
    ];
    const stacked = (upTo) => points.map((p) => kinds.slice(upTo).reduce((sum, [kind]) => sum + p[kind], 0));
    const data = [points.map((p) => Date.parse(p.start) / 1000), stacked(0), stacked(1), stacked(2)];
    if (plot) plot.destroy();
    const bars = uPlot.paths.bars({ size: [0.8, 40] });
    const series = ([kind, color]) => ({
      label: kind,
      stroke: color,
      fill: color,
      paths: bars,
      points: { show: false },
      value: (_, value, __, i) => (i === null || value === null ? "--" : String(points[i][kind])),
    });
    plot = new uPlot(
      {
        width: Math.min(900, holder.clientWidth || 900),
        height: 180,
        series: [{}, ...kinds.map(series)],
        axes: [{}, { label: "settlements", size: 60 }],
        scales: { x: { time: true } },
      },
      data,
      holder,
    );
  }

  async function loadSummary() {
    const summary = await api(`/summary?range=${encodeURIComponent($("range").value)}`);
    const totals = $("totals");
    totals.replaceChildren();
    const card = (label, value) => {
      const div = document.createElement("div");
      div.className = "card";
      const b = document.createElement("b");
      b.textContent = value;
      div.append(b, label);
      totals.appendChild(div);
    };
    card("settlements", String(summary.totals.settlements));
    card("volume", amounts(summary.totals.volume));
    card("fees earned", amounts(summary.totals.fees));
    for (const [network, wei] of Object.entries(summary.totals.spentWeiByNetwork))
      card(`gas spent on ${network} (wei)`, wei);
    if (summary.totals.unknownGas > 0) card("settlements with unknown gas", String(summary.totals.unknownGas));
    chart(summary.series);
    rows("flows", summary.flows, (tr, f) => {
      cell(tr, f.network);
      cell(tr, f.flow);
      cell(tr, f.settlements.success);
      cell(tr, f.settlements.failed);
      cell(tr, f.settlements.pending);
      cell(tr, f.successRate === null ? null : `${(f.successRate * 100).toFixed(1)}%`);
      cell(tr, amounts(f.volume));
      cell(tr, amounts(f.fees));
      cell(tr, f.gas.unknown > 0 ? `${f.gas.wei} (+${f.gas.unknown} unknown)` : f.gas.wei);
      cell(tr, f.sponsored.unknown > 0 ? `${f.sponsored.wei} (+${f.sponsored.unknown} unknown)` : f.sponsored.wei);
      cell(tr, f.latencyMs ? `${f.latencyMs.p50} / ${f.latencyMs.p95}` : null);
    });
    // Zero-gas onboarding: what the funded approves sent, what they really cost (the fundings' gas, what the approves
    // burnt, what the payers kept), what walked away, and how near the budget window is to its bound (a row at 80%
    // or more is flagged like a low executor); then the payers who kept most.
    const known = (sum) => (sum.unknown > 0 ? `${sum.wei} (+${sum.unknown} unknown)` : sum.wei);
    rows("onboarding", summary.onboarding, (tr, o) => {
      const bound = BigInt(o.budget.wei);
      const used = bound === 0n ? null : Number((BigInt(o.budget.spentWei) * 1000n) / bound) / 10;
      if (used !== null && used >= 80) tr.className = "low";
      cell(tr, o.enabled ? o.network : `${o.network} (off)`);
      cell(tr, o.payersFunded);
      cell(tr, o.fundingWei);
      cell(tr, known(o.fundingGas));
      cell(tr, known(o.approveGas));
      cell(tr, known(o.kept));
      cell(tr, o.diverted.count);
      cell(tr, o.lost.count);
      cell(tr, o.lost.wei);
      cell(tr, `${o.budget.spentWei} / ${o.budget.wei}${used === null ? "" : ` (${used.toFixed(1)}%)`}`);
      cell(tr, `${o.budget.windowSeconds} s`);
    });
    const kept = summary.onboarding.flatMap((o) => o.payersKept.map((p) => ({ network: o.network, ...p })));
    rows("payers-kept", kept, (tr, p) => {
      cell(tr, p.network);
      cell(tr, p.payer, "mono");
      cell(tr, p.fundings);
      cell(tr, p.keptWei);
    });
  }

  async function loadAttention() {
    const attention = await api("/attention");
    rows("executors", attention.executors, (tr, e) => {
      if (e.low) tr.className = "low";
      cell(tr, e.network);
      cell(tr, e.address, "mono");
      cell(tr, e.balanceWei);
      cell(tr, e.alertBelowWei);
      cell(tr, e.inFlight);
      cell(tr, e.leaseHolder);
      cell(tr, e.lastsHours === null ? null : e.lastsHours.toFixed(1));
    });
    rows("paymasters", attention.paymasters, (tr, p) => {
      if (p.low) tr.className = "low";
      cell(tr, p.network);
      cell(tr, p.depositWei);
      cell(tr, p.alertBelowWei);
      cell(tr, p.averageSponsoredWei);
      cell(tr, p.coversUserOps);
    });
    rows("errors", attention.errors, (tr, e) => {
      cell(tr, e.reason);
      cell(tr, e.count);
      cell(tr, e.lastAt);
    });
    rows("denied", attention.denied, (tr, d) => {
      cell(tr, d.network);
      cell(tr, d.kind);
      cell(tr, d.address, "mono");
      cell(tr, d.reverts);
      cell(tr, d.denied ? "yes" : "no", d.denied ? "alert" : undefined);
      cell(tr, d.lastReason);
    });
    rows("stuck", attention.stuck, (tr, s) => {
      cell(tr, s.createdAt);
      cell(tr, s.network);
      cell(tr, s.flow);
      cell(tr, s.payer, "mono");
      linkCell(tr, s.explorerUrl, short(s.txHash));
    });
  }

  // The webhook endpoints with their deliveries' counts: a row with failing or dead deliveries, or disabled, is flagged.
  async function loadWebhooks() {
    const { endpoints } = await api("/webhooks");
    rows("webhook-endpoints", endpoints, (tr, w) => {
      if (w.deliveries.failing > 0 || w.deliveries.dead > 0 || w.disabled) tr.className = "low";
      cell(tr, w.id);
      cell(tr, w.url, "mono");
      cell(tr, w.events ? w.events.join(", ") : "payments and onboarding");
      cell(tr, w.deliveries.pending);
      cell(tr, w.deliveries.failing);
      cell(tr, w.deliveries.delivered);
      cell(tr, w.deliveries.dead);
      cell(tr, w.disabled ? `${w.disabled.disabledAt} (${w.disabled.reason ?? "disabled"})` : null);
    });
  }

  const table = (headings) => {
    const element = document.createElement("table");
    const head = element.createTHead().insertRow();
    for (const heading of headings) {
      const th = document.createElement("th");
      th.textContent = heading;
      head.appendChild(th);
    }
    element.createTBody();
    return element;
  };

  // One payment found: its record as GET /payments/{paymentId} answers it, then its events' deliveries.
  function paymentBlock(found) {
    const r = found.record;
    const block = document.createElement("div");
    block.className = "payment";
    const title = document.createElement("h3");
    title.textContent = `${r.network} ${r.flow} payment ${r.paymentId ?? "(no id yet)"}: ${r.status}`;
    if (r.status === "failed") title.className = "alert";
    const record = table([
      "Payer",
      "Payee",
      "Token",
      "Amount",
      "Fee",
      "Transaction",
      "Block",
      "Created",
      "Mined",
      "Failure reason",
    ]);
    const tr = record.tBodies[0].insertRow();
    cell(tr, r.payer, "mono");
    cell(tr, r.payees.length > 1 ? r.payees.join(", ") : r.payee, "mono");
    cell(tr, r.token, "mono");
    cell(tr, r.amount);
    cell(tr, r.fee);
    linkCell(tr, found.explorerUrl, r.transaction);
    cell(tr, r.block);
    cell(tr, r.createdAt);
    cell(tr, r.minedAt);
    cell(tr, r.failureReason, r.failureReason ? "alert" : undefined);
    const deliveries = table([
      "Delivery",
      "Event",
      "Endpoint",
      "Status",
      "Attempts",
      "Last answer",
      "Last error",
      "Next attempt",
      "Delivered",
    ]);
    for (const d of found.deliveries) {
      const row = deliveries.tBodies[0].insertRow();
      cell(row, d.id);
      cell(row, d.type);
      cell(row, d.endpoint);
      cell(row, d.status, d.status === "delivered" ? undefined : "alert");
      cell(row, d.attempts);
      cell(row, d.lastStatus);
      cell(row, d.lastError);
      cell(row, d.status === "pending" ? d.nextAttemptAt : null);
      cell(row, d.deliveredAt);
    }
    const none = document.createElement("p");
    none.textContent =
      found.deliveries.length === 0 ? "No webhook deliveries." : `${found.deliveries.length} webhook deliveries:`;
    block.append(title, record, none);
    if (found.deliveries.length > 0) block.appendChild(deliveries);
    return block;
  }

  async function search() {
    const q = new FormData($("search")).get("q")?.toString().trim() ?? "";
    $("found").replaceChildren();
    $("search-result").textContent = "";
    try {
      const { payments } = await api(`/payments?q=${encodeURIComponent(q)}`);
      $("search-result").textContent = payments.length === 0 ? "No payment found." : `${payments.length} found.`;
      $("found").append(...payments.map(paymentBlock));
    } catch (error) {
      $("search-result").textContent = error.message;
    }
  }

  async function loadSettlements(append) {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData($("filter"))) if (value) params.set(name, String(value));
    if (append && nextBefore) params.set("before", nextBefore);
    const page = await api(`/settlements?${params}`);
    const body = $("settlements").tBodies[0];
    if (!append) body.replaceChildren();
    for (const s of page.settlements) {
      const tr = document.createElement("tr");
      cell(tr, s.createdAt);
      cell(tr, s.network);
      cell(tr, s.flow);
      cell(tr, s.status, s.status === "failed" ? "alert" : undefined);
      cell(tr, tokenLabel(s.symbol, s.token), "mono").title = s.token ?? "";
      cell(tr, s.amount);
      cell(tr, s.fee);
      cell(tr, s.payer, "mono");
      cell(tr, s.payee, "mono");
      cell(tr, s.gasWei);
      cell(tr, s.sponsoredWei);
      linkCell(tr, s.explorerUrl, short(s.txHash));
      cell(tr, s.error, s.error ? "alert" : undefined);
      body.appendChild(tr);
    }
    nextBefore = page.next;
    $("more").hidden = !page.next;
  }

  async function loadAll() {
    $("login").hidden = true;
    $("board").hidden = false;
    $("logout").hidden = false;
    await Promise.all([loadSummary(), loadAttention(), loadWebhooks(), loadSettlements(false)]);
  }

  function logout(reason) {
    sessionStorage.removeItem(KEY);
    $("board").hidden = true;
    $("logout").hidden = true;
    $("login").hidden = false;
    $("login-error").textContent = reason ?? "";
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("login").addEventListener("submit", (event) => {
      event.preventDefault();
      sessionStorage.setItem(KEY, $("key").value);
      $("key").value = "";
      loadAll().catch((error) => {
        $("login-error").textContent = error.message;
      });
    });
    $("logout").addEventListener("click", () => logout());
    $("range").addEventListener("change", () => loadSummary().catch(() => {}));
    $("filter").addEventListener("submit", (event) => {
      event.preventDefault();
      loadSettlements(false).catch((error) => {
        $("login-error").textContent = error.message;
      });
    });
    $("more").addEventListener("click", () => loadSettlements(true).catch(() => {}));
    $("search").addEventListener("submit", (event) => {
      event.preventDefault();
      search();
    });
    if (sessionStorage.getItem(KEY)) loadAll().catch(() => {});
  });
})();
