/// The dashboard's script: reads `/events` (first the run's points so far, `event: history`),
/// keeps ten minutes of points, draws the charts as
/// SVG. Latency percentiles come from the run's exact figures when the frame has them, else
/// they are estimated from the last second's bucket counts (as Prometheus's histogram_quantile).
/// Latency charts use a log scale, so p50 to p99 stay readable beside a 5 s max.
enum DashboardScript {
    static let source = #"""
        'use strict';
        const keep = 600, history = [];
        let previous = null, frames = 0;
        const $ = id => document.getElementById(id);
        const sum = (frame, name) => (frame.metrics[name] || []).reduce((a, s) => a + (s.value || 0), 0);
        function fmtSeconds(s) {
          if (s == null || !isFinite(s)) return '–';
          if (s < 0.001) return (s * 1e6).toFixed(0) + ' µs';
          if (s < 1) return (s * 1e3).toFixed(s < 0.01 ? 2 : 1) + ' ms';
          return s.toFixed(2) + ' s';
        }
        function fmtCount(n) { return n >= 1e6 ? (n / 1e6).toFixed(2) + 'M' : n >= 1e4 ? (n / 1e3).toFixed(1) + 'k' : String(Math.round(n)); }
        // Quantile q of the observations between two cumulative bucket readings (linear within a bucket).
        function estimate(now, before, q) {
          const cum = now.cumulative.map((c, i) => c - (before ? before.cumulative[i] : 0));
          const total = cum[cum.length - 1];
          if (!(total > 0)) return null;
          const rank = q * total;
          for (let i = 0; i < cum.length; i++) {
            if (cum[i] >= rank) {
              if (i >= now.le.length) return now.le[now.le.length - 1];
              const low = i === 0 ? 0 : now.le[i - 1], below = i === 0 ? 0 : cum[i - 1];
              return low + (now.le[i] - low) * (rank - below) / Math.max(1, cum[i] - below);
            }
          }
          return null;
        }
        function percentiles(frame, name) {
          const series = (frame.metrics[name] || [])[0];
          if (!series) return {};
          if (series.quantiles && Object.keys(series.quantiles).length)
            return { p50: series.quantiles['0.5'], p95: series.quantiles['0.95'], p99: series.quantiles['0.99'] };
          const before = previous && (previous.metrics[name] || [])[0];
          return { p50: estimate(series, before, 0.5), p95: estimate(series, before, 0.95), p99: estimate(series, before, 0.99) };
        }
        function update(frame, final) {
          frames += 1;
          const st = frame.status, t = st.elapsed_seconds;
          const dt = previous ? Math.max(0.001, t - previous.status.elapsed_seconds) : 0;
          const ops = sum(frame, 'whalesim_ops_total');
          const point = {
            t, clients: sum(frame, 'whalesim_clients_connected'),
            ops: previous && dt > 0 ? Math.max(0, (ops - sum(previous, 'whalesim_ops_total')) / dt) : null,
            ack: percentiles(frame, 'whalesim_op_ack_seconds'), apply: percentiles(frame, 'whalesim_op_remote_apply_seconds'),
          };
          const last = history.length ? history[history.length - 1].t : -1;
          if (t > last) { history.push(point); if (history.length > keep) history.shift(); }
          previous = frame;
          document.title = 'whalesim live: ' + st.title;
          $('title').textContent = st.title;
          $('phase').textContent = st.phase;
          $('elapsed').textContent = t.toFixed(0);
          $('labels').textContent = frame.run ? Object.entries(frame.run).map(([k, v]) => k + '=' + v).join(' ') : '';
          $('clients').textContent = fmtCount(point.clients);
          $('ops-rate').textContent = point.ops == null ? '–' : fmtCount(point.ops);
          $('acks').textContent = fmtCount(sum(frame, 'whalesim_acks_total'));
          $('p99').textContent = fmtSeconds(point.ack.p99);
          $('errors-total').textContent = fmtCount(sum(frame, 'whalesim_errors_total'));
          $('frames').textContent = String(frames);
          drawTables(frame);
          const faults = st.fault_windows || [];
          chart($('chart-ack'), [['p50', 'var(--p50)', p => p.ack.p50], ['p95', 'var(--p95)', p => p.ack.p95],
            ['p99', 'var(--p99)', p => p.ack.p99]], faults, true);
          chart($('chart-apply'), [['p50', 'var(--p50)', p => p.apply.p50], ['p95', 'var(--p95)', p => p.apply.p95],
            ['p99', 'var(--p99)', p => p.apply.p99]], faults, true);
          chart($('chart-ops'), [['ops/s', 'var(--ops)', p => p.ops]], faults, false);
          chart($('chart-clients'), [['clients', 'var(--clients)', p => p.clients]], faults, false);
          if (final) showVerdict(st);
        }
        function cell(row, text, cls) { const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; }
        function drawTables(frame) {
          const checkers = $('checkers'), errors = $('errors');
          const states = frame.status.checkers || [];
          const byName = {};
          for (const s of states) byName[s.name] = s;
          for (const v of frame.metrics['whalesim_checker_violations_total'] || []) {
            const name = v.labels.checker;
            byName[name] = byName[name] || { name, state: v.value > 0 ? 'invalid' : 'valid', violations: v.value, unknowns: 0 };
          }
          for (const u of frame.metrics['whalesim_checker_unknowns_total'] || []) {
            const c = byName[u.labels.checker];
            if (c && !c.unknowns) { c.unknowns = u.value; if (u.value > 0 && c.state === 'valid') c.state = 'unknown'; }
          }
          const rows = Object.values(byName);
          checkers.innerHTML = '';
          if (!rows.length) cell(checkers.insertRow(), 'none reported yet', 'muted');
          for (const c of rows) {
            const row = checkers.insertRow();
            row.dataset.checker = c.name;
            cell(row, c.name); cell(row, c.state, 'state-' + c.state);
            cell(row, c.violations + ' violations, ' + c.unknowns + ' unknown'); cell(row, c.note || '', 'muted');
          }
          const codes = (frame.metrics['whalesim_errors_total'] || []).filter(e => e.value > 0);
          errors.innerHTML = '';
          if (!codes.length) cell(errors.insertRow(), 'none', 'muted');
          for (const e of codes) { const row = errors.insertRow(); cell(row, e.labels.code || '?'); cell(row, fmtCount(e.value)); }
        }
        function showVerdict(st) {
          const box = $('verdict');
          box.hidden = false;
          box.innerHTML = '';
          const word = document.createElement('strong');
          word.id = 'verdict-word';
          word.className = 'verdict-' + (st.verdict || 'unknown');
          word.textContent = (st.verdict || 'unknown').toUpperCase();
          box.append('Run ended: ', word);
          if (st.verdict_note) box.append(' — ' + st.verdict_note);
          if (st.report_url) {
            const link = document.createElement('a');
            link.id = 'report-link'; link.href = st.report_url; link.textContent = 'report';
            box.append(' · ', link, ' ', Object.assign(document.createElement('code'), { textContent: st.report_url }));
          }
          $('connection').textContent = 'run ended';
        }
        const svgNS = 'http://www.w3.org/2000/svg';
        function el(name, attrs, text) {
          const e = document.createElementNS(svgNS, name);
          for (const k in attrs) e.setAttribute(k, attrs[k]);
          if (text != null) e.textContent = text;
          return e;
        }
        // Draws lines over time; log: a log10 y axis (latencies), else linear from 0.
        function chart(svg, lines, faults, log) {
          const w = svg.clientWidth || 480, h = svg.clientHeight || 220, left = 52, right = 8, top = 8, bottom = 20;
          svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
          while (svg.firstChild) svg.removeChild(svg.firstChild);
          const values = [];
          for (const p of history) for (const [, , get] of lines) { const v = get(p); if (v != null && v > 0) values.push(v); }
          const t0 = history.length ? history[0].t : 0, t1 = Math.max(t0 + 10, history.length ? history[history.length - 1].t : 10);
          svg.dataset.from = t0;
          let lo, hi;
          if (log) {
            lo = Math.pow(10, Math.floor(Math.log10(Math.min(...values, 0.001))));
            hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...values, 0.01))));
          } else { lo = 0; hi = Math.max(1, ...values) * 1.1; }
          const x = t => left + (w - left - right) * (t - t0) / (t1 - t0);
          const y = v => log ? top + (h - top - bottom) * (1 - (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)))
                             : top + (h - top - bottom) * (1 - (v - lo) / (hi - lo));
          for (const f of faults) {
            const a = Math.max(t0, f.start_seconds), b = Math.min(t1, f.end_seconds == null ? t1 : f.end_seconds);
            if (!(b > a)) continue;
            const rect = el('rect', { class: 'fault', x: x(a), y: top, width: x(b) - x(a), height: h - top - bottom });
            rect.append(el('title', {}, f.kind));
            svg.append(rect);
          }
          const ticks = [];
          if (log) { for (let v = lo; v <= hi * 1.0001; v *= 10) ticks.push(v); }
          else { for (let i = 0; i <= 4; i++) ticks.push(lo + (hi - lo) * i / 4); }
          for (const v of ticks) {
            svg.append(el('line', { class: 'grid', x1: left, x2: w - right, y1: y(v), y2: y(v) }));
            svg.append(el('text', { x: left - 4, y: y(v) + 3, 'text-anchor': 'end' }, log ? fmtSeconds(v) : fmtCount(v)));
          }
          svg.append(el('text', { x: left, y: h - 4 }, t0.toFixed(0) + ' s'));
          svg.append(el('text', { x: w - right, y: h - 4, 'text-anchor': 'end' }, t1.toFixed(0) + ' s'));
          for (const [name, colour, get] of lines) {
            let d = '';
            for (const p of history) {
              const v = get(p);
              if (v == null || (log && !(v > 0))) { continue; }
              d += (d ? 'L' : 'M') + x(p.t).toFixed(1) + ',' + y(v).toFixed(1);
            }
            if (d) svg.append(el('path', { d, fill: 'none', stroke: colour, 'stroke-width': 1.5, 'data-line': name }));
          }
        }
        const events = new EventSource('events');
        events.onopen = () => { $('connection').textContent = 'live'; };
        // A page opened mid-run first gets the run's points so far: its charts start with the run.
        events.addEventListener('history', e => {
          const points = JSON.parse(e.data);
          history.length = 0;
          for (const p of points.slice(-keep)) history.push(p);
        });
        events.onmessage = e => update(JSON.parse(e.data), false);
        events.addEventListener('final', e => { update(JSON.parse(e.data), true); events.close(); });
        events.onerror = () => { if ($('verdict').hidden) $('connection').textContent = 'reconnecting…'; };

        """#
}
