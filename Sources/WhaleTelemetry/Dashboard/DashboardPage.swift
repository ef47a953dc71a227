/// The live dashboard at `/`: one self-contained page (inline CSS, SVG drawn by inline script,
/// nothing fetched but `/events`), like the report. It shows clients, ops/s, latency
/// percentiles over time on a log scale with the fault windows shaded, errors by code, each
/// checker's state, and once the run has ended the verdict with a link to the report.
///
/// Elements a test (or a person with devtools) can read: `#phase`, `#elapsed`, `#clients`,
/// `#ops-rate`, `#acks`, `#p99`, `#errors-total`, `#frames` (events received), `#checkers`,
/// `#errors`, `#verdict` (hidden until the final event), `#report-link`.
enum DashboardPage {
    static let html = head + body + "<script>\n" + DashboardScript.source + "</script>\n</body>\n</html>\n"

    static let head = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>whalesim live</title>
        <link rel="icon" href="data:,">
        <style>
        :root { --bg: #fff; --fg: #1d2330; --muted: #667085; --card: #f5f7fa; --line: #d0d5dd;
                --p50: #2e90fa; --p95: #f79009; --p99: #d92d20; --ops: #12b76a; --clients: #7a5af8;
                --fault: rgba(217, 45, 32, 0.12); --pass: #067647; --fail: #b42318; --unknown: #b54708; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #0c111d; --fg: #e4e7ec; --muted: #98a2b3; --card: #161b26; --line: #333741;
                  --fault: rgba(240, 68, 56, 0.18); }
        }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 16px 24px; background: var(--bg); color: var(--fg);
               font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 12px; }
        h1 { font-size: 20px; margin: 0; }
        h2 { font-size: 15px; margin: 0 0 8px; }
        .muted { color: var(--muted); }
        .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 10px; margin: 14px 0; }
        .figure { background: var(--card); border-radius: 8px; padding: 10px 12px; }
        .figure .value { font-size: 22px; font-variant-numeric: tabular-nums; }
        .figure .label { color: var(--muted); font-size: 12px; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 14px; }
        .card { background: var(--card); border-radius: 8px; padding: 12px; }
        svg { width: 100%; height: 220px; display: block; }
        svg text { fill: var(--muted); font-size: 10px; }
        svg .grid { stroke: var(--line); stroke-width: 0.5; }
        svg .fault { fill: var(--fault); }
        table { border-collapse: collapse; width: 100%; }
        td, th { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); }
        .state-valid, .verdict-pass { color: var(--pass); }
        .state-invalid, .verdict-fail { color: var(--fail); }
        .state-unknown, .verdict-unknown { color: var(--unknown); }
        .legend span { margin-right: 10px; font-size: 12px; }
        .legend i { display: inline-block; width: 10px; height: 3px; vertical-align: middle; margin-right: 4px; }
        #verdict { font-size: 18px; margin: 12px 0; padding: 12px; border-radius: 8px; background: var(--card); }
        #verdict[hidden] { display: none; }
        </style>
        </head>

        """#

    static let body = #"""
        <body>
        <header>
          <h1 id="title">whalesim live</h1>
          <span id="phase" class="muted">connecting</span>
          <span class="muted">at <span id="elapsed">0</span> s</span>
          <span id="labels" class="muted"></span>
          <span id="connection" class="muted"></span>
        </header>
        <div id="verdict" hidden></div>
        <div class="figures">
          <div class="figure"><div class="value" id="clients">–</div><div class="label">clients connected</div></div>
          <div class="figure"><div class="value" id="ops-rate">–</div><div class="label">ops/s (last second)</div></div>
          <div class="figure"><div class="value" id="acks">–</div><div class="label">acks</div></div>
          <div class="figure"><div class="value" id="p99">–</div><div class="label">op→ack p99 (last second)</div></div>
          <div class="figure"><div class="value" id="errors-total">–</div><div class="label">errors</div></div>
          <div class="figure"><div class="value" id="frames">0</div><div class="label">updates received</div></div>
        </div>
        <div class="charts">
          <div class="card"><h2>op→ack latency (log scale)</h2><svg id="chart-ack" role="img"></svg>
            <div class="legend"><span><i style="background:var(--p50)"></i>p50</span><span><i style="background:var(--p95)"></i>p95</span>
            <span><i style="background:var(--p99)"></i>p99</span><span class="muted">shaded: fault windows</span></div></div>
          <div class="card"><h2>op→remote-apply latency (log scale)</h2><svg id="chart-apply" role="img"></svg>
            <div class="legend"><span><i style="background:var(--p50)"></i>p50</span><span><i style="background:var(--p95)"></i>p95</span>
            <span><i style="background:var(--p99)"></i>p99</span></div></div>
          <div class="card"><h2>ops/s</h2><svg id="chart-ops" role="img"></svg></div>
          <div class="card"><h2>clients connected</h2><svg id="chart-clients" role="img"></svg></div>
          <div class="card"><h2>checkers</h2><table id="checkers"><tr><td class="muted">none reported yet</td></tr></table></div>
          <div class="card"><h2>errors by code</h2><table id="errors"><tr><td class="muted">none</td></tr></table></div>
        </div>

        """#
}
